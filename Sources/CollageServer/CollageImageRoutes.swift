import CollageCore
import CollageKit
import CollageRender
import Foundation

/// A collage's pictures: its thumbnail, its sticker and text items as the renderer draws them,
/// and exports (with the size an export would have, before it is made).
enum CollageImageRoutes {
    static let all: [Route] = [
        Route(
            "GET", "/api/collages/{id}/thumbnail", "collageThumbnail", "A small JPEG of the collage (ETag by version)",
            responses: [200: "image/jpeg", 304: "unchanged"]
        ) { app, request throws(HTTPError) in try collageThumbnail(app, request) },
        Route(
            "GET", "/api/collages/{id}/items/{item}/drawn", "drawnItemImage",
            "An item as the renderer draws it, unturned: a sticker or text with its outline, shadow and "
                + "background, a photo cut, adjusted, mirrored, shaped, bordered and shadowed for its frame with the "
                + "collage's corners, at ?scale=pixels per point, as PNG; X-Collage-Offset says where its top-left "
                + "sits from the frame's, in its pixels. ?filter=ID (or none) draws a photo with that filter instead, "
                + "as a plain rectangle, for the filter tray",
            query: [
                .number("scale", Limits.exportScale, "pixels per canvas point (default 1)"),
                .string("v", "any text; the page names the document version, so caches refresh"),
                .string("filter", "a filter's id, or none: the photo drawn with it instead of its own"),
            ],
            expensive: true,
            responses: [200: "image/png", 404: "no such collage or item", 422: "a bad scale or filter"]
        ) { app, request throws(HTTPError) in try drawnItemImage(app, request) },
        Route(
            "GET", "/api/collages/{id}/background", "drawnBackground",
            "The collage's background alone (a colour, gradient, pattern or paper) as the renderer draws it, at "
                + "?scale=pixels per point (lowered to at most \(CollageRenderer.maximumDrawnBackgroundPixels / 1_000_000) "
                + "megapixels), as PNG; X-Collage-Scale says the scale drawn",
            query: [
                .number("scale", Limits.exportScale, "pixels per canvas point (default 1)"),
                .string("v", "any text; the page names the background, so caches refresh"),
            ],
            expensive: true,
            responses: [200: "image/png", 404: "no such collage", 422: "a bad scale"]
        ) { app, request throws(HTTPError) in try drawnBackground(app, request) },
        Route(
            "GET", "/api/collages/{id}/items/{item}/auto-adjustments", "autoAdjustments",
            "The photo's adjustments with the exposure and white balance its own pixels ask for (what the editor's "
                + "Auto sets with setLook): {adjustments}, the changed ones only",
            expensive: true,
            responses: [200: "{adjustments}", 404: "no such collage or item", 422: "the item is not a photo"]
        ) { app, request throws(HTTPError) in try autoAdjustments(app, request) },
        Route(
            "GET", "/api/collages/{id}/export", "exportCollage",
            "Render the collage: ?format=jpeg|png|webp|heic|avif and scale=N, size=PX or print=6x4in@300, quality=1-100 "
                + "(at most \(Limits.maximumOutputPixels / 1_000_000) megapixels and \(Limits.maximumOutputSide) px a side)",
            query: exportQuery,
            expensive: true,
            responses: [
                200: "the image, as a download", 422: "bad options", 404: "no such collage",
                503: "too many exports at once (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try export(app, request) },
        Route(
            "GET", "/api/collages/{id}/video", "exportVideo",
            "Render the collage assembling itself, looping: ?format=mp4|webm|webp|gif|apng, motion=pop|slide|fade, "
                + "duration=2-15 (seconds), size=the longer side (64-3840), fps=5-60, quality=1-100",
            query: [
                .string("format", choices: AnimationFormat.allCases.map(\.rawValue), "the file (default mp4)"),
                .string("motion", choices: MotionStyle.allCases.map(\.rawValue), "how photos arrive (default pop)"),
                .number("duration", Limits.motionDuration, "seconds (default 6)"),
                .integer("size", Limits.motionSide, "the longer side in pixels (default 1080; 480 for GIF)"),
                .integer("fps", Limits.motionFramesPerSecond, "frames a second (default 30; 15 for GIF)"),
                .integer("quality", Limits.quality, "encoder quality (default 80)"),
            ],
            expensive: true,
            responses: [
                200: "the animation, as a download", 422: "bad options", 404: "no such collage",
                503: "too many exports at once (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try exportVideo(app, request) },
        Route(
            "GET", "/api/collages/{id}/export-size", "exportSize",
            "The pixel size an export with these options would have (the same options as export), without rendering",
            query: exportQuery, responses: [200: "{width, height, dpi?}", 422: "bad options", 404: "no such collage"]
        ) { app, request throws(HTTPError) in try exportSize(app, request) },
    ]

    static func collageThumbnail(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        // A photo whose subject is still to be found is centred now and cropped around it later,
        // at the same version: the thumbnail is kept under how many are still to be found.
        let pending = app.workspace.photosAwaitingSubject(in: stored.collage)
        // The looks' drawing version too: a sticker effect drawn anew (Comic) is not shown as before.
        let key =
            "\(stored.collage.id)-v\(stored.version)-\(StickerEffects.drawingGeneration)"
            + (pending > 0 ? "-p\(pending)" : "")
        let tag = "\"\(key)\""
        if request.headers["if-none-match"] == tag { return HTTPResponse(status: .notModified, headers: ["ETag": tag]) }
        let file = app.workspace.collageThumbnailFile(key: key)
        if !FileManager.default.fileExists(atPath: file.path) {
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try app.thumbnails.run { () throws(HTTPError) in
                guard !FileManager.default.fileExists(atPath: file.path) else { return }
                try render(
                    stored.collage, app: app, request: request,
                    options: RenderOptions(size: .longSide(480), format: .jpeg, quality: 80), to: file)
            }
            app.workspace.removeCollageThumbnails(of: stored.collage.id, before: stored.version)
        }
        return try APIRoutes.fileResponse(file, type: "image/jpeg", tag: tag, immutable: false)
    }

    /// The page draws stickers and texts with these pixels, so what it shows is the export's.
    static func drawnItemImage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        let id = request.parameter("item")
        guard var item = stored.collage.item(id) else {
            throw HTTPError(.notFound, "collage \(stored.collage.id) has no item \"\(id.prefix(40))\"")
        }
        if let filter = request.query["filter"] {
            guard case .photo = item.content else {
                throw HTTPError(.unprocessable, "filter: item \"\(id.prefix(40))\" is not a photo")
            }
            let choice = filter == "none" ? nil : FilterChoice(id: filter)
            if let problem = choice?.problem { throw HTTPError(.unprocessable, "filter: \(problem)") }
            // The tray shows the filter on the photo's own pixels: unmirrored, square, unframed.
            item.look.filter = choice
            item.look.shape = .rectangle
            item.look.border = nil
            item.look.shadow = nil
            item.look.flipsHorizontally = false
            item.look.flipsVertically = false
        }
        if let outline = request.query["outline"] {
            guard case .sticker = item.content else {
                throw HTTPError(.unprocessable, "outline: item \"\(id.prefix(40))\" is not a sticker")
            }
            // The outline slider shows the sticker as the renderer draws it at the width it is
            // moving through, its effect and shadow with it.
            guard let width = Double(decimal: outline), Limits.itemOutline.contains(width) else {
                throw HTTPError(
                    .unprocessable,
                    "outline: expected a width in points \(Limits.describe(Limits.itemOutline)), got \"\(outline.prefix(40))\""
                )
            }
            // A sticker with no style yet gets none but the outline, as the slider saves it.
            var style = item.stickerStyle ?? StickerStyle(outlineWidth: 0, shadow: false)
            style.outlineWidth = width
            item.stickerStyle = style
        }
        let scale = try drawingScale(request)
        let file = ScratchSpace.file("drawn")
        defer { try? FileManager.default.removeItem(at: file) }
        let drawn = try app.thumbnails.run { () throws(HTTPError) -> DrawnItem in
            try APIRoutes.kit { () throws(Failure) in
                try app.workspace.drawItem(
                    item, scale: scale,
                    cornerRadius: request.query["filter"] == nil ? stored.collage.style.cornerRadius : 0,
                    to: file)
            }
        }
        guard let data = try? Data(contentsOf: file) else {
            throw HTTPError(.internalError, "the drawn item went missing")
        }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "image/png", "Cache-Control": "private, max-age=3600",
                "X-Collage-Offset": "\(drawn.offsetX),\(drawn.offsetY)", "X-Collage-Scale": "\(drawn.scale)",
            ], body: data)
    }

    static func autoAdjustments(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        let id = request.parameter("item")
        guard let item = stored.collage.item(id) else {
            throw HTTPError(.notFound, "collage \(stored.collage.id) has no item \"\(id.prefix(40))\"")
        }
        let adjustments = try app.thumbnails.run { () throws(HTTPError) -> Adjustments in
            try APIRoutes.kit { () throws(Failure) in try app.workspace.autoEnhancedAdjustments(for: item) }
        }
        return .json(.object(["adjustments": CollageDocument.jsonValue(of: adjustments)]))
    }

    /// A drawing's `?scale=` (default 1), checked before the request queues for a turn to draw.
    static func drawingScale(_ request: HTTPRequest) throws(HTTPError) -> Double {
        let text = request.query["scale"] ?? "1"
        guard let scale = Double(decimal: text), Limits.exportScale.contains(scale) else {
            throw HTTPError(
                .unprocessable,
                "scale: expected a number of pixels per point \(Limits.describe(Limits.exportScale)), got \"\(text.prefix(40))\""
            )
        }
        return scale
    }

    static func drawnBackground(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        let scale = try drawingScale(request)
        let file = ScratchSpace.file("background")
        defer { try? FileManager.default.removeItem(at: file) }
        let drawnScale = try app.thumbnails.run { () throws(HTTPError) -> Double in
            try APIRoutes.kit { () throws(Failure) in
                try app.workspace.drawBackground(of: stored.collage, scale: scale, to: file)
            }
        }
        guard let data = try? Data(contentsOf: file) else {
            throw HTTPError(.internalError, "the drawn background went missing")
        }
        return HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "image/png", "Cache-Control": "private, max-age=3600",
                "X-Collage-Scale": "\(drawnScale)",
            ], body: data)
    }

    static func export(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        let options = try exportOptions(request.query)
        let file = ScratchSpace.file("export")
        let result: RenderResult
        do throws(HTTPError) {
            result = try app.exports.run { () throws(HTTPError) in
                try render(stored.collage, app: app, request: request, options: options, to: file)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        let format = options.format
        // Sent from disk: a poster of hundreds of megabytes is never held in memory whole.
        return HTTPResponse(
            headers: [
                "Content-Type": APIRoutes.mimeType(format),
                "Content-Disposition": contentDisposition(title: stored.collage.title, format: format),
                "X-Image-Width": "\(result.width)", "X-Image-Height": "\(result.height)",
            ], file: BodyFile(file, isTemporary: true))
    }

    static func exportVideo(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        var values: [String: String] = [:]
        for name in AnimationExportOptions.names { values[name] = request.query[name] }
        if values["format"] == nil { values["format"] = "mp4" }
        let options = try APIRoutes.kit { () throws(Failure) in try AnimationExportOptions.parse(values) }
        let file = ScratchSpace.file("video")
        let result: AnimationResult
        do throws(HTTPError) {
            result = try app.exports.run { () throws(HTTPError) in
                // A person who closes the page stops the frames: the render waits for nobody.
                let cancellation = RenderCancellation()
                if request.isClientGone() { throw APIRoutes.clientGone }
                let watch = ClientWatch(request.isClientGone) { cancellation.cancel() }
                defer { watch.stop() }
                do throws(Failure) {
                    return try app.workspace.animate(
                        stored.collage, options: options, to: file, cancellation: cancellation)
                } catch {
                    if error.kind == .cancelled { throw APIRoutes.clientGone }
                    throw error.httpError
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        let types: [AnimationFormat: String] = [
            .mp4: "video/mp4", .webm: "video/webm", .webp: "image/webp", .gif: "image/gif", .apng: "image/apng",
        ]
        let disposition = contentDisposition(title: stored.collage.title, fileExtension: options.format.fileExtension)
        return HTTPResponse(
            headers: [
                "Content-Type": types[options.format] ?? "application/octet-stream",
                "Content-Disposition": disposition,
                "X-Image-Width": "\(result.width)", "X-Image-Height": "\(result.height)",
                "X-Frames": "\(result.frames)",
            ], file: BodyFile(file, isTemporary: true))
    }

    /// `attachment` named after the title: a plain ASCII `filename` (accents folded) for old
    /// clients, and the title itself, UTF-8 and percent-encoded, as `filename*` (RFC 6266), so
    /// "Été à Paris" downloads as "Été à Paris.jpg" and header bytes stay ASCII.
    static func contentDisposition(title: String, format: OutputFormat) -> String {
        contentDisposition(title: title, fileExtension: format == .jpeg ? "jpg" : format.rawValue)
    }

    /// As ``contentDisposition(title:format:)``, for a file of any extension (an animation's, a pack's zip).
    static func contentDisposition(title: String, fileExtension: String) -> String {
        let suffix = "." + fileExtension
        let name = String(title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }.prefix(120))
            .trimmingCharacters(in: .whitespaces)
        let fallback = name.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
            .unicodeScalars.filter { $0.isASCII }.map(String.init).joined()
            .trimmingCharacters(in: .whitespaces)
        let plain = (fallback.isEmpty ? "collage" : fallback) + suffix
        guard !name.isEmpty, name.unicodeScalars.contains(where: { !$0.isASCII }) else {
            return "attachment; filename=\"\(plain)\""
        }
        var allowed = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        let encoded = (name + suffix).addingPercentEncoding(withAllowedCharacters: allowed) ?? plain
        return "attachment; filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"
    }

    /// The export's query parameters, described with their ranges.
    static let exportQuery: [Field] = [
        .string("format", choices: OutputFormat.allCases.map(\.rawValue), "the encoding (default jpeg)"),
        .number("scale", Limits.exportScale, "pixels per canvas point (default 3)"),
        .integer("size", 1...Limits.maximumOutputSide, "the longer side in pixels, instead of scale"),
        .string("print", "a print size such as 6x4in@300, instead of scale"),
        .integer("quality", Limits.quality, "encoder quality (default 90)"),
    ]

    /// What the export dialog shows before anything is rendered: the renderer's own arithmetic.
    static func exportSize(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(request.parameter("id")) }
        let options = try exportOptions(request.query)
        let size = try APIRoutes.kit { () throws(Failure) in
            try app.workspace.exportSize(of: stored.collage, options: options)
        }
        var members: [String: JSONValue] = [
            "width": .number(Double(size.width)), "height": .number(Double(size.height)),
        ]
        if let dpi = size.dotsPerInch { members["dpi"] = .number(dpi) }
        // A print of another shape than the collage's: how it will sit on the paper.
        if let fit = size.fit { members["fit"] = .string(fit) }
        return .json(.object(members))
    }

    /// Export options from a query, read by the same parser as the command line's flags.
    static func exportOptions(_ query: [String: String]) throws(HTTPError) -> RenderOptions {
        do {
            return try ExportOptions.parse(query.filter { ExportOptions.names.contains($0.key) })
        } catch {
            throw error.httpError
        }
    }

    /// Renders for a client, stopping when the client hangs up; a collage that cannot be rendered
    /// answers 422 with the reason.
    @discardableResult
    static func render(
        _ collage: Collage, app: CollageApp, request: HTTPRequest, options: RenderOptions, to file: URL
    ) throws(HTTPError) -> RenderResult {
        let cancellation = RenderCancellation()
        if request.isClientGone() { throw APIRoutes.clientGone }
        let watch = ClientWatch(request.isClientGone) { cancellation.cancel() }
        defer { watch.stop() }
        do throws(Failure) {
            return try app.workspace.export(collage, options: options, to: file, cancellation: cancellation)
        } catch {
            if error.kind == .cancelled { throw APIRoutes.clientGone }
            throw error.httpError
        }
    }
}
