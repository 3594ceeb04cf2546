import CollageCore
import CollageRender
import Foundation

/// A sticker in the library: a subject lifted out of one of its photos.
public struct StickerRecord: Hashable, Sendable {
    /// Derived from the photo, the model and the parameters, so the same request is the same sticker.
    public let id: String
    /// The photo it was lifted from.
    public let photoID: String
    /// Which subjects: `all`, `instance:N` or `point:X,Y`.
    public let selection: String
    /// White outline width in pixels.
    public let outlineWidth: Double
    /// Whether it has a shadow.
    public let shadow: Bool
    /// Its size in pixels.
    public let width: Int
    /// Its size in pixels.
    public let height: Int
    /// When it was made.
    public let createdAt: Date
    /// Where its top-left corner lies in the photo, in the photo's pixels, when that was recorded
    /// (stickers lifted by older versions, and prepared lifts, did not record it).
    public var photoOrigin: PixelPoint?
    /// The effect drawn into its pixels (`comic`, …), or nil when they are the photo's own.
    /// Stickers lifted with an effect before schema v12 did not record it (it is only inside
    /// their id's hash) and read as nil.
    public var drawnEffect: String? = nil
}

/// A pixel position: whole numbers, from the top-left corner.
public struct PixelPoint: Hashable, Sendable {
    /// Pixels to the right.
    public var x: Int
    /// Pixels down.
    public var y: Int

    /// A position.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// Where a sticker can lie in its photo: far past any photo's side (an outline may reach past
    /// its top-left), and small enough that no arithmetic on it overflows.
    public static let plausible: ClosedRange<Int> = -(1 << 20)...(1 << 20)

    /// A position read from storage (a row, a file), or `nil` when either number is implausible.
    public init?(plausibleX x: Int, y: Int) {
        guard Self.plausible.contains(x), Self.plausible.contains(y) else { return nil }
        self.init(x: x, y: y)
    }
}

/// What the library remembers about where a photo's subject is, for one model.
public enum CachedFocus: Hashable, Sendable {
    /// The subject's centre, in unit coordinates of the photo.
    case subject(Point)
    /// The model found no subject.
    case noSubject
}

extension Library {
    /// The sticker with `id`, or with the only id starting with `id` (at least 6 characters): the
    /// lists show ids 12 characters long, and a sheet or a pack named by one found nothing.
    public func sticker(_ id: String) throws(LibraryError) -> StickerRecord {
        if let record = try stickers(where: "id = ?", [id]).first { return record }
        guard id.count >= 6, id.allSatisfy(\.isHexDigit) else { throw .unknownSticker(id) }
        let matches = try stickers(where: "id LIKE ?", [id.lowercased() + "%"])
        guard matches.count == 1, let only = matches.first else {
            throw matches.isEmpty
                ? .unknownSticker(id) : .invalid("\"\(id)\" matches more than one sticker; give more of its id")
        }
        return only
    }

    /// Every sticker, newest first.
    public func stickers() throws(LibraryError) -> [StickerRecord] { try stickers(where: "1", []) }

    /// Records where a sticker lies in its photo, once found (a prepared lift's sticker recorded none).
    public func recordStickerOrigin(_ origin: PixelPoint, of id: String) throws(LibraryError) {
        guard PixelPoint(plausibleX: origin.x, y: origin.y) != nil else { return }
        try database.write { connection throws(LibraryError) in
            try connection.run(
                "UPDATE stickers SET origin_x = ?, origin_y = ? WHERE id = ?", [origin.x, origin.y, id])
        }
    }

    /// Where a sticker's PNG lives.
    public func stickerFile(of sticker: StickerRecord) -> URL {
        stickerFile(id: sticker.id)
    }

