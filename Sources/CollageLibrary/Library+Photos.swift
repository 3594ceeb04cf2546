import CollageCore
import CollageRender
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Library {
    /// The longer side of a photo's thumbnail, in pixels.
    public static let thumbnailSize = 512
    /// The longer side of a photo's preview, in pixels.
    public static let previewSize = 2048

    /// Imports one photo file. The same bytes imported again are the same photo (`isNew` is
    /// false). The original is copied into `photos/` under its hash, and a thumbnail is made;
    /// the whole file is decoded for it, so a corrupt one is refused here.
    /// - Parameter makingPreview: whether the preview (``previewSize``) is made now too. The
    ///   editor's upload leaves it for later (``previewFile(of:)`` makes it on first use), so
    ///   that the photos are in the library four times sooner.
    /// - Throws: ``LibraryError/image(_:)`` naming the file and the problem; nothing is added then.
    public func importPhoto(from file: URL, makingPreview: Bool = true) throws(LibraryError) -> ImportResult {
        let info: ImageInfo
        do {
            info = try ImageFiles.inspect(file)
        } catch {
            throw .image(error.description)
        }
        let hash: String
        let byteSize: Int
        do {
            hash = try SHA256.hex(ofFile: file)
            byteSize = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw .image("\(file.path): cannot be read (\(Self.reason(error)))")
        }
        // Every file is made in a staging folder of its own, which `cleanUp` leaves alone, and
        // moved into `photos/` and `derived/` inside the transaction that records it: a cleanup
        // in another process can never see a file whose row is still to come.
        let staging = try makeStagingFolder()
        defer { try? FileManager.default.removeItem(at: staging) }
        if let existing = try photoIfPresent(hash) {
            try ensureOriginal(of: existing, from: file, staging: staging)
            return ImportResult(photo: existing, isNew: false)
        }
        let record = PhotoRecord(
            id: hash, originalName: file.lastPathComponent, format: info.format, width: info.width,
            height: info.height, byteSize: byteSize, importedAt: now(), fileExtension: info.fileExtension)
        var staged = [(file: try stageCopy(of: file, in: staging), destination: originalFile(of: record))]
        // Made from the file being imported, so a decoding error names the person's file.
        let derived = [("thumbnails", Self.thumbnailSize)] + (makingPreview ? [("previews", Self.previewSize)] : [])
        for (kind, size) in derived {
            // Named as it will be kept: the name says the format (a see-through photo's is a WebP).
            let made = staging.appendingPathComponent("\(kind)-\(size).\(Self.derivedExtension(of: record))")
            do {
                try ImageFiles.writeThumbnail(of: file, to: made, maxSide: size)
            } catch {
                throw .image(error.description)
            }
            staged.append((made, derivedPath(of: record, kind: kind, size: size)))
        }
        // A concurrent import of the same bytes may have won the race: keep its row and files.
        let inserted = try database.write { connection throws(LibraryError) in
            for (made, destination) in staged where !FileManager.default.fileExists(atPath: destination.path) {
                try place(made, at: destination)
            }
            return try connection.run(
                """
                INSERT OR IGNORE INTO photos (id, original_name, format, extension, width, height, byte_size,
                    imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    record.id, record.originalName, record.format, record.fileExtension, record.width,
                    record.height, record.byteSize, record.importedAt.timeIntervalSince1970,
                ])
        }
        return ImportResult(photo: try photo(hash), isNew: inserted > 0)
    }

    /// Every photo, newest import first.
    public func photos() throws(LibraryError) -> [PhotoRecord] {
        try database.read { connection throws(LibraryError) in
            try connection.query("SELECT \(Self.photoColumns) FROM photos ORDER BY imported_at DESC, id") {
                row throws(LibraryError) in try Self.photo(from: row)
            }
        }
    }

    /// The photo with `id`, or with the only id starting with `id` (at least 6 characters).
    public func photo(_ id: String) throws(LibraryError) -> PhotoRecord {
        if let exact = try photoIfPresent(id) { return exact }
        guard id.count >= 6, id.allSatisfy(\.isHexDigit) else { throw .unknownPhoto(id) }
        let matches = try database.read { connection throws(LibraryError) in
            try connection.query(
                "SELECT \(Self.photoColumns) FROM photos WHERE id LIKE ? LIMIT 2", [id.lowercased() + "%"]
            ) { row throws(LibraryError) in try Self.photo(from: row) }
        }
        guard matches.count == 1, let only = matches.first else {
            throw matches.isEmpty
                ? .unknownPhoto(id) : .invalid("\"\(id)\" matches more than one photo; give more of its id")
        }
        return only
    }

    /// The stored original of a photo.
    public func originalFile(of photo: PhotoRecord) -> URL {
        photosFolder.appendingPathComponent(String(photo.id.prefix(2)))
            .appendingPathComponent("\(photo.id).\(photo.fileExtension)")
    }

    /// The photo's thumbnail (about 512 px), rebuilt from the original when missing.
    public func thumbnailFile(of photo: PhotoRecord) throws(LibraryError) -> URL {
        try derivedFile(of: photo, kind: "thumbnails", size: Self.thumbnailSize)
    }

    /// The photo's preview (about 2,048 px), rebuilt from the original when missing.
    public func previewFile(of photo: PhotoRecord) throws(LibraryError) -> URL {
        try derivedFile(of: photo, kind: "previews", size: Self.previewSize)
    }

    // MARK: - Internals

    static let photoColumns = "id, original_name, format, extension, width, height, byte_size, imported_at"

    static func photo(from row: Row) throws(LibraryError) -> PhotoRecord {
        PhotoRecord(
            id: try row.text("id"), originalName: try row.text("original_name"), format: try row.text("format"),
            width: try row.int("width", in: CellRules.photoSide),
            height: try row.int("height", in: CellRules.photoSide),
            byteSize: try row.int("byte_size", in: CellRules.bytes),
            importedAt: try row.date("imported_at"), fileExtension: try row.text("extension"))
    }

    /// The photos with these exact ids, read together (a collage's answer names all of its
    /// photos); an id not in the library is left out.
    public func photos(exactly ids: Set<String>) throws(LibraryError) -> [String: PhotoRecord] {
        guard !ids.isEmpty else { return [:] }
        return try database.read { connection throws(LibraryError) in
            var found: [String: PhotoRecord] = [:]
            for id in ids {
                if let photo = try Self.photo(id, in: connection) { found[id] = photo }
            }
            return found
        }
    }

    func photoIfPresent(_ id: String) throws(LibraryError) -> PhotoRecord? {
        try database.read { connection throws(LibraryError) in try Self.photo(id, in: connection) }
    }

    private static func photo(_ id: String, in connection: Connection) throws(LibraryError) -> PhotoRecord? {
        try connection.query("SELECT \(photoColumns) FROM photos WHERE id = ?", [id]) {
            row throws(LibraryError) in try photo(from: row)
        }.first
    }

    func derivedPath(of photo: PhotoRecord, kind: String, size: Int) -> URL {
        derivedFolder.appendingPathComponent(kind).appendingPathComponent(String(photo.id.prefix(2)))
            .appendingPathComponent("\(photo.id)-\(size).\(Self.derivedExtension(of: photo))")
    }

    /// A WebP, which keeps transparency, for a photo in a format where see-through photos are
    /// common (a PNG with a see-through background was drawn on white in the editor); a JPEG
    /// for the others (a camera's JPEG or HEIC, where the WebP would cost time for nothing).
    public static func derivedExtension(of photo: PhotoRecord) -> String {
        ["png", "webp", "gif", "tiff"].contains(photo.format) ? "webp" : "jpg"
    }

    private func derivedFile(
        of photo: PhotoRecord, kind: String, size: Int, source: URL? = nil
    ) throws(LibraryError)
        -> URL
    {
        let file = derivedPath(of: photo, kind: kind, size: size)
        if FileManager.default.fileExists(atPath: file.path) { return file }
        // Asked for by a page and by the background at once, the file is made once: the second
        // waits for the first rather than decoding the photo again beside it.
        return try derivedFilesInMaking.one(file.path) { () throws(LibraryError) in
            try makeDerivedFile(file, of: photo, size: size, source: source)
        }
    }

    private func makeDerivedFile(
        _ file: URL, of photo: PhotoRecord, size: Int, source: URL?
    ) throws(LibraryError) -> URL {
        if FileManager.default.fileExists(atPath: file.path) { return file }
        let original = source ?? originalFile(of: photo)
        guard FileManager.default.fileExists(atPath: original.path) else {
            throw .missingPhotoFile(id: photo.id, path: original.path)
        }
        try makeFolder(file.deletingLastPathComponent())
        do {
            try ImageFiles.writeThumbnail(of: original, to: file, maxSide: size)
        } catch {
            throw .image(error.description)
        }
        // What an earlier version made as a JPEG for this photo is not shown again.
        if file.pathExtension != "jpg" {
            try? FileManager.default.removeItem(at: file.deletingPathExtension().appendingPathExtension("jpg"))
        }
        return file
    }

    /// Restores a missing original when the same bytes are imported again.
    private func ensureOriginal(of photo: PhotoRecord, from file: URL, staging: URL) throws(LibraryError) {
        let stored = originalFile(of: photo)
        guard !FileManager.default.fileExists(atPath: stored.path) else { return }
        let copy = try stageCopy(of: file, in: staging)
        try database.write { connection throws(LibraryError) in
            // Only while the record is still there: a cleanup may have removed it meanwhile.
            let recorded = try !connection.query("SELECT 1 FROM photos WHERE id = ?", [photo.id]) {
                _ throws(LibraryError) in 1
            }
            .isEmpty
            if recorded, !FileManager.default.fileExists(atPath: stored.path) { try place(copy, at: stored) }
        }
    }

    /// A new folder under `staging/` for the files of one operation; the caller removes it.
    func makeStagingFolder() throws(LibraryError) -> URL {
        let folder = stagingFolder.appendingPathComponent("\(getpid())-\(UUID().uuidString)")
        try makeFolder(folder)
        return folder
    }

    /// A flushed copy of `source` inside `staging`.
    private func stageCopy(of source: URL, in staging: URL) throws(LibraryError) -> URL {
        let copy = staging.appendingPathComponent("original")
        do {
            try FileManager.default.copyItem(at: source, to: copy)
            let handle = try FileHandle(forWritingTo: copy)
            try handle.synchronize()
            try handle.close()
        } catch {
            throw .unwritable(path: copy.path, reason: Self.reason(error))
        }
        return copy
    }

    /// Moves a finished file into place (one rename: the destination is whole or absent).
    func place(_ file: URL, at destination: URL) throws(LibraryError) {
        try makeFolder(destination.deletingLastPathComponent())
        guard Glibc.rename(file.path, destination.path) == 0 else {
            throw .unwritable(path: destination.path, reason: String(cString: strerror(errno)))
        }
    }

    func makeFolder(_ folder: URL) throws(LibraryError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: folder.path, reason: Self.reason(error))
        }
    }
}
