import CollageCore
import CollageRender
import Foundation

extension Library {
    /// Removes what no one can reach: files in `photos/` and `derived/` without a record (left by
    /// an interrupted import), and staging folders and half-written files older than an hour.
    /// Never a photo record or its files: a photo someone put in their library is theirs until
    /// they delete it, whether or not a collage shows it yet (an upload not placed, an import).
    /// Nor a file an import or a render in another process is making.
    ///
    /// It runs inside one write transaction: imports place their files and insert their rows in
    /// a transaction too, so the two can never interleave (no record ever points at a file
    /// this removed, and no import loses its files to it).
    /// - Parameter dryRun: count what would be removed, and remove nothing.
    public func cleanUp(dryRun: Bool = false) throws(LibraryError) -> CleanupReport {
        var report = CleanupReport(dryRun: dryRun)
        let staleBefore = now().addingTimeInterval(-Self.abandonedAfter)
        try database.write { connection throws(LibraryError) in
            let photos = try connection.query("SELECT id FROM photos") { row throws(LibraryError) in
                try row.text("id")
            }
            let stickers = try connection.query("SELECT id FROM stickers") { row throws(LibraryError) in
                try row.text("id")
            }
            let known = Set(photos).union(stickers)
            for folder in [photosFolder, derivedFolder] {
                for file in Self.files(under: folder) {
                    let name = file.lastPathComponent
                    // Hidden files are being written (a thumbnail rebuilt, a render saved): only an
                    // old one was abandoned.
                    let orphan =
                        name.hasPrefix(".")
                        ? Self.modified(file) < staleBefore : !known.contains(String(name.prefix(64)))
                    if orphan { remove(file, into: &report, dryRun: dryRun) }
                }
            }
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: stagingFolder.path)) ?? []
            for name in staging {
                let folder = stagingFolder.appendingPathComponent(name)
                if Self.modified(folder) < staleBefore { remove(folder, into: &report, dryRun: dryRun) }
            }
        }
        return report
    }

    /// A half-made file or staging folder untouched for this long belongs to a process that died.
    static let abandonedAfter: TimeInterval = 3600

    private func remove(_ file: URL, into report: inout CleanupReport, dryRun: Bool) {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        if dryRun || (try? FileManager.default.removeItem(at: file)) != nil {
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
            guard case .photo(let id) = content else {
                throw LibraryError.invalid("a \(content.kind) item shows no image file")
            }
            let photo = try library.photo(id)
            let file = library.originalFile(of: photo)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw LibraryError.missingPhotoFile(id: photo.id, path: file.path)
            }
            return file
        } catch {
            throw .unresolvedReference(content.reference ?? content.kind, reason: error.description)
        }
    }
}

/// What `collage doctor` found: records whose files are gone, items that point at such records,
/// and collages that break the document rules (stored by an older Collage, say).
public struct HealthReport: Sendable {
    /// Photos whose original file is missing.
    public var missingPhotos: [String] = []
    /// Stickers whose image file is missing.
    public var missingStickers: [String] = []
    /// Items (collage id, item id) that show a photo or sticker the library does not have.
    public var brokenItems: [(collage: String, item: String)] = []
    /// Collages that cannot be rendered, with every problem.
    public var invalidCollages: [(collage: String, issues: [String])] = []
    /// Whether the report's records and items were removed (`--repair`).
    public var repaired = false

    /// Whether nothing is wrong.
    public var isHealthy: Bool {
        missingPhotos.isEmpty && missingStickers.isEmpty && brokenItems.isEmpty && invalidCollages.isEmpty
    }
}

extension Library {
    /// Checks that every record's file is on disk, that every item shows something the library
    /// has, and that every collage can be rendered. With `repair`, records whose files are gone
    /// are removed, with the items that showed them (each such collage gets a new version);
    /// collages that break the rules are only reported, since which part to drop is the
    /// person's choice. One transaction: nothing changes unless all of it does.
    public func checkHealth(repair: Bool = false) throws(LibraryError) -> HealthReport {
        var report = HealthReport()
        try database.write { connection throws(LibraryError) in
            let photos = try connection.query("SELECT \(Self.photoColumns) FROM photos") {
                row throws(LibraryError) in try Self.photo(from: row)
            }
            report.missingPhotos = photos.filter {
                !FileManager.default.fileExists(atPath: originalFile(of: $0).path)
            }
            .map(\.id)
            let stickerIDs = try connection.query("SELECT id, photo_id FROM stickers") { row throws(LibraryError) in
                (try row.text("id"), try row.text("photo_id"))
            }
            // A sticker keeps working without its photo's original: only its own file counts.
            report.missingStickers = stickerIDs.filter { id, _ in
                !FileManager.default.fileExists(atPath: stickerFile(id: id).path)
            }.map(\.0)
            let photosStickersNeed = Set(
                stickerIDs.filter { !report.missingStickers.contains($0.0) }.map(\.1))
            let present = Set(photos.map(\.id)).subtracting(report.missingPhotos)
                .union(Set(stickerIDs.map(\.0)).subtracting(report.missingStickers))
            // Text items name no file: nothing of theirs can go missing.
            let items = try connection.query(
                "SELECT collage_id, id, ref FROM items WHERE kind != 'text' ORDER BY collage_id, z"
            ) {
                row throws(LibraryError) in (try row.text("collage_id"), try row.text("id"), try row.text("ref"))
            }
            report.brokenItems = items.filter { !present.contains($0.2) }.map { ($0.0, $0.1) }
            let collageIDs = try connection.query("SELECT id FROM collages ORDER BY id") {
                row throws(LibraryError) in try row.text("id")
            }
            for id in collageIDs {
                let issues = CollageDocument.issues(in: try Self.load(id, from: connection).collage)
                if !issues.isEmpty { report.invalidCollages.append((id, issues.map(\.description))) }
            }
            guard repair,
                !(report.missingPhotos.isEmpty && report.missingStickers.isEmpty && report.brokenItems.isEmpty)
            else { return }
            for (collage, item) in report.brokenItems {
                try connection.run("DELETE FROM items WHERE collage_id = ? AND id = ?", [collage, item])
            }
            for collage in Set(report.brokenItems.map(\.collage)) {
                // A damaged version (not a whole number in range) starts again at 1 rather than
                // overflow into a REAL that breaks every later read.
                try connection.run(
                    """
                    UPDATE collages SET version = CASE WHEN typeof(version) = 'integer'
                        AND version BETWEEN 1 AND 9007199254740991 THEN version + 1 ELSE 1 END,
                        updated_at = ? WHERE id = ?
                    """, [now().timeIntervalSince1970, collage])
            }
            for id in report.missingStickers {
                try connection.run("DELETE FROM stickers WHERE id = ?", [id])
                // A step of undo or redo showing it would bring back an item with nothing to draw.
                try connection.run("DELETE FROM collage_history WHERE instr(document, ?) > 0", [id])
            }
            // A photo whose working stickers point at it keeps its record (its items are gone).
            for id in report.missingPhotos where !photosStickersNeed.contains(id) {
                try connection.run("DELETE FROM photos WHERE id = ?", [id])
                // Likewise the steps that show the photo (their rows name it in collage_history_refs).
                try connection.run(
                    """
                    DELETE FROM collage_history WHERE EXISTS (
                        SELECT 1 FROM collage_history_refs AS r WHERE r.ref = ? AND r.collage_id = collage_history.collage_id
                            AND r.stack = collage_history.stack AND r.position = collage_history.position)
                    """, [id])
            }
            report.repaired = true
        }
        return report
    }
}
