import CollageCore
import CollageRender
import Foundation

extension Library {
    /// Removes what no one can reach and can be made again: files in `derived/` without a record
    /// (thumbnails, previews, masks), and staging folders and half-written files older than an
    /// hour. Never a photo record or its files: a photo someone put in their library is theirs
    /// until they delete it, whether or not a collage shows it yet (an upload not placed, an
    /// import). Nor an original in `photos/` or a sticker's image that no record names: it may be
    /// the only copy, left by an interrupted import or by a database that lost its rows (emptied,
    /// replaced, rolled back), so it is counted (``CleanupReport/keptUnrecorded``) and kept for
    /// ``checkHealth(repair:)`` to put back. Nor a file an import or a render in another process
    /// is making.
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
            // A photo or sticker set aside by a repair keeps its files: it can be put back.
            let quarantined = try connection.query("SELECT file_id FROM quarantine WHERE file_id IS NOT NULL") {
                row throws(LibraryError) in try row.optionalText("file_id")
            }.compactMap { $0 }
            let known = Set(photos).union(stickers).union(quarantined)
            let stickerImages = derivedFolder.appendingPathComponent("stickers").standardizedFileURL.path + "/"
            for folder in [photosFolder, derivedFolder] {
                for file in Self.files(under: folder) {
                    let name = file.lastPathComponent
                    // Hidden files are being written (a thumbnail rebuilt, a render saved): only an
                    // old one was abandoned.
                    if name.hasPrefix(".") {
                        if Self.modified(file) < staleBefore { remove(file, into: &report, dryRun: dryRun) }
                    } else if !known.contains(String(name.prefix(64))) {
                        let irreplaceable =
                            folder == photosFolder || file.standardizedFileURL.path.hasPrefix(stickerImages)
                        if irreplaceable {
                            report.keptUnrecorded += 1
                        } else {
                            remove(file, into: &report, dryRun: dryRun)
                        }
                    }
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

/// What `collage doctor` found: cells that hold what their column must not, records whose files
/// are gone, items that point at such records, and collages that break the document rules
/// (stored by an older Collage, say).
public struct HealthReport: Sendable {
    /// Cells holding the wrong kind of value or an impossible number, each named by table, row and column.
    public var damagedCells: [DamagedCell] = []
    /// Photos whose original file is missing.
    public var missingPhotos: [String] = []
    /// Stickers whose image file is missing.
    public var missingStickers: [String] = []
    /// Items (collage id, item id) that show a photo or sticker the library does not have.
    public var brokenItems: [(collage: String, item: String)] = []
    /// Collages whose background shows a photo the library does not have (collage id, photo id);
    /// each is among ``invalidCollages`` too.
    public var brokenBackgrounds: [(collage: String, photo: String)] = []
    /// Collages that cannot be rendered, with every problem.
    public var invalidCollages: [(collage: String, issues: [String])] = []
    /// Originals in `photos/` that no record names (file names): photos the database lost, or
    /// an import that was interrupted. `--repair` puts each back as a photo.
    public var unrecordedPhotos: [String] = []
    /// Whether the report's records and items were repaired (`--repair`).
    public var repaired = false
    /// What `--repair` did with each row that had a damaged cell, a sentence a row: set aside
    /// whole in the library's `quarantine` table (out of every list, so no command trips on it
    /// and nothing else is lost), measured again from its file, or a version started again at 1.
    public var repairs: [String] = []

    /// Whether nothing is wrong.
    public var isHealthy: Bool {
        damagedCells.isEmpty && missingPhotos.isEmpty && missingStickers.isEmpty && brokenItems.isEmpty
            && invalidCollages.isEmpty && unrecordedPhotos.isEmpty
    }

    /// Whether `--repair` has something to do.
    public var isRepairable: Bool {
        !(damagedCells.isEmpty && missingPhotos.isEmpty && missingStickers.isEmpty && brokenItems.isEmpty
            && brokenBackgrounds.isEmpty && unrecordedPhotos.isEmpty)
    }
}

extension Library {
    /// Checks every cell against what its column may hold, that every record's file is on disk,
    /// that every item shows something the library has, and that every collage can be rendered.
    /// With `repair`: a damaged version starts again at 1; any other row with a damaged cell is
    /// set aside whole in the `quarantine` table (a collage with its items and history); records
    /// whose files are gone are removed, the items that showed them set aside, and a background
    /// that showed one made white (each such collage gets a new version). Collages that break the
    /// document rules otherwise are only reported,
    /// since which part to drop is the person's choice. One transaction: nothing changes unless
    /// all of it does. Then, with `repair`, each original in `photos/` that no record names is
    /// imported again from where it lies (a photo of its own; the collages that showed it, if the
    /// database lost them, cannot be made again from the file).
    public func checkHealth(repair: Bool = false) throws(LibraryError) -> HealthReport {
        var report = HealthReport()
        // First, so that the items and backgrounds that show them find them again, rather than
        // being set aside for showing a photo the library does not have.
        if repair { putBackUnrecordedPhotos(into: &report) }
        try database.write { connection throws(LibraryError) in
            report.damagedCells = try connection.damagedCells()
            if repair, !report.damagedCells.isEmpty {
                report.repairs += try setAside(report.damagedCells, in: connection)
            }
            report.unrecordedPhotos = try unrecordedOriginals(in: connection).map(\.lastPathComponent)
            try findMissing(into: &report, in: connection)
            guard repair, report.isRepairable else { return }
            // A photo whose extension cell was damaged only seems missing: its file answers to its id.
            var found: [String] = []
            for id in report.missingPhotos {
                guard
                    case .integer(let rowNumber)? = try connection.scalar("SELECT rowid FROM photos WHERE id = ?", [id]),
                    try measureAgain(table: "photos", rowNumber: rowNumber, in: connection)
                else { continue }
                found.append(id)
                report.repairs.append("measured again from its file: photos row id = '\(id)'")
            }
            if !found.isEmpty {
                report.missingPhotos.removeAll { found.contains($0) }
                report.brokenItems = []
                report.brokenBackgrounds = []
                report.invalidCollages = []
                try findMissing(into: &report, in: connection)
            }
            try repairMissing(report, in: connection)
            // A collage left unable to render only by its background renders again now.
            for (collage, photo) in report.brokenBackgrounds {
                report.repairs.append(
                    "made the background of collage \(collage) white: it showed photo \(photo.prefix(12)), which is gone"
                )
                report.invalidCollages.removeAll {
                    $0.collage == collage && $0.issues == [Self.missingBackgroundIssue(photo)]
                }
            }
            report.repaired = true
        }
        if repair, !report.repairs.isEmpty { report.repaired = true }
        return report
    }

    /// The originals in `photos/` that no photo, sticker or set-aside row names.
    private func unrecordedOriginals(in connection: Connection) throws(LibraryError) -> [URL] {
        // A damaged id (not text) names no file; `damagedCells` reports it.
        let photos = try connection.query("SELECT id FROM photos WHERE typeof(id) = 'text'") {
            row throws(LibraryError) in try row.text("id")
        }
        let quarantined = try connection.query("SELECT file_id FROM quarantine WHERE file_id IS NOT NULL") {
            row throws(LibraryError) in try row.optionalText("file_id")
        }.compactMap { $0 }
        let known = Set(photos).union(quarantined)
        // Named as an import names an original (its SHA-256, then its extension): a file of
        // another name (a sync tool's Thumbs.db) is nobody's photo.
        return Self.files(under: photosFolder).filter {
            let name = $0.lastPathComponent
            let id = name.prefix(64)
            return id.count == 64 && id.allSatisfy(\.isHexDigit) && name.dropFirst(64).first == "."
                && !known.contains(String(id))
        }.sorted { $0.path < $1.path }
    }

    /// Imports again each original that no record names; what cannot be read stays where it is,
    /// named in the report.
    private func putBackUnrecordedPhotos(into report: inout HealthReport) {
        let files: [URL]
        do {
            files = try database.read { connection throws(LibraryError) in try unrecordedOriginals(in: connection) }
        } catch {
            report.repairs.append("could not look for photos without a record: \(error.description)")
            return
        }
        for file in files {
            do {
                let photo = try importPhoto(from: file).photo
                // Bytes that no longer match their name are kept once, under their own hash.
                if originalFile(of: photo).standardizedFileURL != file.standardizedFileURL {
                    try? FileManager.default.removeItem(at: file)
                }
                report.repairs.append(
                    "put back photo \(photo.id.prefix(12)) from \(file.lastPathComponent): its file was in the library without a record"
                )
            } catch {
                report.repairs.append("could not put back \(file.lastPathComponent): \(error.description)")
            }
        }
    }

    /// The checks of files and references, over the rows that can be read (a damaged one is
    /// already reported, and skipped here).
    private func findMissing(into report: inout HealthReport, in connection: Connection) throws(LibraryError) {
        let photos = try connection.query("SELECT \(Self.photoColumns) FROM photos") { row throws(LibraryError) in
            try? Self.photo(from: row)
        }.compactMap { $0 }
        report.missingPhotos = photos.filter { !FileManager.default.fileExists(atPath: originalFile(of: $0).path) }
            .map(\.id)
        let stickers = try connection.query("SELECT id, photo_id FROM stickers") { row throws(LibraryError) in
            (try row.optionalText("id"), try row.optionalText("photo_id"))
        }
        let stickerIDs = stickers.compactMap { $0.0 }
        // A sticker keeps working without its photo's original: only its own file counts.
        report.missingStickers = stickerIDs.filter { !FileManager.default.fileExists(atPath: stickerFile(id: $0).path) }
        let missing = Set(report.missingStickers)
        // Every photo row counts, a damaged one too: its items are not broken (a repair measures
        // it again, or sets it aside with them).
        let photoIDs = try connection.query("SELECT id FROM photos") { row throws(LibraryError) in
            try row.optionalText("id")
        }.compactMap { $0 }
        let present = Set(photoIDs).subtracting(report.missingPhotos).union(Set(stickerIDs).subtracting(missing))
        // Text items name no file: nothing of theirs can go missing.
        let items = try connection.query(
            "SELECT collage_id, id, ref FROM items WHERE kind != 'text' ORDER BY collage_id, z"
        ) { row throws(LibraryError) in
            (try row.optionalText("collage_id"), try row.optionalText("id"), try row.optionalText("ref"))
        }
        report.brokenItems = items.compactMap { collage, item, ref in
            guard let collage, let item, !present.contains(ref ?? "") else { return nil }
            return (collage, item)
        }
        // A photo background counts as the photo's use too; one whose photo is gone is named.
        let backgrounds = try connection.query(
            "SELECT id, background FROM collages WHERE background LIKE 'photo(%'"
        ) { row throws(LibraryError) in (try row.optionalText("id"), try row.optionalText("background")) }
        for case (let id?, let text?) in backgrounds {
            guard case .photo(let reference, _)? = try? Background(parsing: text), !present.contains(reference) else {
                continue
            }
            report.brokenBackgrounds.append((id, reference))
            report.invalidCollages.append((id, [Self.missingBackgroundIssue(reference)]))
        }
        let collageIDs = try connection.query("SELECT id FROM collages ORDER BY id") { row throws(LibraryError) in
            try row.optionalText("id")
        }
        let cellsNameThem = report.damagedCells.contains { $0.table == "collages" || $0.table == "items" }
        for case let id? in collageIDs {
            do throws(LibraryError) {
                let issues = CollageDocument.issues(in: try Self.load(id, from: connection).collage)
                if !issues.isEmpty { report.invalidCollages.append((id, issues.map(\.description))) }
            } catch {
                // A collage whose row or items are damaged is reported cell by cell.
                if !cellsNameThem {
                    report.invalidCollages.append((id, [error.description]))
                }
            }
        }
    }

    /// Why a collage whose background shows photo `reference` cannot be rendered.
    static func missingBackgroundIssue(_ reference: String) -> String {
        "style.background: shows photo \"\(reference.prefix(80))\", which the library does not have"
    }

    /// Removes records whose files are gone; the items that showed them are set aside, and a
    /// background that showed one is made white (the plain background of a new collage).
    private func repairMissing(_ report: HealthReport, in connection: Connection) throws(LibraryError) {
        for (collage, item) in report.brokenItems {
            try quarantine(
                table: "items", where: "collage_id = ? AND id = ?", [collage, item],
                reason: "shows a photo or sticker that is gone", in: connection)
        }
        for (collage, _) in report.brokenBackgrounds {
            try connection.run(
                "UPDATE collages SET background = ? WHERE id = ?", [Background.white.description, collage])
        }
        let changed = Set(report.brokenItems.map(\.collage)).union(report.brokenBackgrounds.map(\.collage))
        for collage in changed { try bumpVersion(of: collage, in: connection) }
        for id in report.missingStickers {
            try connection.run("DELETE FROM stickers WHERE id = ?", [id])
            // A step of undo or redo showing it would bring back an item with nothing to draw.
            try connection.run("DELETE FROM collage_history WHERE \(Self.stepsShowingSticker)", [id])
        }
        // A photo whose working stickers point at it keeps its record (its items are gone); the
        // stickers removed just now need it no longer.
        let photosStickersNeed = Set(
            try connection.query("SELECT photo_id FROM stickers") { row throws(LibraryError) in
                try row.optionalText("photo_id")
            }.compactMap { $0 })
        for id in report.missingPhotos where !photosStickersNeed.contains(id) {
            try connection.run("DELETE FROM photos WHERE id = ?", [id])
            // Likewise the steps that show the photo (their documents name it).
            if Self.isPhotoID(id) {
                try connection.run("DELETE FROM collage_history WHERE \(Self.stepsShowingPhoto)", [id])
            }
        }
    }

    /// The undo and redo steps that show the photo bound to `?`: a photo's id is 64 hex digits,
    /// which a document spells only where it names the photo (an item's `"<id>"`, a background's
    /// `photo(<id>, …)`). Asked only for an id of that form (``isPhotoID(_:)``): a damaged one
    /// names no step.
    static let stepsShowingPhoto = "instr(document, ?) > 0"

    /// Whether `id` has the form of a photo's id (SHA-256, 64 lowercase hex digits).
    static func isPhotoID(_ id: String) -> Bool {
        id.utf8.count == 64 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
    /// The undo and redo steps that show the sticker bound to `?`.
    static let stepsShowingSticker = "instr(document, ?) > 0"

    /// A collage changed by a repair gets a new version; a damaged version (not a whole number
    /// in range) starts again at 1 rather than overflow into a REAL that breaks every later read.
    private func bumpVersion(of collage: String, in connection: Connection) throws(LibraryError) {
        try connection.run(
            """
            UPDATE collages SET version = CASE WHEN typeof(version) = 'integer'
                AND version BETWEEN 1 AND 9007199254740991 THEN version + 1 ELSE 1 END,
                updated_at = ? WHERE id = ?
            """, [now().timeIntervalSince1970, collage])
    }

    /// Repairs what can be repaired in place (a version starts again at 1, a photo or sticker is
    /// measured again from its file) and sets every other row with a damaged cell aside, a
    /// collage with its items and history.
    /// - Returns: what was done, one sentence a row.
    private func setAside(_ damaged: [DamagedCell], in connection: Connection) throws(LibraryError) -> [String] {
        var done: [String] = []
        var seen = Set<String>()
        for cell in damaged where !seen.contains("\(cell.table)#\(cell.rowNumber)") {
            seen.insert("\(cell.table)#\(cell.rowNumber)")
            let cells = damaged.filter { $0.table == cell.table && $0.rowNumber == cell.rowNumber }
            let row = "\(cell.table) row \(cell.row)"
            if cell.table == "collages", cells.allSatisfy({ $0.column == "version" }) {
                try connection.run("UPDATE collages SET version = 1 WHERE rowid = ?", [cell.rowNumber])
                // Thumbnails are kept by version: those of the collage's first versions are not its own now.
                if case .text(let id)? = try connection.scalar(
                    "SELECT id FROM collages WHERE rowid = ?", [cell.rowNumber])
                {
                    removeCollageThumbnails(of: id)
                }
                done.append("version started again at 1: \(row)")
                continue
            }
            if cell.table == "photos" || cell.table == "stickers",
                try measureAgain(table: cell.table, rowNumber: cell.rowNumber, in: connection)
            {
                done.append("measured again from its file: \(row)")
                continue
            }
            let reason = cells.map(\.description).joined(separator: "; ")
            var changed: String?
            if cell.table == "items",
                case .text(let collage)? = try connection.scalar(
                    "SELECT collage_id FROM items WHERE rowid = ?", [cell.rowNumber])
            {
                changed = collage
            }
            // The id of a collage, photo or sticker set aside, whose history goes with it.
            var id: String?
            if ["collages", "photos", "stickers"].contains(cell.table),
                case .text(let text)? = try connection.scalar(
                    "SELECT id FROM \"\(cell.table)\" WHERE rowid = ?", [cell.rowNumber])
            {
                id = text
            }
            try connection.execute("SAVEPOINT set_aside")
            let setAside: Bool
            do throws(LibraryError) {
                if cell.table == "collages", let id {
                    // Its items and history go with it, so that it can be put back whole.
                    try quarantine(table: "items", where: "collage_id = ?", [id], reason: reason, in: connection)
                    try quarantine(
                        table: "collage_history", where: "collage_id = ?", [id], reason: reason, in: connection)
                }
                // An undo must not bring back an item showing a photo or sticker set aside.
                if cell.table == "photos", let id, Self.isPhotoID(id) {
                    try quarantine(
                        table: "collage_history", where: Self.stepsShowingPhoto, [id], reason: reason, in: connection)
                }
                if cell.table == "stickers", let id {
                    try quarantine(
                        table: "collage_history", where: Self.stepsShowingSticker, [id], reason: reason, in: connection)
                }
                try quarantine(table: cell.table, where: "rowid = ?", [cell.rowNumber], reason: reason, in: connection)
                try connection.execute("RELEASE set_aside")
                setAside = true
            } catch {
                // Only a row something still needs (a photo its stickers) is kept where it is.
                guard case .database(_, let info) = error, info.code == SQLiteError.constraint else {
                    throw error
                }
                try connection.execute("ROLLBACK TO set_aside")
                try connection.execute("RELEASE set_aside")
                setAside = false
            }
            if setAside {
                if let changed { try bumpVersion(of: changed, in: connection) }
                done.append("set aside in the quarantine table: \(row)")
            } else {
                // A copy of the row as it was goes to the quarantine table; its damaged cells get
                // a harmless value.
                try quarantine(
                    table: cell.table, where: "rowid = ?", [cell.rowNumber], reason: reason, in: connection,
                    deleting: false)
                for damagedCell in cells {
                    guard
                        let rule = CellRules.tables.first(where: { $0.name == damagedCell.table })?
                            .columns.first(where: { $0.name == damagedCell.column })
                    else { continue }
                    try connection.run(
                        "UPDATE \"\(damagedCell.table)\" SET \"\(rule.name)\" = \(rule.harmlessValue) WHERE rowid = ?",
                        [cell.rowNumber])
                }
                done.append("damaged cells set to harmless values (the row is still needed): \(row)")
            }
        }
        return done
    }

    /// Measures a photo's or sticker's row again from its file (size, format, bytes), keeping
    /// the cells that are sound. Nothing happens when its id is damaged or no file answers to it.
    /// - Returns: whether the row is sound now.
    private func measureAgain(table: String, rowNumber: Int64, in connection: Connection) throws(LibraryError) -> Bool {
        guard case .text(let id)? = try connection.scalar("SELECT id FROM \"\(table)\" WHERE rowid = ?", [rowNumber]),
            !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
        else { return false }
        let file: URL
        if table == "photos" {
            let folder = photosFolder.appendingPathComponent(String(id.prefix(2)))
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            guard let name = names.first(where: { $0.hasPrefix(id + ".") }) else { return false }
            file = folder.appendingPathComponent(name)
        } else {
            file = stickerFile(id: id)
        }
        guard let info = try? ImageFiles.inspect(file) else { return false }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue ?? 0
        let now = now().timeIntervalSince1970
        if table == "photos" {
            try connection.run(
                """
                UPDATE photos SET format = ?, extension = ?, width = ?, height = ?, byte_size = ?,
                    original_name = CASE WHEN typeof(original_name) = 'text' THEN original_name ELSE ? END,
                    imported_at = CASE WHEN \(CellRules.Column(name: "imported_at", kind: .number, nullable: false).validSQL)
                        THEN imported_at ELSE ? END
                WHERE rowid = ?
                """,
                [
                    info.format, info.fileExtension, info.width, info.height, bytes, file.lastPathComponent, now,
                    rowNumber,
                ])
        } else {
            let origin = { (name: String) in
                CellRules.Column(name: name, kind: .integer(CellRules.stickerOrigin), nullable: true).validSQL
            }
            let originSound = "(\(origin("origin_x")) AND \(origin("origin_y")))"
            guard
                case .integer? = try connection.scalar(
                    "SELECT 1 FROM stickers WHERE rowid = ? AND typeof(photo_id) = 'text' AND typeof(selection) = 'text'",
                    [rowNumber])
            else { return false }
            try connection.run(
                """
                UPDATE stickers SET width = ?, height = ?,
                    outline = CASE WHEN \(CellRules.Column(name: "outline", kind: .number, nullable: false).validSQL)
                        THEN outline ELSE 0 END,
                    shadow = CASE WHEN shadow IN (0, 1) AND typeof(shadow) = 'integer' THEN shadow ELSE 0 END,
                    created_at = CASE WHEN \(CellRules.Column(name: "created_at", kind: .number, nullable: false).validSQL)
                        THEN created_at ELSE ? END,
                    -- A place that is not sound is forgotten: the refine brush finds it again.
                    origin_x = CASE WHEN \(originSound) THEN origin_x ELSE NULL END,
                    origin_y = CASE WHEN \(originSound) THEN origin_y ELSE NULL END,
                    -- A damaged effect still says something was drawn in: the brush stays away.
                    effect = CASE WHEN effect IS NULL OR typeof(effect) = 'text' THEN effect ELSE 'unknown' END
                WHERE rowid = ?
                """, [info.width, info.height, now, rowNumber])
        }
        return true
    }

    /// Removes the collage's thumbnails (kept as `ID-vVERSION-….jpg` under `derived/`) of the
    /// versions before `version`, or of every version. A thumbnail is made for each version the
    /// library page shows, so without this they pile up, one per edit.
    public func removeCollageThumbnails(of id: String, before version: Int? = nil) {
        let folder = derivedFolder.appendingPathComponent("collage-thumbnails")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let prefix = "\(id)-v"
        for name in names where name.hasPrefix(prefix) {
            if let version {
                guard let drawn = Int(name.dropFirst(prefix.count).prefix { $0.isNumber }), drawn < version else {
                    continue
                }
            }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Copies the rows of `table` matching `condition` into `quarantine`, whole, then deletes
    /// them (unless `deleting` is false: a copy of a row kept where it is).
    private func quarantine(
        table: String, where condition: String, _ arguments: [any SQLBindable], reason: String,
        in connection: Connection, deleting: Bool = true
    ) throws(LibraryError) {
        guard let rules = CellRules.tables.first(where: { $0.name == table }) else { return }
        let members = rules.columns.map { column in
            "'\(column.name)', CASE WHEN typeof(\"\(column.name)\") = 'blob' THEN hex(\"\(column.name)\") "
                + "ELSE \"\(column.name)\" END"
        }.joined(separator: ", ")
        let fileID = table == "photos" || table == "stickers" ? "CASE WHEN typeof(id) = 'text' THEN id END" : "NULL"
        try connection.run(
            """
            INSERT INTO quarantine (table_name, row, file_id, reason, quarantined_at)
                SELECT ?, json_object(\(members)), \(fileID), ?, ? FROM "\(table)" WHERE \(condition)
            """, [table, reason, now().timeIntervalSince1970] + arguments)
        if deleting { try connection.run("DELETE FROM \"\(table)\" WHERE \(condition)", arguments) }
    }
}
