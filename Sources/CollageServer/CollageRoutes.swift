import CollageCore
import CollageKit
import Foundation

/// The collage resource: listing, making, reading, changing (edits, smart layout, undo and
/// redo, a whole document), previewing, copying and deleting collages.
enum CollageRoutes {
    static let all: [Route] = [
        Route("GET", "/api/collages", "listCollages", "Collages, most recently changed first", responses: [200: "list"])
        {
            app, _ throws(HTTPError) in try listCollages(app)
        },
        Route(
            "POST", "/api/collages", "createCollage", "Create a collage", body: "{title?, template?, aspect?, photos?}",
            fields: [
                .string("title", "the title (default: the day)"),
                .string("template", "a template id, or auto (default grid2x2)"),
                .string("aspect", "W:H or a preset such as a4 (default 1:1)"),
                // How many is CollageKit's to refuse (422), in the words the command line uses.
                Field("photos", .array(.string(choices: nil), maxItems: nil), "photo ids, in slot order"),
            ],
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
            fields: [.string("title", required: true), versionField(required: false)],
            responses: [200: "{version, collage, media}", 409: "stale version", 404: "no such collage"]
        ) { app, request throws(HTTPError) in try renameCollage(app, request) },
        Route(
            "PUT", "/api/collages/{id}", "replaceCollage", "Replace the whole document at a version (undo and redo)",
            body: "{version, collage}",
            fields: [versionField(), Field("collage", .anyObject, required: true, "the whole document")],
            responses: [
                200: "{version, collage, media}", 402: "it follows a premium layout, and Collage Premium is locked",
                409: "stale version", 422: "invalid document",
            ]
        ) { app, request throws(HTTPError) in try replaceCollage(app, request) },
        Route(
            "DELETE", "/api/collages/{id}", "deleteCollage", "Delete a collage",
            responses: [204: "deleted", 404: "no such collage"]
        ) { app, request throws(HTTPError) in
            try APIRoutes.kit { () throws(Failure) in try app.workspace.delete(request.parameter("id")) }
            return HTTPResponse(status: .noContent)
        },
        Route(
            "POST", "/api/collages/{id}/duplicate", "duplicateCollage", "Copy a collage",
            responses: [201: "the copy", 404: "no such collage"]
        ) { app, request throws(HTTPError) in
            let copy = try APIRoutes.kit { () throws(Failure) in try app.workspace.duplicate(request.parameter("id")) }
            return try DocumentJSON.response(app, copy, status: .created)
        },
        Route(
            "POST", "/api/collages/{id}/edits", "editCollage", "Apply edits at a version",
            body: "{version, edits: [Edit]}",
            fields: [versionField(), editsField],
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
            fields: [
                versionField(),
                .number("seed", 0...Double(Arrangement.maximumSeed), nullable: true, "another seed, another layout"),
                .string("hero", nullable: true, "the item made clearly the largest, or null for none"),
                .number("maximumCrop", 0...0.5, nullable: true, "the most of a photo cropped to fill the canvas"),
                .boolean("keepsOrder", nullable: true, "the photos stay in reading order"),
            ],
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
            fields: [editsField],
            responses: [200: "{version, collage, media, layout}", 404: "no such collage", 422: "an edit was refused"]
        ) { app, request throws(HTTPError) in try previewEdits(app, request) },
        historyRoute(undo: true),
        historyRoute(undo: false),
    ]

    /// The collage version the page last saw, which a change must still be at.
    static func versionField(required: Bool = true) -> Field {
        .integer("version", Limits.version, required: required, "the version the change was made against")
    }

    /// Edits, each an object with an `op` (see the document format).
    static let editsField = Field(
        "edits", .array(.anyObject, maxItems: nil), required: true, "edits, each {op, …}, applied all or nothing")

    static func listCollages(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        let summaries = try APIRoutes.kit { () throws(Failure) in try app.workspace.collages() }
        return .json(
            .array(
                summaries.map { summary in
                    RecordJSON.adding(
                        ["thumbnail": .string("/api/collages/\(summary.id)/thumbnail?v=\(summary.version)")],
                        to: RecordJSON.summary(summary))
                }))
    }

