import CollageCore
import CollageRender
import Foundation

extension Library {
    /// Removes what nothing uses: photos no collage shows (their originals and derived files),
    /// files in `photos/` and `derived/` without a record (left by an interrupted import), and
    /// staging folders and half-written files older than an hour. Never touches a photo a
    /// collage uses, nor a file an import or a render in another process is making.
    ///
    /// It runs inside one write transaction: imports place their files and insert their rows in
    /// a transaction too, so the two can never interleave (no record ever points at a file
    /// this removed, and no import loses its files to it).
    public func cleanUp() throws(LibraryError) -> CleanupReport {
        var report = CleanupReport()
        let staleBefore = now().addingTimeInterval(-Self.abandonedAfter)
        try database.write { connection throws(LibraryError) in
            let known = try sql(database.path) { () throws(SQLiteError) -> Set<String> in
                let ids = try connection.query(
                    """
                    SELECT id FROM photos WHERE id NOT IN (SELECT ref FROM items WHERE kind = 'photo')
                        AND id NOT IN (SELECT photo_id FROM stickers)
                    """
                ) { row throws(SQLiteError) in try row.text(0) }
                for id in ids { try connection.run("DELETE FROM photos WHERE id = ?", [id]) }
                report.removedPhotos = ids
                let photos = try connection.query("SELECT id FROM photos") { row throws(SQLiteError) in try row.text(0)
                }
                let stickers = try connection.query("SELECT id FROM stickers") { row throws(SQLiteError) in
                    try row.text(0)
                }
                return Set(photos).union(stickers)
            }
            for folder in [photosFolder, derivedFolder] {
                for file in Self.files(under: folder) {
                    let name = file.lastPathComponent
                    // Hidden files are being written (a thumbnail rebuilt, a render saved): only an
                    // old one was abandoned.
                    let orphan =
                        name.hasPrefix(".")
                        ? Self.modified(file) < staleBefore : !known.contains(String(name.prefix(64)))
                    if orphan { remove(file, into: &report) }
                }
            }
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: stagingFolder.path)) ?? []
            for name in staging {
                let folder = stagingFolder.appendingPathComponent(name)
                if Self.modified(folder) < staleBefore { remove(folder, into: &report) }
            }
        }
        return report
    }

    /// A half-made file or staging folder untouched for this long belongs to a process that died.
    static let abandonedAfter: TimeInterval = 3600

    private func remove(_ file: URL, into report: inout CleanupReport) {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        if (try? FileManager.default.removeItem(at: file)) != nil {
            report.removedFiles += 1
            report.freedBytes += size
        }
    }

    private static func modified(_ file: URL) -> Date {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date) ?? .distantFuture
    }

    private static func files(under folder: URL) -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [])
        else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }
    }
}

/// Resolves the references in a library collage (photo ids) to the library's files.
public struct LibraryPhotoSource: PhotoSource {
    let library: Library

    /// A source over `library`.
    public init(library: Library) {
        self.library = library
    }

    /// The original of the photo an item shows, or the sticker's image.
    public func file(for content: ItemContent) throws(RenderError) -> URL {
        do throws(LibraryError) {
            if case .sticker(let id) = content {
                let file = library.stickerFile(of: try library.sticker(id))
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw LibraryError.invalid(
                        "the image of sticker \(id) is missing (\(file.path)); make it again with 'collage sticker'")
                }
                return file
            }
            let photo = try library.photo(content.reference)
            let file = library.originalFile(of: photo)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw LibraryError.missingPhotoFile(id: photo.id, path: file.path)
            }
            return file
        } catch {
            throw .unresolvedReference(content.reference, reason: error.description)
        }
    }
}
