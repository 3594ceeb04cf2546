import CollageCore
import CollageKit
import Foundation

/// The photo resource: listing, uploading, and each photo's thumbnail and preview.
enum PhotoRoutes {
    static let all: [Route] = [
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
            "GET", "/api/photos/{id}/thumbnail", "photoThumbnail",
            "A 512 px JPEG, or WebP with alpha for a PNG, WebP, GIF or TIFF (ETag; immutable)",
            responses: [
                200: "image/jpeg, or image/webp for a photo that may be see-through", 304: "unchanged",
                404: "no such photo",
            ]
        ) { app, request throws(HTTPError) in try photoImage(app, request, preview: false) },
        Route(
            "GET", "/api/photos/{id}/preview", "photoPreview",
            "A 2,048 px JPEG, or WebP with alpha for a PNG, WebP, GIF or TIFF (ETag; immutable)",
            responses: [
                200: "image/jpeg, or image/webp for a photo that may be see-through", 304: "unchanged",
                404: "no such photo",
            ]
        ) { app, request throws(HTTPError) in try photoImage(app, request, preview: true) },
    ]

    static func listPhotos(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        let photos = try APIRoutes.kit { () throws(Failure) in try app.workspace.photos() }
        return .json(
            .array(
                photos.map { photo in
                    var json = photoJSON(photo)
                    // Whether a lift answers at once: "ready", "none" (no subject) or "pending".
                    // Never pending when no analyser runs (`serve --no-analyse`): nothing would
                    // get the photo ready, and the tray said it was doing so for as long as the
                    // page stayed open.
                    if let analyser = app.analyser, case .object(var members) = json {
                        let readiness = analyser.readiness(of: photo)
                        guard readiness != .pending || analyser.isStarted else { return json }
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
        let format = formatQuery(Workspace.photoImageFormat(of: photo))
        return [
            "thumbnail": .string("/api/photos/\(photo.id)/thumbnail\(format)"),
            "preview": .string("/api/photos/\(photo.id)/preview\(format)"),
        ]
    }

    /// What a photo image's URL says of its format: nothing for a JPEG, `?format=webp` for a
    /// WebP. The images are cached as immutable: a PNG's preview, a JPEG before, kept its URL, and
    /// a browser would have shown the old white-backed JPEG for a year.
    static func formatQuery(_ format: String) -> String { format == "webp" ? "?format=webp" : "" }

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
        // The previews (2,048 px, three quarters of an import's decoding) are made after the
        // answer, so the page has the photos and their thumbnails sooner.
        let outcomes = try app.imports.run { () throws(HTTPError) in
            app.workspace.importPhotos(named, makingPreviews: false)
        }
        let imported = outcomes.compactMap { outcome -> PhotoRecord? in
            if case .imported(let result) = outcome { return result.photo }
            return nil
        }
        app.makePreviewsSoon(of: imported)
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
        let photo = try APIRoutes.kit { () throws(Failure) in try app.workspace.photo(request.parameter("id")) }
        let format = Workspace.photoImageFormat(of: photo)
        let tag = "\"\(photo.id)-\(Workspace.photoImageSide(preview: preview))-\(format)\""
        if request.headers["if-none-match"] == tag {
            return HTTPResponse(
                status: .notModified, headers: ["ETag": tag, "Cache-Control": APIRoutes.immutableCache])
        }
        let file = try APIRoutes.kit { () throws(Failure) in try app.workspace.photoImage(of: photo, preview: preview) }
        return try APIRoutes.fileResponse(
            file, type: format == "webp" ? "image/webp" : "image/jpeg", tag: tag, immutable: true)
    }
}