    static func createCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = request.fields
        let stored = try APIRoutes.kit { () throws(Failure) in
            try app.workspace.create(
                NewCollageRequest(
                    title: body.string("title"), template: body.string("template"), aspect: body.string("aspect"),
                    photos: body.strings("photos") ?? []))
        }
        return try DocumentJSON.response(app, stored, status: .created)
    }

    static func getCollage(_ app: CollageApp, _ id: String) throws(HTTPError) -> HTTPResponse {
        let stored = try APIRoutes.kit { () throws(Failure) in try app.workspace.collage(id) }
        return try DocumentJSON.response(app, stored)
    }

    static func renameCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let title = request.fields.string("title") ?? ""
        let version = try request.fields.number("version").map { number throws(HTTPError) in try versionNumber(number) }
        return try applying(app, request.parameter("id")) { () throws(Failure) in
            try EditRequest(edits: .object(["op": .string("rename"), "title": .string(title)]), version: version)
        }
    }

    static func replaceCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let version = try versionNumber(request.fields.number("version"))
        let replacement: Collage
        do {
            replacement = try CollageDocument.decode(request.fields.value("collage") ?? .null)
        } catch {
            throw HTTPError(.unprocessable, error.issues.map { "collage.\($0)" }.joined(separator: "; "))
        }
        let id = request.parameter("id")
        return try APIRoutes.saving(app, id) { () throws(Failure) in
            try app.workspace.replace(id, with: replacement, expectedVersion: version)
        }
    }

    static func applyEdits(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let version = try versionNumber(request.fields.number("version"))
        let edits = request.fields.value("edits") ?? .array([])
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
            fields: [versionField()],
            responses: [
                200: "{version, collage, media, layout, history}",
                409: "stale version: the body carries the current document", 422: "nothing to \(action)",
            ]
        ) { app, request throws(HTTPError) in try travel(app, request, undo: undo) }
    }

    /// Undo or redo at the version the page last saw.
    static func travel(_ app: CollageApp, _ request: HTTPRequest, undo: Bool) throws(HTTPError) -> HTTPResponse {
        let version = try versionNumber(request.fields.number("version"))
        let id = request.parameter("id")
        return try APIRoutes.saving(app, id) { () throws(Failure) in
            try app.workspace.step(id, undo: undo, expectedVersion: version)
        }
    }

    /// A collage version as the page sends it back (its type checked with the body), read by
    /// CollageKit as the command line's is.
    static func versionNumber(_ number: Double?) throws(HTTPError) -> Int {
        guard let number else { throw HTTPError(.badRequest, "version: is required") }
        return try APIRoutes.kit { () throws(Failure) in try EditRequest.version(number) }
    }

    /// Applies the edits a request carries; see ``APIRoutes/saving(_:_:_:)``.
    static func applying(
        _ app: CollageApp, _ id: String, _ edits: () throws(Failure) -> EditRequest
    ) throws(HTTPError) -> HTTPResponse {
        let request = try APIRoutes.kit(edits)
        return try APIRoutes.saving(app, id) { () throws(Failure) in
            try app.workspace.apply(request, to: id)
        }
    }

    /// A smart layout of the collage's photos, at the version the page last saw.
    static func arrangeCollage(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = request.fields
        let version = try versionNumber(body.number("version"))
        // No hero member keeps the collage's hero; `null` takes it away.
        let hero: ArrangeRequest.Hero? =
            body.value("hero") == .null ? .nobody : body.string("hero").map { .item($0) }
        let (seed, maximumCrop, keepsOrder) = (body.number("seed"), body.number("maximumCrop"), body.bool("keepsOrder"))
        let arrange = try APIRoutes.kit { () throws(Failure) in
            try ArrangeRequest(
                seed: seed, hero: hero, maximumCrop: maximumCrop, keepsOrder: keepsOrder, version: version)
        }
        let id = request.parameter("id")
        return try APIRoutes.saving(app, id) { () throws(Failure) in try app.workspace.arrange(arrange, id) }
    }

    /// The collage with the edits applied in memory, answered as a saved document is (with its
    /// resolved layout) but stored nowhere. Premium layouts may be tried this way while locked.
    static func previewEdits(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let edits = request.fields.value("edits") ?? .array([])
        let previewed = try APIRoutes.kit { () throws(Failure) in
            try app.workspace.preview(EditRequest(edits: edits, version: nil), of: request.parameter("id"))
        }
        return try DocumentJSON.response(app, previewed)
    }
}
