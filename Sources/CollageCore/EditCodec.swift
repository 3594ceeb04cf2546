import Foundation

/// The JSON form of edits, for the command line (`collage edit`) and the editor's API.
///
/// One edit is an object with an `op` and its fields, e.g. `{"op": "rotateItem", "id": "a",
/// "degrees": 90}`; several are an array of such objects, applied all or nothing.
/// Fields are named as in ``Edit``; frames, styles, crops and content use the document format.
public enum EditCodec {
    /// Every operation name and the fields it takes, for help text and error messages.
    public static let operations: [(op: String, fields: [String])] = [
        ("addItem", ["id", "content", "frame?"]), ("removeItem", ["id"]), ("duplicateItem", ["id", "newID"]),
        ("moveItem", ["id", "origin"]),
        ("resizeItem", ["id", "frame"]), ("rotateItem", ["id", "degrees"]), ("reorder", ["id", "move"]),
        ("swapContents", ["first", "second"]), ("placeInSlot", ["id", "slot"]),
        ("applyTemplate", ["template"]), ("arrange", ["frames", "arrangement"]), ("setStyle", ["style"]),
        ("setAspect", ["aspect"]), ("setCrop", ["id", "crop"]), ("setStickerStyle", ["id", "style"]),
        ("replaceSticker", ["id", "sticker"]), ("replacePhoto", ["id", "photo"]), ("setLook", ["id", "look"]),
        ("setText", ["id", "text"]),
        ("rename", ["title"]),
    ]

    /// Reads one edit (an object) or several (an array) from JSON text.
    public static func decode(_ data: Data) throws(DocumentError) -> [Edit] {
        try decode(try DocumentError.parse(data))
    }

    /// Reads one edit (an object) or several (an array) from a parsed value.
    public static func decode(_ value: JSONValue) throws(DocumentError) -> [Edit] {
        var reader = JSONReader()
        var edits: [Edit] = []
        if case .array(let elements) = value {
            for (index, element) in elements.enumerated() {
                if let edit = read(element, at: "[\(index)]", with: &reader) { edits.append(edit) }
            }
            if elements.isEmpty { reader.fail("", "expected at least one edit") }
        } else if let edit = read(value, at: "", with: &reader) {
            edits.append(edit)
        }
        guard reader.issues.isEmpty else { throw .invalid(reader.issues) }
        return edits
    }

    /// An edit as JSON.
    public static func jsonValue(of edit: Edit) -> JSONValue {
        var members: [String: JSONValue]
        switch edit {
        case .addItem(let id, let content, let frame):
            members = ["op": "addItem", "id": .string(id), "content": CollageDocument.jsonValue(of: content)]
            if let frame { members["frame"] = CollageDocument.jsonValue(of: frame) }
        case .removeItem(let id): members = ["op": "removeItem", "id": .string(id)]
        case .duplicateItem(let id, let newID):
            members = ["op": "duplicateItem", "id": .string(id), "newID": .string(newID)]
        case .moveItem(let id, let origin):
            members = [
                "op": "moveItem", "id": .string(id),
                "origin": .object(["x": .number(origin.x), "y": .number(origin.y)]),
            ]
        case .resizeItem(let id, let frame):
            members = ["op": "resizeItem", "id": .string(id), "frame": CollageDocument.jsonValue(of: frame)]
        case .rotateItem(let id, let degrees):
            members = ["op": "rotateItem", "id": .string(id), "degrees": .number(degrees)]
        case .reorder(let id, let move): members = ["op": "reorder", "id": .string(id), "move": .string(move.rawValue)]
        case .swapContents(let first, let second):
            members = ["op": "swapContents", "first": .string(first), "second": .string(second)]
        case .placeInSlot(let id, let slot):
            members = ["op": "placeInSlot", "id": .string(id), "slot": .number(Double(slot))]
        case .applyTemplate(let id): members = ["op": "applyTemplate", "template": .string(id)]
        case .arrange(let frames, let arrangement):
            members = [
                "op": "arrange", "frames": .object(frames.mapValues(CollageDocument.jsonValue(of:))),
                "arrangement": CollageDocument.jsonValue(of: arrangement),
            ]
        case .setStyle(let style): members = ["op": "setStyle", "style": CollageDocument.jsonValue(of: style)]
        case .setAspect(let aspect): members = ["op": "setAspect", "aspect": .string(aspect.description)]
        case .setCrop(let id, let crop):
            members = ["op": "setCrop", "id": .string(id), "crop": crop.map(CollageDocument.jsonValue(of:)) ?? .null]
        case .setStickerStyle(let id, let style):
            members = [
                "op": "setStickerStyle", "id": .string(id),
                "style": style.map(CollageDocument.jsonValue(of:)) ?? .null,
            ]
        case .replaceSticker(let id, let sticker):
            members = ["op": "replaceSticker", "id": .string(id), "sticker": .string(sticker)]
        case .replacePhoto(let id, let photo):
            members = ["op": "replacePhoto", "id": .string(id), "photo": .string(photo)]
        case .setLook(let id, let look):
            members = ["op": "setLook", "id": .string(id), "look": CollageDocument.jsonValue(of: look)]
        case .setText(let id, let block):
            members = ["op": "setText", "id": .string(id), "text": CollageDocument.jsonValue(of: block)]
        case .rename(let title): members = ["op": "rename", "title": .string(title)]
        }
        return .object(members)
    }

