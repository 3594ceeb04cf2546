import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import Foundation
import Stickers
import Synchronization

/// The JSON API. Every handler is a static function of the app and the request.
enum APIRoutes {
    /// Every route: the library's, then the sticker sheets'.
    static let all: [Route] = libraryRoutes + sheetRoutes

    static let libraryRoutes: [Route] = [
        Route("GET", "/api/session", "getSession", "The token state-changing requests carry", responses: [200: "token"])
        {
            app, _ in
            .json(
                .object([
                    "token": .string(app.token), "stickers": .bool(app.model != nil),
                    // The editor's gestures keep to the same bound the edits are checked against.
                    "minimumItemSide": .number(EditRules.minimumItemSide),
                    "minimumVisible": .number(EditRules.minimumVisible),
                    "maximumTextLength": .number(Double(Limits.maximumTextLength)),
                ]))
        },
        Route(
            "GET", "/api/fonts", "listFonts", "The curated fonts of text items, in menu order",
            responses: [200: "fonts"]
        ) { _, _ in
            .json(
                .object([
                    "fonts": .array(
                        TextFont.catalog.map { font in
                            .object([
                                "family": .string(font.family), "kind": .string(font.kind),
                                "cssFallback": .string(font.cssFallback), "licence": .string(font.licence),
                            ])
                        })
                ]))
        },
        Route("GET", "/api/openapi.json", "getOpenAPI", "This document", responses: [200: "OpenAPI 3"]) { app, _ in
            .json(app.openAPIDocument)
        },
        Route("GET", "/api/templates", "listTemplates", "Layouts with their unit slots", responses: [200: "templates"])
        { _, _ in templates() },
        Route(
            "GET", "/api/canvas-presets", "listCanvasPresets", "Canvas shapes and print sizes",
            responses: [200: "presets"]
        ) { _, _ in presets() },
        Route("GET", "/api/collages", "listCollages", "Collages, most recently changed first", responses: [200: "list"])
        {
            app, _ throws(HTTPError) in try listCollages(app)
        },
        Route(
            "POST", "/api/collages", "createCollage", "Create a collage", body: "{title?, template?, aspect?, photos?}",
            schema: Schema.object([
                "title": Schema.string, "template": Schema.string, "aspect": Schema.string,
                "photos": .object(["type": "array", "items": Schema.string]),
            ]),
            responses: [
                201: "the new collage with its version", 402: "a premium layout, and Collage Premium is locked",
                422: "refused (unknown template or photo)",
            ]
        ) { app, request throws(HTTPError) in try createCollage(app, request) },
        Route(
            "GET", "/api/collages/{id}", "getCollage", "A collage document, its version, and its photos' sizes",
            responses: [200: "{version, collage, media}", 404: "no such collage"]
        ) { app, request throws(HTTPError) in try getCollage(app, request.parameter("id")) },
        Route(
            "PATCH", "/api/collages/{id}", "renameCollage", "Rename a collage", body: "{title, version?}",
            schema: Schema.object(
                ["title": Schema.string, "version": Schema.integer(Limits.version)], required: ["title"]),
            responses: [200: "{version, collage, media}", 409: "stale version", 404: "no such collage"]
        ) { app, request throws(HTTPError) in try renameCollage(app, request) },
        Route(
            "PUT", "/api/collages/{id}", "replaceCollage", "Replace the whole document at a version (undo and redo)",
            body: "{version, collage}",
            schema: Schema.object(
                ["version": Schema.integer(Limits.version), "collage": .object(["type": "object"])],
                required: ["version", "collage"]),
            responses: [
                200: "{version, collage, media}", 402: "it follows a premium layout, and Collage Premium is locked",
                409: "stale version", 422: "invalid document",
            ]
        ) { app, request throws(HTTPError) in try replaceCollage(app, request) },
        Route(
            "DELETE", "/api/collages/{id}", "deleteCollage", "Delete a collage",
            responses: [204: "deleted", 404: "no such collage"]
        ) { app, request throws(HTTPError) in
            try library { () throws(LibraryError) in try app.library.deleteCollage(request.parameter("id")) }
            return HTTPResponse(status: .noContent)
        },
        Route(
            "POST", "/api/collages/{id}/duplicate", "duplicateCollage", "Copy a collage",
            responses: [201: "the copy", 404: "no such collage"]
        ) { app, request throws(HTTPError) in
            let copy = try library { () throws(LibraryError) in try app.library.duplicate(request.parameter("id")) }
            return try document(app, copy, status: .created)
        },
        Route(
            "POST", "/api/collages/{id}/edits", "editCollage", "Apply edits at a version",
            body: "{version, edits: [Edit]}",
            schema: Schema.object(
                [
                    "version": Schema.integer(Limits.version),
                    "edits": .object(["type": "array", "items": .object(["type": "object"])]),
                ], required: ["version", "edits"]),
            responses: [
                200: "{version, collage, media}",
                402: "an edit applies a premium layout, and Collage Premium is locked",
                409: "stale version: the body carries the current document", 422: "an edit was refused",
            ]
        ) { app, request throws(HTTPError) in try applyEdits(app, request) },
        Route(
            "POST", "/api/collages/{id}/arrange", "arrangeCollage",
            "Lay the collage's photos out for their own shapes (a smart layout): seed (another seed, another "
                + "layout), hero (an item id, or null for none), maximumCrop (0-0.5), keepsOrder; what is not given "
                + "stays as the collage has it",
            body: "{version, seed?, hero?, maximumCrop?, keepsOrder?}",
            schema: Schema.object(
                [
                    "version": Schema.integer(Limits.version),
                    "seed": Schema.number(0...Double(Arrangement.maximumSeed)),
                    "hero": .object(["type": "string", "nullable": .bool(true)]),
                    "maximumCrop": Schema.number(0...0.5), "keepsOrder": .object(["type": "boolean"]),
                ], required: ["version"]),
            responses: [
                200: "{version, collage, media, layout}", 404: "no such collage",
                409: "stale version: the body carries the current document",
                422: "no photos to lay out, or a hero that is not one of them",
            ]
        ) { app, request throws(HTTPError) in try arrangeCollage(app, request) },
        Route(
            "POST", "/api/collages/{id}/preview", "previewEdits",
            "The collage as edits would leave it, nothing saved (trying a premium layout before unlocking it)",
            body: "{edits: [Edit]}",
            schema: Schema.object(
                ["edits": .object(["type": "array", "items": .object(["type": "object"])])], required: ["edits"]),
            responses: [200: "{version, collage, media, layout}", 404: "no such collage", 422: "an edit was refused"]
        ) { app, request throws(HTTPError) in try previewEdits(app, request) },
        historyRoute(undo: true),
        historyRoute(undo: false),
        Route(
            "GET", "/api/collages/{id}/thumbnail", "collageThumbnail", "A small JPEG of the collage (ETag by version)",
            responses: [200: "image/jpeg", 304: "unchanged"]
        ) { app, request throws(HTTPError) in try collageThumbnail(app, request) },
        Route(
            "GET", "/api/collages/{id}/items/{item}/drawn", "drawnItemImage",
            "A sticker or text item as the renderer draws it (outline, shadow and background, unturned) at "
                + "?scale=pixels per point, as PNG; X-Collage-Offset says where its top-left sits from the frame's, "
                + "in its pixels",
            query: [
                Schema.query("scale", Schema.number(Limits.exportScale), "pixels per canvas point (default 1)"),
                Schema.query("v", Schema.string, "any text; the page names the document version, so caches refresh"),
            ],
            expensive: true,
            responses: [200: "image/png", 404: "no such collage or item", 422: "a photo, or a bad scale"]
        ) { app, request throws(HTTPError) in try drawnItemImage(app, request) },
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
            "GET", "/api/collages/{id}/export-size", "exportSize",
            "The pixel size an export with these options would have (the same options as export), without rendering",
            query: exportQuery, responses: [200: "{width, height, dpi?}", 422: "bad options", 404: "no such collage"]
        ) { app, request throws(HTTPError) in try exportSize(app, request) },
        Route(
            "GET", "/api/licence", "getLicence", "Whether Collage Premium is unlocked on this machine, and for whom",
            responses: [200: "{unlocked, licence?, problem?, premiumLayouts}"]
        ) { app, _ in licenceResponse(app) },
        Route(
            "POST", "/api/licence", "addLicence", "Unlock Collage Premium with a licence key (kept for this user)",
            body: "{key}", schema: Schema.object(["key": Schema.string], required: ["key"]),
            responses: [200: "{unlocked, licence, premiumLayouts}", 422: "the key was refused; nothing changed"]
        ) { app, request throws(HTTPError) in try addLicence(app, request) },
        Route(
            "DELETE", "/api/licence", "removeLicence", "Remove this user's licence (premium layouts lock again)",
            responses: [200: "{unlocked: false, premiumLayouts}"]
        ) { app, _ throws(HTTPError) in try removeLicence(app) },
        Route("GET", "/api/photos", "listPhotos", "Photos in the library", responses: [200: "list"]) {
            app, _ throws(HTTPError) in try listPhotos(app)
        },
        Route(
            "POST", "/api/photos", "uploadPhotos", "Upload photos (several files per request)", body: "multipart",
            responses: [
                201: "{photos, errors}", 413: "over the upload limit", 415: "not multipart",
                503: "too many uploads waiting to be imported (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try upload(app, request) },
        Route(
            "GET", "/api/photos/{id}/thumbnail", "photoThumbnail", "A 512 px JPEG (ETag; immutable)",
            responses: [200: "image/jpeg", 304: "unchanged", 404: "no such photo"]
        ) { app, request throws(HTTPError) in try photoImage(app, request, preview: false) },
        Route(
            "GET", "/api/photos/{id}/preview", "photoPreview", "A 2,048 px JPEG (ETag; immutable)",
            responses: [200: "image/jpeg", 304: "unchanged", 404: "no such photo"]
        ) { app, request throws(HTTPError) in try photoImage(app, request, preview: true) },
        Route(
            "POST", "/api/photos/{id}/stickers", "liftSticker",
            "Lift a sticker: all subjects, or the one at {at: {x, y}} (unit coordinates of the photo)",
            body: "{at?: {x, y}, instance?, outline?, shadow?}",
            schema: Schema.object([
                "at": Schema.object(
                    ["x": Schema.number(0...1), "y": Schema.number(0...1)], required: ["x", "y"]),
                "instance": Schema.integer(Limits.stickerInstance), "outline": Schema.number(Limits.stickerOutline),
                "shadow": .object(["type": "boolean"]),
            ]),
            responses: [201: "{id, width, height, image}", 422: "no subject (there, or at all)", 503: "no model"]
        ) { app, request throws(HTTPError) in try liftSticker(app, request) },
        Route(
            "GET", "/api/stickers/{id}/image", "stickerImage", "A sticker's PNG (immutable)",
            responses: [200: "image/png", 304: "unchanged", 404: "no such sticker"]
        ) { app, request throws(HTTPError) in try stickerImage(app, request) },
    ]

    // MARK: - Collages

    static func templates() -> HTTPResponse {
        .json(
            .array(
                Template.catalog.map { template in
                    .object([
                        "id": .string(template.id), "name": .string(template.name), "symbol": .string(template.symbol),
                        "premium": .bool(template.isPremium), "slots": .number(Double(template.slotCount)),
                        "unitSlots": .array(template.slots.map { CollageDocument.jsonValue(of: $0) }),
                    ])
                }))
    }

    static func presets() -> HTTPResponse {
        .json(
            .array(
                CanvasPreset.all.map { preset in
                    var members: [String: JSONValue] = [
                        "id": .string(preset.id), "name": .string(preset.name),
                        "aspect": .string(preset.aspect.description),
                        "canvas": .object([
                            "width": .number(preset.canvasSize.width), "height": .number(preset.canvasSize.height),
                        ]),
                    ]
                    if let inches = preset.printInches {
                        members["inches"] = .object(["width": .number(inches.width), "height": .number(inches.height)])
                    }
                    return .object(members)
                }))
    }

    static func listCollages(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        let summaries = try library { () throws(LibraryError) in try app.library.collages() }
        return .json(
            .array(
                summaries.map { summary in
                    RecordJSON.adding(
                        ["thumbnail": .string("/api/collages/\(summary.id)/thumbnail?v=\(summary.version)")],
                        to: RecordJSON.summary(summary))
                }))
    }

    static func createCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = try request.json()
        func text(_ name: String) throws(HTTPError) -> String? {
            guard let value = body.member(name) else { return nil }
            guard let text = value.stringValue else { throw HTTPError(.badRequest, "\(name): expected a string") }
            return text
        }
        var photos: [String] = []
        if let value = body.member("photos") {
            guard case .array(let values) = value, values.allSatisfy({ $0.stringValue != nil }) else {
                throw HTTPError(.badRequest, "photos: expected an array of photo ids")
            }
            photos = values.compactMap(\.stringValue)
        }
        let title = try text("title")
        let template = try text("template")
        let aspect = try text("aspect")
        let stored = try kit { () throws(Failure) in
            try NewCollageRequest(title: title, template: template, aspect: aspect, photos: photos).create(
                in: app.library, access: app.access)
        }
        return try document(app, stored, status: .created)
    }

