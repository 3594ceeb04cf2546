import CollageCore
import CollageKit
import CollageRender
import Foundation

/// The sticker resource: lifting a photo's subject, listing the library's stickers, and each
/// sticker's picture.
enum StickerRoutes {
    static let all: [Route] = [
        Route("GET", "/api/stickers", "listStickers", "The library's stickers, newest first", responses: [200: "list"])
        {
            app, _ throws(HTTPError) in
            let stickers = try APIRoutes.kit { () throws(Failure) in try app.workspace.stickers() }
            return .json(
                .array(
                    stickers.map { record in
                        RecordJSON.adding(
                            ["image": .string("/api/stickers/\(record.id)/image")], to: RecordJSON.sticker(record))
                    }))
        },
        Route(
            "POST", "/api/photos/{id}/stickers", "liftSticker",
            "Lift a sticker: all subjects, or the one at {at: {x, y}} (unit coordinates of the photo)",
            body: "{at?: {x, y}, instance?, outline?, shadow?, effect?, edges?}",
            fields: [
                Field(
                    "at", .object([.number("x", 0...1, required: true), .number("y", 0...1, required: true)]),
                    "the subject under this point, in unit coordinates of the photo"),
                .integer("instance", Limits.stickerInstance, "the N-th largest subject (1 is the largest)"),
                .number("outline", Limits.stickerOutline, "a white outline this many pixels wide"),
                .boolean("shadow", "a soft shadow below the sticker"),
                .string(
                    "effect", choices: StickerEffect.allCases.map(\.rawValue), nullable: true,
                    "a look: comic, halftone, puffy or shiny"),
                .string(
                    "edges", choices: ["clean", "plain"],
                    "clean (the default): the edge found again from the photo, strands sharp, no old "
                        + "background; plain: the model's own soft edge"),
            ],
            bodyIsOptional: true,
            responses: [201: "{id, width, height, image}", 422: "no subject (there, or at all)", 503: "no model"]
        ) { app, request throws(HTTPError) in try liftSticker(app, request) },
        Route(
            "GET", "/api/stickers/{id}/image", "stickerImage", "A sticker's PNG (immutable)",
            responses: [200: "image/png", 304: "unchanged", 404: "no such sticker"]
        ) { app, request throws(HTTPError) in try stickerImage(app, request) },
        Route(
            "GET", "/api/stickers/{id}/photo", "photoUnderSticker",
            "The photo's pixels under a sticker and around it as far as the refine brush reaches (PNG), the "
                + "sticker's top-left corner in them in X-Collage-Sticker-At: what the refine brush shows and restores",
            responses: [
                200: "image/png", 404: "no such sticker, or its photo's original is gone", 422: "cannot be found again",
                503: "no model",
            ]
        ) { app, request throws(HTTPError) in try photoUnderSticker(app, request) },
        Route(
            "POST", "/api/stickers/{id}/refine", "refineSticker",
            "Refine a sticker with brush strokes (erase, restore), in its own pixels (reaching past its sides, "
                + "as the photo route's picture does): a new sticker, cut down to what it keeps",
            body: "{strokes: [{mode: erase|restore, size, softness?, points: [[x, y], ...]}]}",
            fields: [
                Field(
                    "strokes", .array(.anyObject, maxItems: Limits.refineStrokes.upperBound), required: true,
                    "the strokes in the order drawn, each {mode, size, softness?, points}; sizes and points in the "
                        + "sticker's pixels, points up to a quarter of its longer side (at most 512) past its sides")
            ],
            responses: [
                201: "{id, width, height, image, offset: [x, y] (its top-left corner from the first one's, in pixels)}",
                404: "no such sticker", 422: "strokes out of range", 503: "no model",
            ]
        ) { app, request throws(HTTPError) in try refineSticker(app, request) },
        Route(
            "GET", "/api/sticker-packs/messengers", "messengerRules",
            "The messengers a sticker pack is made for, each with its limits (one table with `collage pack`)",
            responses: [
                200:
                    "[{id, name, format, side, square, maximumBytes, stickers: [least, most], icon, outline, margin, steps, "
                    + "animated: {format, maximumBytes, longestSeconds, steps} | null}]"
            ]
        ) { _, _ throws(HTTPError) in
            .json(
                .array(
                    Messenger.allCases.map { messenger in
                        let rules = messenger.rules
                        return .object([
                            "id": .string(messenger.rawValue), "name": .string(rules.name),
                            "format": .string(rules.format.rawValue), "side": .number(Double(rules.side)),
                            "square": .bool(rules.square), "maximumBytes": .number(Double(rules.maximumBytes)),
                            "stickers": .array([
                                .number(Double(rules.stickers.lowerBound)), .number(Double(rules.stickers.upperBound)),
                            ]),
                            "icon": rules.icon.map { .string($0.name) } ?? .null,
                            "outline": .number(rules.outline), "margin": .number(Double(rules.margin)),
                            "steps": .string(StickerPackRequest.steps(for: messenger)),
                            "animated": rules.animated.map { animated in
                                .object([
                                    "format": .string(animated.fileExtension),
                                    "maximumBytes": .number(Double(animated.maximumBytes)),
                                    "longestSeconds": .number(animated.longestSeconds),
                                    "steps": .string(StickerPackRequest.steps(for: messenger, moving: true)),
                                ])
                            } ?? .null,
                        ])
                    }))
        },
        Route(
            "POST", "/api/sticker-packs", "makeStickerPack",
            "A sticker pack for a messenger, as one zip: each picture sized and encoded within the messenger's "
                + "limits (see `collage pack`), its icon, WhatsApp's .wastickers, and HOW-TO-ADD.txt",
            body: "{for: whatsapp|telegram|signal|imessage, stickers: [id], title?, author?, animate?, duration?}",
            fields: [
                .string(
                    "for", choices: Messenger.allCases.map(\.rawValue), required: true, "the messenger the pack is for"),
                Field(
                    "stickers", .array(.string(choices: nil), maxItems: 200), required: true,
                    "library sticker ids, in the pack's order (the messenger's count: WhatsApp 3–30, Telegram "
                        + "1–120, Signal 1–200, iMessage 1–100)"),
                .string("title", "the pack's title, one line of 1–128 characters (default: My stickers)"),
                .string("author", "who made it, one line of 1–128 characters (default: Collage)"),
                .string(
                    "animate", choices: StickerMotion.allCases.map(\.rawValue),
                    "live stickers moving so (WhatsApp: animated WebP; Telegram: VP9 WebM; Signal and iMessage: APNG)"),
                .number("duration", Limits.liveStickerDuration, "a live sticker's loop in seconds (default 2)"),
            ],
            wrongTypeStatus: .unprocessable, expensive: true,
            responses: [
                200: "application/zip, as a download", 404: "a listed sticker is not in the library",
                422: "a count the messenger does not take, a sticker with no subject or that cannot fit, a bad title",
                503: "too many exports at once (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try makeStickerPack(app, request) },
    ]

    static func makeStickerPack(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = request.fields
        let packRequest = try APIRoutes.kit { () throws(Failure) in
            try StickerPackRequest(
                messenger: body.string("for") ?? "", sources: (body.strings("stickers") ?? []).map { .sticker($0) },
                title: body.string("title"), author: body.string("author"), motion: body.string("animate"),
                duration: body.number("duration"))
        }
        // Encoding at falling qualities is rendering: the pack waits its turn with the exports.
        let made = try app.exports.run { () throws(HTTPError) in
            try APIRoutes.kit { () throws(Failure) in try packRequest.archive(in: app.workspace) }
        }
        return HTTPResponse(
            headers: [
                "Content-Type": "application/zip",
                "Content-Disposition": CollageImageRoutes.contentDisposition(
                    title: packRequest.title + "-" + packRequest.messenger.rawValue, fileExtension: "zip"),
                "X-Collage-Stickers": "\(made.pack.stickers.count)",
            ], body: made.data)
    }

    static func liftSticker(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let sticker = try stickerRequest(request.fields)
        guard app.workspace.hasModel else {
            throw HTTPError(
                .unavailable, "the subject model is not installed; run \(SubjectModel.fetchCommand) and restart")
        }
        let started = ContinuousClock.now
        let record = try app.lifts.run { () throws(HTTPError) in
            // A lift that waited its turn for a client that has gone is not worth starting.
            if request.isClientGone() { throw APIRoutes.clientGone }
            do throws(Failure) {
                return try app.workspace.lift(
                    sticker, photo: request.parameter("id"), isCancelled: request.isClientGone)
            } catch {
                if request.isClientGone() { throw APIRoutes.clientGone }
                throw error.httpError
            }
        }
        var response = HTTPResponse.json(
            RecordJSON.adding(["image": .string("/api/stickers/\(record.id)/image")], to: RecordJSON.sticker(record)),
            status: .created)
        // The lift's own time, waiting for its turn included (browsers' network panels show it;
        // bench/sticker reads it).
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.inSeconds * 1000
        response.headers["Server-Timing"] = "lift;dur=\(String(format: "%.1f", milliseconds))"
        return response
    }

    /// The body's fields (their types checked with the body), checked by CollageKit as the
    /// command line's flags are.
    static func stickerRequest(_ body: CheckedBody) throws(HTTPError) -> StickerRequest {
        let point = body.value("at")?.member("x")?.numberValue.flatMap { x in
            body.value("at")?.member("y")?.numberValue.map { y in StickerRequest.Point.unit(x: x, y: y) }
        }
        let (instance, outline) = (body.number("instance"), body.number("outline"))
        let (shadow, effect) = (body.bool("shadow") ?? false, body.string("effect"))
        do throws(Failure) {
            return try StickerRequest(
                instance: instance, point: point, outline: outline, shadow: shadow, effect: effect,
                edges: body.string("edges"))
        } catch {
            throw error.httpError
        }
    }

    static func photoUnderSticker(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let file = ScratchSpace.file("under-sticker")
        defer { try? FileManager.default.removeItem(at: file) }
        let stickerAt = try app.lifts.run { () throws(HTTPError) -> (x: Int, y: Int) in
            try APIRoutes.kit { () throws(Failure) -> (x: Int, y: Int) in
                let under = try app.workspace.photoUnderSticker(request.parameter("id"))
                do throws(RenderError) {
                    try under.photo.write(to: file, format: .png)
                } catch {
                    throw error.failure
                }
                return (under.stickerAt.x, under.stickerAt.y)
            }
        }
        guard let data = try? Data(contentsOf: file) else {
            throw HTTPError(.internalError, "the photo under the sticker went missing")
        }
        // Where the sticker lies in the picture: the brush reaches past its sides.
        return HTTPResponse(
            headers: [
                "Content-Type": "image/png", "Cache-Control": "private, max-age=3600",
                "X-Collage-Sticker-At": "\(stickerAt.x),\(stickerAt.y)",
            ], body: data)
    }

    static func refineSticker(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let strokes = request.fields.value("strokes")
        let refined = try app.lifts.run { () throws(HTTPError) in
            try APIRoutes.kit { () throws(Failure) in
                try app.workspace.refineSticker(request.parameter("id"), strokes: strokes)
            }
        }
        let record = refined.record
        return HTTPResponse.json(
            RecordJSON.adding(
                [
                    "image": .string("/api/stickers/\(record.id)/image"),
                    "offset": .array([.number(Double(refined.offset.x)), .number(Double(refined.offset.y))]),
                ], to: RecordJSON.sticker(record)),
            status: .created)
    }

    static func stickerImage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let sticker = try APIRoutes.kit { () throws(Failure) in try app.workspace.sticker(request.parameter("id")) }
        let tag = "\"\(sticker.id)\""
        if request.headers["if-none-match"] == tag {
            return HTTPResponse(
                status: .notModified, headers: ["ETag": tag, "Cache-Control": APIRoutes.immutableCache])
        }
        return try APIRoutes.fileResponse(
            app.workspace.stickerImage(of: sticker), type: "image/png", tag: tag, immutable: true)
    }
}
