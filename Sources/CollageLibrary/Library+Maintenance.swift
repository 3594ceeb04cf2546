import CollageCore
import CollageRender
import Foundation

extension Library {
    /// Removes what nothing uses: photos no collage shows (their originals and derived files),
    /// files in `photos/` and `derived/` without a photo (left by an interrupted import), and
    /// half-written `.partial` files. Never touches a photo a collage uses.
    public func cleanUp() throws(LibraryError) -> CleanupReport {
        var report = CleanupReport()
        let unused = try database.write { connection throws(LibraryError) in
            try sql(database.path) { () throws(SQLiteError) in
                let ids = try connection.query(
                    """
                    SELECT id FROM photos WHERE id NOT IN (SELECT ref FROM items WHERE kind = 'photo')
                        AND id NOT IN (SELECT photo_id FROM stickers)
                    """
                ) { row throws(SQLiteError) in try row.text(0) }
                for id in ids { try connection.run("DELETE FROM photos WHERE id = ?", [id]) }
                return ids
            }
        }
        report.removedPhotos = unused
        let known = Set(try photos().map(\.id)).union(try stickers().map(\.id))
        for folder in [photosFolder, derivedFolder] {
            for file in Self.files(under: folder) {
                let name = file.lastPathComponent
                let hash = String(name.prefix(64))
                let orphan = name.hasSuffix(".partial") || !known.contains(hash)
                guard orphan else { continue }
                let size =
                    (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?
                    .intValue ?? 0
                if (try? FileManager.default.removeItem(at: file)) != nil {
                    report.removedFiles += 1
                    report.freedBytes += size
                }
            }
        }
        return report
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