    /// Stores a sticker image and its record (replacing one with the same id).
    /// - Parameters:
    ///   - origin: where the sticker's top-left corner lies in the photo, when known.
    ///   - drawnEffect: the effect drawn into `image` (its name), or nil when it is the photo's pixels.
    public func saveSticker(
        id: String, photoID: String, selection: String, outlineWidth: Double, shadow: Bool, image: Bitmap,
        origin: PixelPoint? = nil, drawnEffect: String? = nil
    ) throws(LibraryError) -> StickerRecord {
        _ = try photo(photoID)
        let staging = try makeStagingFolder()
        defer { try? FileManager.default.removeItem(at: staging) }
        let made = staging.appendingPathComponent("sticker.png")
        do {
            try image.write(to: made, format: .png)
        } catch {
            throw .image(error.description)
        }
        return try storeSticker(
            made, id: id, photoID: photoID, selection: selection, outlineWidth: outlineWidth, shadow: shadow,
            width: image.width, height: image.height, origin: origin, drawnEffect: drawnEffect)
    }

    /// Stores a sticker whose PNG was made ahead (a prepared lift, see `SubjectModel.analyse`),
    /// `file` (`width` × `height` pixels), and its record (replacing one with the same id). The
    /// file is linked rather than copied where it can be: stickers never change once made.
    /// `origin` and `drawnEffect` are as for the other `saveSticker`.
    public func saveSticker(
        id: String, photoID: String, selection: String, outlineWidth: Double, shadow: Bool, copying file: URL,
        width: Int, height: Int, origin: PixelPoint? = nil, drawnEffect: String? = nil
    ) throws(LibraryError) -> StickerRecord {
        _ = try photo(photoID)
        let staging = try makeStagingFolder()
        defer { try? FileManager.default.removeItem(at: staging) }
        let made = staging.appendingPathComponent("sticker.png")
        do {
            if (try? FileManager.default.linkItem(at: file, to: made)) == nil {
                try FileManager.default.copyItem(at: file, to: made)
            }
        } catch {
            throw .unwritable(path: made.path, reason: Self.reason(error))
        }
        return try storeSticker(
            made, id: id, photoID: photoID, selection: selection, outlineWidth: outlineWidth, shadow: shadow,
            width: width, height: height, origin: origin, drawnEffect: drawnEffect)
    }

