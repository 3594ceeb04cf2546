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
    /// false). The original is copied into `photos/` under its hash, and a thumbnail and a
    /// preview are made; the whole file is decoded, so a corrupt one is refused here.
    /// - Throws: ``LibraryError/image(_:)`` naming the file and the problem; nothing is added then.
    public func importPhoto(from file: URL) throws(LibraryError) -> ImportResult {
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
        if let existing = try photoIfPresent(hash) {
            try ensureOriginal(of: existing, from: file)
            return ImportResult(photo: existing, isNew: false)
        }
        let record = PhotoRecord(
            id: hash, originalName: file.lastPathComponent, format: info.format, width: info.width,
            height: info.height, byteSize: byteSize, importedAt: now(), fileExtension: info.fileExtension)
        let stored = originalFile(of: record)
        let createdFile = !FileManager.default.fileExists(atPath: stored.path)
        try copyAtomically(file, to: stored)
        do {
            // Made from the file being imported, so a decoding error names the person's file.
            for (kind, size) in [("thumbnails", Self.thumbnailSize), ("previews", Self.previewSize)] {
                _ = try derivedFile(of: record, kind: kind, size: size, source: file)
            }
        } catch {
            if createdFile { try? FileManager.default.removeItem(at: stored) }
            throw error
        }
        // A concurrent import of the same bytes may have won the race: keep its row.
        let inserted = try database.write { connection throws(LibraryError) in
            try sql(database.path) { () throws(SQLiteError) in
                try connection.run(
                    """
                    INSERT OR IGNORE INTO photos (id, original_name, format, extension, width, height, byte_size,
                        imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        record.id, record.originalName, record.format, record.fileExtension, record.width,
                        record.height, record.byteSize, record.importedAt.timeIntervalSince1970,
                    ])
            }
        }
        return ImportResult(photo: try photo(hash), isNew: inserted > 0)
    }

    /// Every photo, newest import first.
    public func photos() throws(LibraryError) -> [PhotoRecord] {
        try database.read { connection throws(LibraryError) in
            try sql(database.path) { () throws(SQLiteError) in
                try connection.query("SELECT \(Self.photoColumns) FROM photos ORDER BY imported_at DESC, id") {
                    row throws(SQLiteError) in try Self.photo(from: row)
                }
            }
        }
    }

    /// The photo with `id`, or with the only id starting with `id` (at least 6 characters).
    public func photo(_ id: String) throws(LibraryError) -> PhotoRecord {
        if let exact = try photoIfPresent(id) { return exact }
        guard id.count >= 6, id.allSatisfy(\.isHexDigit) else { throw .unknownPhoto(id) }
        let matches = try database.read { connection throws(LibraryError) in
            try sql(database.path) { () throws(SQLiteError) in
                try connection.query(
                    "SELECT \(Self.photoColumns) FROM photos WHERE id LIKE ? LIMIT 2", [id.lowercased() + "%"]
                ) { row throws(SQLiteError) in try Self.photo(from: row) }
            }
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

    static func photo(from row: Row) throws(SQLiteError) -> PhotoRecord {
        PhotoRecord(
            id: try row.text(0), originalName: try row.text(1), format: try row.text(2), width: try row.int(4),
            height: try row.int(5), byteSize: try row.int(6),
            importedAt: Date(timeIntervalSince1970: try row.double(7)), fileExtension: try row.text(3))
    }

    func photoIfPresent(_ id: String) throws(LibraryError) -> PhotoRecord? {
        try database.read { connection throws(LibraryError) in
            try sql(database.path) { () throws(SQLiteError) in
                try connection.query("SELECT \(Self.photoColumns) FROM photos WHERE id = ?", [id]) {
                    row throws(SQLiteError) in try Self.photo(from: row)
                }.first
            }
        }
    }

    func derivedPath(of photo: PhotoRecord, kind: String, size: Int) -> URL {
        derivedFolder.appendingPathComponent(kind).appendingPathComponent(String(photo.id.prefix(2)))
            .appendingPathComponent("\(photo.id)-\(size).jpg")
    }

    private func derivedFile(
        of photo: PhotoRecord, kind: String, size: Int, source: URL? = nil
    ) throws(LibraryError)
        -> URL
    {
        let file = derivedPath(of: photo, kind: kind, size: size)
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
        return file
    }

    /// Restores a missing original when the same bytes are imported again.
    private func ensureOriginal(of photo: PhotoRecord, from file: URL) throws(LibraryError) {
        let stored = originalFile(of: photo)
        guard !FileManager.default.fileExists(atPath: stored.path) else { return }
        try copyAtomically(file, to: stored)
    }

    func makeFolder(_ folder: URL) throws(LibraryError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .unwritable(path: folder.path, reason: Self.reason(error))
        }
    }

    /// Copies to a hidden temporary name, flushes, then renames: the destination is whole or absent.
    func copyAtomically(_ source: URL, to destination: URL) throws(LibraryError) {
        try makeFolder(destination.deletingLastPathComponent())
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        do {
            try FileManager.default.copyItem(at: source, to: temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .unwritable(path: destination.path, reason: Self.reason(error))
        }
        guard Glibc.rename(temporary.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .unwritable(path: destination.path, reason: reason)
        }
    }
}
