import CollageCore
import CollageKit

/// A collage as the page receives it: `{version, collage, media, layout, history}`.
enum DocumentJSON {
    /// The document with everything the page needs to draw it exactly as the renderer does:
    /// each medium's pixel size and image URLs, the resolved layout, and the history's state.
    static func document(_ app: CollageApp, _ stored: StoredCollage) throws(HTTPError) -> JSONValue {
        let media = app.workspace.media(of: stored.collage, analysing: app.analyser?.isStarted == true)
        var members: [String: JSONValue] = [:]
        for (reference, medium) in media.media {
            var entry: [String: JSONValue] = [
                "width": .number(Double(medium.width)), "height": .number(Double(medium.height)),
            ]
            switch medium.kind {
            case .photo:
                let format = PhotoRoutes.formatQuery(medium.imageFormat)
                entry["preview"] = .string("/api/photos/\(medium.id)/preview\(format)")
                entry["thumbnail"] = .string("/api/photos/\(medium.id)/thumbnail\(format)")
                // The renderer crops photos without a crop around this point; the page must too.
                if let focus = medium.focus {
                    entry["focus"] = .object(["x": .number(focus.x), "y": .number(focus.y)])
                }
                // Found soon in the background: the page asks again to crop it as exports then will.
                if medium.focusPending { entry["focusPending"] = .bool(true) }
            case .sticker:
                let image = "/api/stickers/\(medium.id)/image"
                entry["preview"] = .string(image)
                entry["thumbnail"] = .string(image)
            }
            members[reference] = .object(entry)
        }
        let history = try APIRoutes.kit { () throws(Failure) in try app.workspace.history(of: stored.collage.id) }
        return RecordJSON.adding(
            [
                "media": .object(members), "layout": layout(stored.collage, media: media),
                "history": .object(["canUndo": .bool(history.canUndo), "canRedo": .bool(history.canRedo)]),
            ],
            to: RecordJSON.document(stored))
    }

    /// The document as a response.
    static func response(
        _ app: CollageApp, _ stored: StoredCollage, status: HTTPStatus = .ok
    ) throws(HTTPError) -> HTTPResponse {
        .json(try document(app, stored), status: status)
    }

    /// The collage as the renderer resolves it, for the page to draw rather than compute: the
    /// template's slot frames, and for every item in z-order its frame, rotation, corner radius,
    /// (photos) the rectangle of the photo's pixels that fills the frame, with the pixel size it
    /// was computed for, and (shaped photos) the outline that takes clicks, as flat unit x, y
    /// pairs. The page draws exactly this at rest.
    static func layout(_ collage: Collage, media: CollageMedia) -> JSONValue {
        let slots = collage.template.map { $0.frames(for: collage) } ?? []
        let items = collage.items.enumerated().map { z, item -> JSONValue in
            var members: [String: JSONValue] = [
                "id": .string(item.id), "z": .number(Double(z)),
                "frame": CollageDocument.jsonValue(of: item.frame), "rotation": .number(item.rotation.degrees),
                "cornerRadius": .number(0),
            ]
            if case .photo(let reference) = item.content, let photo = media.media[reference],
                let source = media.photoSource(of: item)
            {
                members["cornerRadius"] = .number(collage.style.cornerRadius)
                members["imageSize"] = .object([
                    "width": .number(Double(photo.width)), "height": .number(Double(photo.height)),
                ])
                members["source"] = CollageDocument.jsonValue(of: source)
            }
            if case .photo = item.content, let outline = item.look.hitOutline(in: item.frame.size) {
                members["outline"] = CollageDocument.flatJSONValue(of: outline)
            }
            return .object(members)
        }
        return .object(["slots": .array(slots.map(CollageDocument.jsonValue(of:))), "items": .array(items)])
    }
}