    private func storeSticker(
        _ made: URL, id: String, photoID: String, selection: String, outlineWidth: Double, shadow: Bool, width: Int,
        height: Int, origin: PixelPoint? = nil, drawnEffect: String? = nil
    ) throws(LibraryError) -> StickerRecord {
        let file = stickerFile(id: id)
        let record = StickerRecord(
            id: id, photoID: photoID, selection: selection, outlineWidth: outlineWidth, shadow: shadow,
            width: width, height: height, createdAt: now(), photoOrigin: origin, drawnEffect: drawnEffect)
        try database.write { connection throws(LibraryError) in
            // Placed with its row, in one transaction, so a cleanup never sees one without the other.
            let photoStillThere = try !connection.query("SELECT 1 FROM photos WHERE id = ?", [photoID]) {
                _ throws(LibraryError) in 1
            }
            .isEmpty
            guard photoStillThere else { throw LibraryError.unknownPhoto(photoID) }
            try place(made, at: file)
            try connection.run(
                """
                INSERT OR REPLACE INTO stickers
                    (id, photo_id, selection, outline, shadow, width, height, created_at, origin_x, origin_y, effect)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    id, photoID, selection, outlineWidth, shadow, width, height,
                    record.createdAt.timeIntervalSince1970, origin?.x, origin?.y, drawnEffect,
                ])
        }
        return record
    }

    /// Where a cached mask for a photo and a key (model and parameters) lives; it may not exist yet.
    public func maskCacheFile(photoID: String, key: String) -> URL {
        maskCacheFolder.appendingPathComponent(String(photoID.prefix(2))).appendingPathComponent(
            "\(photoID)-\(key).png")
    }

    /// The folder under which every ``maskCacheFile(photoID:key:)`` lies.
    public var maskCacheFolder: URL { derivedFolder.appendingPathComponent("masks") }

    /// Whether a photo's subjects were found ahead of a lift: `true` when its refined mask is
    /// cached under `maskKey`, `false` when the model found none (kept under `focusKey`), `nil`
    /// when it was not analysed yet. The keys are the current model's and rules' (see the
    /// Stickers module's `SubjectModel`): what an earlier rule cached is not an answer.
    public func subjectsFound(photoID: String, maskKey: String, focusKey: String) -> Bool? {
        // A refined mask's key ends in the rule's key, then g for a nearly colourless photo and a
        // for one with transparency (see `cachedMask`): a grey photo, found "-rg", stayed pending
        // for good.
        let refined = ["", "g", "a", "ga"].contains { marks in
            FileManager.default.fileExists(atPath: maskCacheFile(photoID: photoID, key: maskKey + marks).path)
        }
        if refined { return true }
        if case .noSubject? = try? cachedFocus(photoID: photoID, model: focusKey) { return false }
        return nil
    }

    /// The cached subject focus of a photo for a model, if it was computed before.
    public func cachedFocus(photoID: String, model: String) throws(LibraryError) -> CachedFocus? {
        try database.read { connection throws(LibraryError) in
            try connection.query(
                "SELECT focus_x, focus_y FROM photo_subjects WHERE photo_id = ? AND model = ?", [photoID, model]
            ) { row throws(LibraryError) -> CachedFocus in
                guard let x = try row.optionalDouble("focus_x"), let y = try row.optionalDouble("focus_y") else {
                    return .noSubject
                }
                return .subject(Point(x: x, y: y))
            }.first
        }
    }

    /// Remembers a photo's subject focus for a model.
    public func storeFocus(_ focus: CachedFocus, photoID: String, model: String) throws(LibraryError) {
        var point: Point?
        if case .subject(let center) = focus { point = center }
        try database.write { connection throws(LibraryError) in
            try connection.run(
                "INSERT OR REPLACE INTO photo_subjects (photo_id, model, focus_x, focus_y) VALUES (?, ?, ?, ?)",
                [photoID, model, point?.x, point?.y])
        }
    }

    func stickerFile(id: String) -> URL {
        derivedFolder.appendingPathComponent("stickers").appendingPathComponent(String(id.prefix(2)))
            .appendingPathComponent("\(id).png")
    }

    /// A row's origin: both numbers or none (a damaged half is no origin: the brush finds it again).
    private func origin(_ row: Row) -> PixelPoint? {
        guard let x = try? row.optionalInt("origin_x"), let y = try? row.optionalInt("origin_y") else { return nil }
        return PixelPoint(plausibleX: x, y: y)
    }

    private func stickers(
        where condition: String, _ arguments: [any SQLBindable]
    ) throws(LibraryError)
        -> [StickerRecord]
    {
        try database.read { connection throws(LibraryError) in
            try connection.query(
                """
                SELECT id, photo_id, selection, outline, shadow, width, height, created_at, origin_x, origin_y,
                    -- A damaged effect (not text) still says something was drawn in, as
                    -- `collage doctor --repair` records it, so the refine brush stays away.
                    CASE WHEN effect IS NULL OR typeof(effect) = 'text' THEN effect ELSE 'unknown' END AS effect
                FROM stickers
                WHERE \(condition) ORDER BY created_at DESC, id
                """, arguments
            ) { row throws(LibraryError) in
                StickerRecord(
                    id: try row.text("id"), photoID: try row.text("photo_id"), selection: try row.text("selection"),
                    outlineWidth: try row.double("outline"), shadow: try row.int("shadow") != 0,
                    width: try row.int("width", in: CellRules.photoSide),
                    height: try row.int("height", in: CellRules.photoSide),
                    createdAt: try row.date("created_at"),
                    photoOrigin: origin(row), drawnEffect: try row.optionalText("effect"))
            }
        }
    }
}