    static func getCollage(_ app: CollageApp, _ id: String) throws(HTTPError) -> HTTPResponse {
        let stored = try library { () throws(LibraryError) in try app.library.collage(id) }
        return try document(app, stored)
    }

    static func renameCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = try request.json()
        guard let title = body.member("title")?.stringValue else {
            throw HTTPError(.badRequest, "title: expected a string")
        }
        let version = try body.member("version").map { value throws(HTTPError) in try versionNumber(value) }
        return try applying(app, request.parameter("id")) { () throws(Failure) in
            try EditRequest(edits: .object(["op": .string("rename"), "title": .string(title)]), version: version)
        }
    }

    static func replaceCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = try request.json()
        let version = try versionNumber(body.member("version"))
        guard let value = body.member("collage") else { throw HTTPError(.badRequest, "collage: is required") }
        let replacement: Collage
        do {
            replacement = try CollageDocument.decode(value)
        } catch {
            throw HTTPError(.unprocessable, error.issues.map { "collage.\($0)" }.joined(separator: "; "))
        }
        let id = request.parameter("id")
        return try saving(app, id) { () throws(Failure) in
            let access = app.access
            if !access.isUnlocked {
                let current: Collage
                do throws(LibraryError) {
                    current = try app.library.collage(id).collage
                } catch {
                    throw error.failure
                }
                try access.check(replacing: current, with: replacement)
            }
            do throws(LibraryError) {
                return try app.library.replace(id, with: replacement, expectedVersion: version)
            } catch {
                throw error.failure
            }
        }
    }

    static func applyEdits(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = try request.json()
        let version = try versionNumber(body.member("version"))
        guard let edits = body.member("edits") else { throw HTTPError(.badRequest, "edits: is required") }
        return try applying(app, request.parameter("id")) { () throws(Failure) in
            try EditRequest(edits: edits, version: version)
        }
    }

    /// `POST …/undo` or `…/redo`: a step through the collage's history in the library.
    static func historyRoute(undo: Bool) -> Route {
        let action = undo ? "undo" : "redo"
        return Route(
            "POST", "/api/collages/{id}/\(action)", "\(action)Collage",
            undo
                ? "Bring back the collage as it was before its last change (the library keeps the history)"
                : "Bring back the change the last undo took away",
            body: "{version}",
            schema: Schema.object(["version": Schema.integer(Limits.version)], required: ["version"]),
            responses: [
                200: "{version, collage, media, layout, history}",
                409: "stale version: the body carries the current document", 422: "nothing to \(action)",
            ]
        ) { app, request throws(HTTPError) in try travel(app, request, undo: undo) }
    }

    /// Undo or redo at the version the page last saw.
    static func travel(_ app: CollageApp, _ request: HTTPRequest, undo: Bool) throws(HTTPError) -> HTTPResponse {
        let version = try versionNumber(request.json().member("version"))
        let id = request.parameter("id")
        return try saving(app, id) { () throws(Failure) in
            do throws(LibraryError) {
                return undo
                    ? try app.library.undo(id, expectedVersion: version)
                    : try app.library.redo(id, expectedVersion: version)
            } catch {
                throw error.failure
            }
        }
    }

    /// A collage version as the page sends it back, read by CollageKit as the command line's is.
    static func versionNumber(_ value: JSONValue?) throws(HTTPError) -> Int {
        guard let value else { throw HTTPError(.badRequest, "version: is required") }
        guard let number = value.numberValue else {
            throw HTTPError(.badRequest, "version: expected the whole number the page last saw")
        }
        return try kit { () throws(Failure) in try EditRequest.version(number) }
    }

    /// Applies the edits a request carries; see ``saving(_:_:_:)``.
    static func applying(
        _ app: CollageApp, _ id: String, _ edits: () throws(Failure) -> EditRequest
    ) throws(HTTPError) -> HTTPResponse {
        let request = try kit(edits)
        return try saving(app, id) { () throws(Failure) in
            try request.apply(to: id, in: app.library, access: app.access)
        }
    }

    /// A smart layout of the collage's photos, at the version the page last saw.
    static func arrangeCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = try request.json()
        let version = try versionNumber(body.member("version"))
        func number(_ name: String) throws(HTTPError) -> Double? {
            guard let value = body.member(name), value != .null else { return nil }
            guard let number = value.numberValue else { throw HTTPError(.badRequest, "\(name): expected a number") }
            return number
        }
        // No hero member keeps the collage's hero; `null` takes it away.
        var hero: ArrangeRequest.Hero?
        if let value = body.member("hero") {
            if value == .null {
                hero = .nobody
            } else {
                guard let id = value.stringValue else {
                    throw HTTPError(.badRequest, "hero: expected an item id, or null for none")
                }
                hero = .item(id)
            }
        }
        var keepsOrder: Bool?
        if let value = body.member("keepsOrder"), value != .null {
            guard case .bool(let flag) = value else {
                throw HTTPError(.badRequest, "keepsOrder: expected true or false")
            }
            keepsOrder = flag
        }
        let seed = try number("seed")
        let maximumCrop = try number("maximumCrop")
        let arrange = try kit { () throws(Failure) in
            try ArrangeRequest(
                seed: seed, hero: hero, maximumCrop: maximumCrop, keepsOrder: keepsOrder, version: version)
        }
        let id = request.parameter("id")
        return try saving(app, id) { () throws(Failure) in try arrange.apply(to: id, in: app.library) }
    }

    /// The collage with the edits applied in memory, answered as a saved document is (with its
    /// resolved layout) but stored nowhere. Premium layouts may be tried this way while locked.
    static func previewEdits(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        guard let edits = try request.json().member("edits") else { throw HTTPError(.badRequest, "edits: is required") }
        let previewed = try kit { () throws(Failure) in
            try EditRequest(edits: edits, version: nil).preview(of: request.parameter("id"), in: app.library)
        }
        return try document(app, previewed)
    }

    // MARK: - Licence

    /// `{unlocked, licence?, problem?, premiumLayouts}`: what the Unlock sheet shows.
    static func licenceJSON(_ state: LicenceState) -> JSONValue {
        var members: [String: JSONValue] = [
            "unlocked": .bool(false),
            "premiumLayouts": .array(Template.catalog.filter(\.isPremium).map { .string($0.id) }),
        ]
        switch state {
        case .none: break
        case .valid(let licence):
            members["unlocked"] = .bool(true)
            members["licence"] = .object([
                "id": .string(licence.id), "licensee": .string(licence.licensee), "issued": .string(licence.issued),
            ])
        case .invalid(let error):
            members["problem"] = .string(error.description)
        }
        return .object(members)
    }

    static func licenceResponse(_ app: CollageApp) -> HTTPResponse { .json(licenceJSON(app.licences.current())) }

    static func addLicence(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        guard let key = try request.json().member("key")?.stringValue else {
            throw HTTPError(.badRequest, "key: expected the licence key as a string")
        }
        do {
            return .json(licenceJSON(.valid(try app.licences.add(key))))
        } catch {
            throw error.httpError
        }
    }

    static func removeLicence(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        do {
            try app.licences.remove()
        } catch {
            throw error.httpError
        }
        return licenceResponse(app)
    }

    /// Runs a use case, its failure becoming the API's answer.
    static func kit<T>(_ body: () throws(Failure) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch {
            throw error.httpError
        }
    }

    /// Runs a versioned change and answers with the new document; a stale version answers 409
    /// carrying the current document, so the page can catch up.
    static func saving(
        _ app: CollageApp, _ id: String, _ change: () throws(Failure) -> StoredCollage
    )
        throws(HTTPError) -> HTTPResponse
    {
        let stored: StoredCollage
        do throws(Failure) {
            stored = try change()
        } catch {
            guard error.kind == .conflict else { throw error.httpError }
            let current = try library { () throws(LibraryError) in try app.library.collage(id) }
            var conflict = error.httpError
            conflict.extra["current"] = try documentJSON(app, current)
            throw conflict
        }
        return try document(app, stored)
    }

    /// `{version, collage, media}`: media maps each reference to its pixel size and image URL, so the
    /// page can crop and draw exactly as the renderer does.
    static func documentJSON(_ app: CollageApp, _ stored: StoredCollage) throws(HTTPError) -> JSONValue {
        var media: [String: JSONValue] = [:]
        var photoCrops: [String: PhotoCrop] = [:]
        for item in stored.collage.items {
            guard let reference = item.content.reference, media[reference] == nil else { continue }
            switch item.content {
            case .photo(let reference):
                guard let photo = try? app.library.photo(reference) else { continue }
                var members: [String: JSONValue] = [
                    "width": .number(Double(photo.width)), "height": .number(Double(photo.height)),
                    "preview": .string("/api/photos/\(photo.id)/preview"),
                    "thumbnail": .string("/api/photos/\(photo.id)/thumbnail"),
                ]
                // The renderer crops photos without a crop around this point; the page must too.
                let source = app.photoSource
                let focus = source.automaticFocus(for: item.content, file: app.library.originalFile(of: photo))
                if let focus { members["focus"] = .object(["x": .number(focus.x), "y": .number(focus.y)]) }
                // Found soon in the background: the page asks again to crop it as exports then will.
                if app.analyser?.isStarted == true, source.focusIsPending(photo) {
                    members["focusPending"] = .bool(true)
                }
                media[reference] = .object(members)
                photoCrops[reference] = PhotoCrop(
                    size: Size(width: Double(photo.width), height: Double(photo.height)), focus: focus)
            case .sticker(let reference):
                guard let sticker = try? app.library.sticker(reference) else { continue }
                media[reference] = .object([
                    "width": .number(Double(sticker.width)), "height": .number(Double(sticker.height)),
                    "preview": .string("/api/stickers/\(sticker.id)/image"),
                    "thumbnail": .string("/api/stickers/\(sticker.id)/image"),
                ])
            case .text:
                continue
            }
        }
        let history = try library { () throws(LibraryError) in try app.library.historyState(of: stored.collage.id) }
        return RecordJSON.adding(
            [
                "media": .object(media), "layout": layoutJSON(stored.collage, photos: photoCrops),
                "history": .object(["canUndo": .bool(history.canUndo), "canRedo": .bool(history.canRedo)]),
            ],
            to: RecordJSON.document(stored))
    }

    /// The collage as the renderer resolves it, for the page to draw rather than compute: the
    /// template's slot frames, and for every item in z-order its frame, rotation, corner radius
    /// and (photos) the rectangle of the photo's pixels that fills the frame, with the pixel
    /// size it was computed for. The page draws exactly this at rest.
    static func layoutJSON(_ collage: Collage, photos: [String: PhotoCrop]) -> JSONValue {
        let slots = collage.template.map { $0.frames(for: collage) } ?? []
        let items = collage.items.enumerated().map { z, item -> JSONValue in
            var members: [String: JSONValue] = [
                "id": .string(item.id), "z": .number(Double(z)),
                "frame": CollageDocument.jsonValue(of: item.frame), "rotation": .number(item.rotation.degrees),
                "cornerRadius": .number(0),
            ]
            if case .photo(let reference) = item.content, let photo = photos[reference] {
                let crop = item.crop ?? photo.focus.map { Crop(focus: $0) } ?? .centered
                members["cornerRadius"] = .number(collage.style.cornerRadius)
                members["imageSize"] = .object([
                    "width": .number(photo.size.width), "height": .number(photo.size.height),
                ])
                members["source"] = CollageDocument.jsonValue(
                    of: CropMath.sourceRect(imageSize: photo.size, frameSize: item.frame.size, crop: crop))
            }
            return .object(members)
        }
        return .object(["slots": .array(slots.map(CollageDocument.jsonValue(of:))), "items": .array(items)])
    }

    /// What resolving a photo item's crop needs: the photo's pixel size and its automatic focus.
    struct PhotoCrop {
        let size: Size
        let focus: Point?
    }

    static func document(
        _ app: CollageApp, _ stored: StoredCollage, status: HTTPStatus = .ok
    ) throws(HTTPError)
        -> HTTPResponse
    {
        .json(try documentJSON(app, stored), status: status)
    }

    static func collageThumbnail(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try library { () throws(LibraryError) in try app.library.collage(request.parameter("id")) }
        // A photo whose subject is still to be found is centred now and cropped around it later,
        // at the same version: the thumbnail is kept under how many are still to be found.
        let source = app.photoSource
        let pending = stored.collage.items.filter { item in
            guard case .photo(let reference) = item.content, let photo = try? app.library.photo(reference) else {
                return false
            }
            return source.focusIsPending(photo)
        }.count
        let key = "\(stored.collage.id)-v\(stored.version)" + (pending > 0 ? "-p\(pending)" : "")
        let tag = "\"\(key)\""
        if request.headers["if-none-match"] == tag { return HTTPResponse(status: .notModified, headers: ["ETag": tag]) }
        let file = app.library.derivedFolder.appendingPathComponent("collage-thumbnails")
            .appendingPathComponent("\(key).jpg")
        if !FileManager.default.fileExists(atPath: file.path) {
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try app.thumbnails.run { () throws(HTTPError) in
                guard !FileManager.default.fileExists(atPath: file.path) else { return }
                try render(
                    stored.collage, app: app, request: request,
                    options: RenderOptions(size: .longSide(480), format: .jpeg, quality: 80), to: file)
            }
        }
        return try fileResponse(file, type: "image/jpeg", tag: tag, immutable: false)
    }

    /// The page draws stickers and texts with these pixels, so what it shows is the export's.
    static func drawnItemImage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try library { () throws(LibraryError) in try app.library.collage(request.parameter("id")) }
        let id = request.parameter("item")
        guard let item = stored.collage.item(id) else {
            throw HTTPError(.notFound, "collage \(stored.collage.id) has no item \"\(id.prefix(40))\"")
        }
        // The renderer checks the range, as it does for an export; only the number is read here.
        let text = request.query["scale"] ?? "1"
        guard let scale = Double(decimal: text) else {
            throw HTTPError(.unprocessable, "scale: expected a number of pixels per point, got \"\(text.prefix(40))\"")
        }
        let file = ScratchSpace.file("drawn")
        defer { try? FileManager.default.removeItem(at: file) }
        let drawn = try app.thumbnails.run { () throws(HTTPError) -> DrawnItem in
            do throws(RenderError) {
                return try CollageRenderer().writeDrawnItem(item, photos: app.photoSource, scale: scale, to: file)
            } catch {
                throw error.failure.httpError
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

    static func export(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try library { () throws(LibraryError) in try app.library.collage(request.parameter("id")) }
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
                "Content-Type": mimeType(format),
                "Content-Disposition": contentDisposition(title: stored.collage.title, format: format),
                "X-Image-Width": "\(result.width)", "X-Image-Height": "\(result.height)",
            ], file: BodyFile(file, isTemporary: true))
    }

    /// `attachment` named after the title: a plain ASCII `filename` (accents folded) for old
    /// clients, and the title itself, UTF-8 and percent-encoded, as `filename*` (RFC 6266), so
    /// "Été à Paris" downloads as "Été à Paris.jpg" and header bytes stay ASCII.
    static func contentDisposition(title: String, format: OutputFormat) -> String {
        let suffix = "." + (format == .jpeg ? "jpg" : format.rawValue)
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
    static let exportQuery: [JSONValue] = [
        Schema.query(
            "format", .object(["type": "string", "enum": .array(OutputFormat.allCases.map { .string($0.rawValue) })]),
            "the encoding (default jpeg)"),
        Schema.query("scale", Schema.number(Limits.exportScale), "pixels per canvas point (default 3)"),
        Schema.query(
            "size", Schema.integer(1...Limits.maximumOutputSide), "the longer side in pixels, instead of scale"),
        Schema.query("print", Schema.string, "a print size such as 6x4in@300, instead of scale"),
        Schema.query("quality", Schema.integer(Limits.quality), "encoder quality (default 90)"),
    ]

    /// What the export dialog shows before anything is rendered: the renderer's own arithmetic.
    static func exportSize(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let stored = try library { () throws(LibraryError) in try app.library.collage(request.parameter("id")) }
        let options = try exportOptions(request.query)
        do throws(RenderError) {
            let size = try CollageRenderer().outputSize(for: stored.collage.canvas, size: options.size)
            var members: [String: JSONValue] = [
                "width": .number(Double(size.width)), "height": .number(Double(size.height)),
            ]
            if let dpi = size.dpi { members["dpi"] = .number(dpi) }
            // A print of another shape than the collage's: how it will sit on the paper.
            if case .print(let print) = options.size, let note = print.fitting(stored.collage.canvas) {
                members["fit"] = .string(note)
            }
            return .json(.object(members))
        } catch {
            throw error.failure.httpError
        }
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
        if request.isClientGone() { throw HTTPError(.badRequest, "the client closed the connection") }
        let watch = ClientWatch(request.isClientGone) { cancellation.cancel() }
        defer { watch.stop() }
        do throws(RenderError) {
            return try CollageRenderer().render(
                collage, photos: app.photoSource, options: options, to: file, cancellation: cancellation)
        } catch {
            if case .cancelled = error { throw HTTPError(.badRequest, "the client closed the connection") }
            // What a person is shown: the reason without paths or libvips' words.
            var failure = error.failure.httpError
            failure.extra["plain"] = .string(error.plainDescription)
            throw failure
        }
    }

    // MARK: - Photos and stickers

    static func listPhotos(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        let photos = try library { () throws(LibraryError) in try app.library.photos() }
        return .json(
            .array(
                photos.map { photo in
                    var json = photoJSON(photo)
                    // Whether a lift answers at once: "ready", "none" (no subject) or "pending".
                    if let readiness = app.analyser?.readiness(of: photo), case .object(var members) = json {
                        members["subject"] = .string(readiness.rawValue)
                        json = .object(members)
                    }
                    return json
                }))
    }

    static func photoJSON(_ photo: PhotoRecord) -> JSONValue {
        RecordJSON.adding(photoLinks(photo), to: RecordJSON.photo(photo))
    }

    /// What the API adds to a photo's record: the URLs of its images.
    static func photoLinks(_ photo: PhotoRecord) -> [String: JSONValue] {
        [
            "thumbnail": .string("/api/photos/\(photo.id)/thumbnail"),
            "preview": .string("/api/photos/\(photo.id)/preview"),
        ]
    }

    static func upload(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let contentType = request.headers["content-type"] ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data"), let body = request.bodyFile else {
            throw HTTPError(.unsupportedMediaType, "upload photos as multipart/form-data (one or more file fields)")
        }
        let folder = ScratchSpace.file("parts")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = try Multipart.files(in: body, contentType: contentType, into: folder)
        guard !files.isEmpty else { throw HTTPError(.badRequest, "the upload holds no files") }
        // Each file is imported under the person's file name, so errors and records name it.
        var named: [URL] = []
        var errors: [JSONValue] = []
        for upload in files {
            let file = folder.appendingPathComponent(UUID().uuidString).appendingPathComponent(upload.fileName)
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: upload.file, to: file)
                named.append(file)
            } catch {
                errors.append(.object(["file": .string(upload.fileName), "message": .string("could not be stored")]))
            }
        }
        var photos: [JSONValue] = []
        // The files are on disk already; decoding them is the expensive part, and takes its turn.
        let outcomes = try app.imports.run { () throws(HTTPError) in PhotoImport.importAll(named, into: app.library) }
        app.analyser?.wake()
        for (file, outcome) in zip(named, outcomes) {
            switch outcome {
            case .imported(let result):
                photos.append(RecordJSON.adding(photoLinks(result.photo), to: RecordJSON.imported(result)))
            case .failed(let failure):
                errors.append(
                    .object([
                        "file": .string(file.lastPathComponent),
                        "message": .string(
                            failure.description.replacingOccurrences(of: file.path, with: file.lastPathComponent)),
                    ]))
            }
        }
        let status: HTTPStatus = photos.isEmpty ? .unprocessable : .created
        return .json(.object(["photos": .array(photos), "errors": .array(errors)]), status: status)
    }

    static func photoImage(_ app: CollageApp, _ request: HTTPRequest, preview: Bool) throws(HTTPError) -> HTTPResponse {
        let photo = try library { () throws(LibraryError) in try app.library.photo(request.parameter("id")) }
        let tag = "\"\(photo.id)-\(preview ? Library.previewSize : Library.thumbnailSize)\""
        if request.headers["if-none-match"] == tag {
            return HTTPResponse(status: .notModified, headers: ["ETag": tag, "Cache-Control": immutableCache])
        }
        let file = try library { () throws(LibraryError) in
            preview ? try app.library.previewFile(of: photo) : try app.library.thumbnailFile(of: photo)
        }
        return try fileResponse(file, type: "image/jpeg", tag: tag, immutable: true)
    }

    static func liftSticker(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = request.body.isEmpty ? JSONValue.object([:]) : try request.json()
        let sticker = try stickerRequest(body)
        guard app.model != nil else {
            throw HTTPError(.unavailable, "the subject model is not installed; run scripts/fetch-model and restart")
        }
        let started = ContinuousClock.now
        let record = try app.lifts.run { () throws(HTTPError) in
            // A lift that waited its turn for a client that has gone is not worth starting.
            if request.isClientGone() { throw HTTPError(.badRequest, "the client closed the connection") }
            do throws(Failure) {
                return try sticker.lift(
                    photo: request.parameter("id"), in: app.library, model: app.model,
                    isCancelled: request.isClientGone)
            } catch {
                if request.isClientGone() { throw HTTPError(.badRequest, "the client closed the connection") }
                throw error.httpError
            }
        }
        var response = HTTPResponse.json(
            RecordJSON.adding(["image": .string("/api/stickers/\(record.id)/image")], to: RecordJSON.sticker(record)),
            status: .created)
        // The lift's own time, waiting for its turn included (browsers' network panels show it;
        // bench/sticker reads it).
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        response.headers["Server-Timing"] = "lift;dur=\(String(format: "%.1f", milliseconds))"
        return response
    }

    /// The body's fields, checked by CollageKit as the command line's flags are; a field of the
    /// wrong JSON type is a malformed request.
    static func stickerRequest(_ body: JSONValue) throws(HTTPError) -> StickerRequest {
        func number(_ name: String) throws(HTTPError) -> Double? {
            guard let value = body.member(name) else { return nil }
            guard let number = value.numberValue else { throw HTTPError(.badRequest, "\(name): expected a number") }
            return number
        }
        var point: StickerRequest.Point?
        if let at = body.member("at") {
            guard let x = at.member("x")?.numberValue, let y = at.member("y")?.numberValue else {
                throw HTTPError(.badRequest, "at: expected {x, y} in unit coordinates of the photo (0 to 1)")
            }
            point = .unit(x: x, y: y)
        }
        var shadow = false
        if let value = body.member("shadow") {
            guard case .bool(let flag) = value else { throw HTTPError(.badRequest, "shadow: expected true or false") }
            shadow = flag
        }
        let instance = try number("instance")
        let outline = try number("outline")
        var effect: String?
        if let value = body.member("effect"), value != .null {
            guard case .string(let name) = value else {
                throw HTTPError(.badRequest, "effect: expected comic, puffy or shiny")
            }
            effect = name
        }
        do throws(Failure) {
            return try StickerRequest(
                instance: instance, point: point, outline: outline, shadow: shadow, effect: effect)
        } catch {
            throw error.httpError
        }
    }

    static func stickerImage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let sticker = try library { () throws(LibraryError) in try app.library.sticker(request.parameter("id")) }
        let tag = "\"\(sticker.id)\""
        if request.headers["if-none-match"] == tag {
            return HTTPResponse(status: .notModified, headers: ["ETag": tag, "Cache-Control": immutableCache])
        }
        return try fileResponse(app.library.stickerFile(of: sticker), type: "image/png", tag: tag, immutable: true)
    }

    // MARK: - Helpers

    static let immutableCache = "private, max-age=31536000, immutable"

    static func fileResponse(_ file: URL, type: String, tag: String, immutable: Bool) throws(HTTPError) -> HTTPResponse
    {
        guard let data = try? Data(contentsOf: file) else {
            throw HTTPError(.notFound, "the image file is missing on disk")
        }
        return HTTPResponse(
            headers: [
                "Content-Type": type, "ETag": tag, "Cache-Control": immutable ? immutableCache : "private, no-cache",
            ], body: data)
    }

    static func mimeType(_ format: OutputFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}

extension JSONValue {
    func member(_ key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var numberValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }
}

/// Watches for a client hanging up while its request is worked on, and calls `gone` once if it does.
final class ClientWatch: Sendable {
    private let watching = Mutex(true)

    init(_ isClientGone: @escaping @Sendable () -> Bool, gone: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            while watching.withLock({ $0 }) {
                if isClientGone() {
                    gone()
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Stops watching; the request is answered.
    func stop() { watching.withLock { $0 = false } }
}