    private static func read(_ value: JSONValue, at path: String, with reader: inout JSONReader) -> Edit? {
        guard case .object(let members) = value else {
            reader.fail(
                path,
                "expected an edit object such as {\"op\": \"rename\", \"title\": \"…\"}, got \(value.kindDescription)")
            return nil
        }
        let opPath = reader.join(path, "op")
        guard let op = reader.string(members["op"], at: opPath) else { return nil }
        guard let fields = operations.first(where: { $0.op == op })?.fields else {
            reader.fail(
                opPath, "unknown operation \"\(op)\"; expected one of \(operations.map(\.op).joined(separator: ", "))")
            return nil
        }
        let known = ["op"] + fields.map { $0.replacingOccurrences(of: "?", with: "") }
        _ = reader.object(value, at: path, known: known)
        func field(_ name: String) -> String { reader.join(path, name) }
        func id(_ name: String = "id") -> String? { reader.string(members[name], at: field(name), maxLength: 128) }

        switch op {
        case "addItem":
            let itemID = id()
            let content = CollageDocument.readContent(members["content"], at: field("content"), with: &reader)
            var frame: Rect?
            if let value = members["frame"], value != .null {
                frame = CollageDocument.readFrame(value, at: field("frame"), with: &reader)
                if frame == nil { return nil }
            }
            guard let itemID, let content else { return nil }
            return .addItem(id: itemID, content: content, frame: frame)
        case "removeItem":
            return id().map { .removeItem(id: $0) }
        case "duplicateItem":
            let itemID = id()
            let newID = id("newID")
            guard let itemID, let newID else { return nil }
            return .duplicateItem(id: itemID, newID: newID)
        case "moveItem":
            let itemID = id()
            let origin = readPoint(members["origin"], at: field("origin"), with: &reader)
            guard let itemID, let origin else { return nil }
            return .moveItem(id: itemID, origin: origin)
        case "resizeItem":
            let itemID = id()
            let frame = CollageDocument.readFrame(members["frame"], at: field("frame"), with: &reader)
            guard let itemID, let frame else { return nil }
            return .resizeItem(id: itemID, frame: frame)
        case "rotateItem":
            let itemID = id()
            let degrees = reader.number(
                members["degrees"], at: field("degrees"), expected: "a number of degrees", rule: { $0.isFinite })
            guard let itemID, let degrees else { return nil }
            return .rotateItem(id: itemID, degrees: degrees)
        case "reorder":
            let itemID = id()
            let moveText = reader.string(members["move"], at: field("move"))
            guard let itemID, let moveText else { return nil }
            guard let move = ZOrderMove(rawValue: moveText) else {
                reader.fail(
                    field("move"),
                    "expected one of \(ZOrderMove.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(moveText)\""
                )
                return nil
            }
            return .reorder(id: itemID, move: move)
        case "swapContents":
            let first = id("first")
            let second = id("second")
            guard let first, let second else { return nil }
            return .swapContents(first: first, second: second)
        case "placeInSlot":
            let itemID = id()
            let slot = reader.integer(members["slot"], at: field("slot"), in: 0...Limits.maximumItems)
            guard let itemID, let slot else { return nil }
            return .placeInSlot(id: itemID, slot: slot)
        case "applyTemplate":
            return reader.string(members["template"], at: field("template")).map { .applyTemplate(id: $0) }
        case "arrange":
            guard case .object(let frameMembers) = members["frames"] ?? .null else {
                reader.fail(field("frames"), "expected an object of item ids and frames")
                return nil
            }
            var frames: [String: Rect] = [:]
            for (id, value) in frameMembers.sorted(by: { $0.key < $1.key }) {
                guard let frame = CollageDocument.readFrame(value, at: reader.join(field("frames"), id), with: &reader)
                else { continue }
                frames[id] = frame
            }
            let arrangement = CollageDocument.readArrangement(
                members["arrangement"], at: field("arrangement"), with: &reader)
            guard frames.count == frameMembers.count, frameMembers.count <= Limits.maximumItems, let arrangement
            else { return nil }
            return .arrange(frames: frames, arrangement: arrangement)
        case "setStyle":
            guard let value = members["style"] else {
                reader.fail(field("style"), "is required")
                return nil
            }
            return CollageDocument.readStyle(value, at: field("style"), with: &reader).map { .setStyle($0) }
        case "setAspect":
            guard let text = reader.string(members["aspect"], at: field("aspect")) else { return nil }
            guard let aspect = AspectRatio(parsingOrPreset: text) else {
                reader.fail(field("aspect"), "expected W:H such as \"4:5\" or a preset such as \"a4\", got \"\(text)\"")
                return nil
            }
            return .setAspect(aspect)
        case "setCrop":
            let itemID = id()
            guard let value = members["crop"] else {
                reader.fail(field("crop"), "is required (null returns to the automatic crop)")
                return nil
            }
            let crop = value == .null ? nil : CollageDocument.readCrop(value, at: field("crop"), with: &reader)
            guard let itemID, value == .null || crop != nil else { return nil }
            return .setCrop(id: itemID, crop: crop)
        case "setStickerStyle":
            let itemID = id()
            guard let value = members["style"] else {
                reader.fail(field("style"), "is required (null removes the outline and shadow)")
                return nil
            }
            let style =
                value == .null ? nil : CollageDocument.readStickerStyle(value, at: field("style"), with: &reader)
            guard let itemID, value == .null || style != nil else { return nil }
            return .setStickerStyle(id: itemID, style: style)
        case "replaceSticker":
            let itemID = id()
            let sticker = id("sticker")
            guard let itemID, let sticker else { return nil }
            return .replaceSticker(id: itemID, sticker: sticker)
        case "replacePhoto":
            let itemID = id()
            let photo = id("photo")
            guard let itemID, let photo else { return nil }
            return .replacePhoto(id: itemID, photo: photo)
        case "setLook":
            let itemID = id()
            guard let value = members["look"] else {
                reader.fail(
                    field("look"), "is required: e.g. {\"flipHorizontal\": true, \"opacity\": 0.8} ({} is as it is)")
                return nil
            }
            let look = CollageDocument.readLook(value, at: field("look"), with: &reader)
            guard let itemID, let look else { return nil }
            return .setLook(id: itemID, look: look)
        case "setText":
            let itemID = id()
            guard let value = members["text"] else {
                reader.fail(field("text"), "is required: the text's fields, e.g. {\"text\": \"Summer\", \"size\": 48}")
                return nil
            }
            let block = CollageDocument.readTextBlock(value, at: field("text"), with: &reader)
            guard let itemID, let block else { return nil }
            return .setText(id: itemID, text: block)
        default:
            return reader.string(members["title"], at: field("title"), nonEmpty: false, maxLength: 10_000)
                .map { .rename(title: $0) }
        }
    }

    private static func readPoint(_ value: JSONValue?, at path: String, with reader: inout JSONReader) -> Point? {
        guard let members = reader.object(value, at: path, known: ["x", "y"]) else { return nil }
        let x = reader.number(members["x"], at: reader.join(path, "x"), rule: { $0.isFinite })
        let y = reader.number(members["y"], at: reader.join(path, "y"), rule: { $0.isFinite })
        guard let x, let y else { return nil }
        return Point(x: x, y: y)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string value from a literal, so `"op": "rename"` reads naturally in code.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}
