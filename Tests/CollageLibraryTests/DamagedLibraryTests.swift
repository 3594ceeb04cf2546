import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@testable import CollageLibrary

/// Every cell of every table damaged in every way a hand, another program or a disk can damage
/// it: the library never traps, `doctor` names the table, row and column, and `--repair` leaves
/// a library that reads whole, without losing anything that was not damaged.
@Suite("A damaged library", .serialized)
struct DamagedLibraryTests {
    /// What a cell may be set to: wrong kinds, nothing, and the numbers that break arithmetic.
    static let damage: [(name: String, sql: String)] = [
        ("text", "'x'"), ("NULL", "NULL"), ("0", "0"), ("-1", "-1"), ("2^53", "9007199254740992"),
        ("2^63-1", "9223372036854775807"), ("-2^63", "-9223372036854775808"), ("infinity", "1e999"),
        ("a fraction", "1.5"), ("bytes", "x'00ff'"),
    ]

    /// A library with two photos, a sticker, a collage of a photo, the sticker and a caption with
    /// undo steps, a second collage that no damage touches, a cached focus and a setting.
    static func makeHealthyLibrary(in fixtures: LibraryFixtures) throws -> (touched: String, untouched: String) {
        let library = try fixtures.open()
        defer { library.close() }
        let first = try library.importPhoto(from: try fixtures.photo("a.png", [200, 40, 40])).photo
        let second = try library.importPhoto(from: try fixtures.photo("b.png", [40, 200, 40])).photo
        let sticker = try library.saveSticker(
            id: "sticker-1", photoID: first.id, selection: "all", outlineWidth: 4, shadow: true,
            image: Bitmap(width: 40, height: 40, color: [10, 20, 30, 255]))
        let touched = try library.createCollage(
            title: "Touched", templateID: "grid2x2", aspect: .square, photoIDs: [first.id]
        ).collage.id
        try library.apply([.addItem(id: "s", content: .sticker(sticker.id), frame: nil)], to: touched)
        try library.apply(
            [
                .addItem(
                    id: "t", content: .text(TextBlock(text: "Day one")),
                    frame: Rect(x: 10, y: 10, width: 300, height: 80))
            ], to: touched)
        try library.apply([.rename(title: "Touched again")], to: touched)
        _ = try library.undo(touched)
        let untouched = try library.createCollage(
            title: "Untouched", templateID: "sideBySide", aspect: .square, photoIDs: [second.id]
        ).collage.id
        try library.storeFocus(.subject(Point(x: 0.3, y: 0.6)), photoID: first.id, model: "model")
        _ = try library.pairDevice(named: "iPhone (Safari)")
        return (touched, untouched)
    }

    @Test func everyColumnOfTheSchemaHasARule() throws {
        let fixtures = try LibraryFixtures()
        _ = try Self.makeHealthyLibrary(in: fixtures)
        let connection = try Connection(path: fixtures.databaseFile.path)
        defer { connection.close() }
        let tables = try connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('quarantine') AND name NOT LIKE 'sqlite_%'"
        ) { row throws(LibraryError) in try row.text("name") }
        for table in tables {
            let columns = try connection.query("SELECT name FROM pragma_table_info(?)", [table]) {
                row throws(LibraryError) in try row.text("name")
            }
            let rules = CellRules.tables.first { $0.name == table }
            #expect(rules != nil, "table \(table) has no rules")
            for column in columns {
                #expect(rules?.columns.contains { $0.name == column } == true, "\(table).\(column) has no rule")
            }
        }
    }

    /// A sticker's drawn effect damaged into bytes (a TEXT column turns a number into text) still says something was drawn in, before
    /// and after the repair, so the refine brush stays away from it.
    @Test func aDamagedDrawnEffectStillKeepsTheBrushAway() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [90, 140, 200])).photo
        let disc = Bitmap(width: 40, height: 40, color: [200, 30, 30, 255])
        _ = try library.saveSticker(
            id: "comic", photoID: photo.id, selection: "all", outlineWidth: 0, shadow: false, image: disc,
            drawnEffect: "comic")
        library.close()
        let connection = try Connection(path: fixtures.databaseFile.path)
        _ = try connection.run("UPDATE stickers SET effect = X'00FF' WHERE id = 'comic'")
        connection.close()
        let damaged = try fixtures.open()
        #expect(try damaged.sticker("comic").drawnEffect == "unknown")
        let repaired = try damaged.checkHealth(repair: true)
        #expect(!repaired.repairs.isEmpty, "the damaged cell is named and repaired")
        #expect(try damaged.sticker("comic").drawnEffect == "unknown")
        damaged.close()
    }

    @Test func everyDamagedCellIsNamedAndRepairedWithoutLosingAnythingElse() throws {
        let template = try LibraryFixtures()
        let (touched, untouched) = try Self.makeHealthyLibrary(in: template)
        let healthy = try template.open()
        let untouchedBefore = try healthy.collage(untouched)
        let photosBefore = try healthy.photos().count
        #expect(try healthy.checkHealth().isHealthy)
        healthy.close()

        var cases = 0
        for table in CellRules.tables {
            for column in table.columns {
                for (name, value) in Self.damage {
                    let label = "\(table.name).\(column.name) = \(name)"
                    let fixtures = try LibraryFixtures()
                    try FileManager.default.copyItem(at: template.libraryRoot, to: fixtures.libraryRoot)
                    // The touched collage's rows where a table has them, else the table's first row.
                    let connection = try Connection(path: fixtures.databaseFile.path)
                    let target =
                        ["collages", "items", "collage_history"].contains(table.name)
                        ? (table.name == "collages" ? "id = '\(touched)'" : "collage_id = '\(touched)'")
                        : "rowid = (SELECT min(rowid) FROM \"\(table.name)\")"
                    let changed = try? connection.run(
                        "UPDATE \"\(table.name)\" SET \"\(column.name)\" = \(value) WHERE \(target)")
                    connection.close()
                    // A constraint refused it (NOT NULL, CHECK, a key): nothing to read back.
                    guard let changed, changed > 0 else { continue }
                    cases += 1

                    let library = try fixtures.open()
                    defer { library.close() }
                    // Every read a command makes: none may trap, whatever it answers.
                    var failures: [String] = []
                    func read(_ what: String, _ body: () throws -> Void) {
                        do { try body() } catch { failures.append("\(what): \(error)") }
                    }
                    read("photos") { _ = try library.photos() }
                    read("stickers") { _ = try library.stickers() }
                    read("list") { _ = try library.collages() }
                    read("open") { _ = try library.collage(touched) }
                    read("history") { _ = try library.historyState(of: touched) }
                    read("edit") { _ = try library.apply([.rename(title: "Edited")], to: touched) }
                    read("undo") { _ = try library.undo(touched) }
                    read("redo") { _ = try library.redo(touched) }
                    read("gc") { _ = try library.cleanUp(dryRun: true) }
                    read("devices") { _ = try library.devices() }

                    let report = try library.checkHealth()
                    let named = report.damagedCells.contains { $0.table == table.name && $0.column == column.name }
                    let readsFailedOnCell = failures.contains { $0.contains("should hold") }
                    if readsFailedOnCell {
                        #expect(named, "\(label): reads failed (\(failures)) but doctor named nothing: \(report)")
                    }
                    for cell in report.damagedCells {
                        #expect(cell.table == table.name && cell.column == column.name, "\(label): \(cell)")
                        #expect(!cell.row.isEmpty)
                    }

                    let repaired = try library.checkHealth(repair: true)
                    #expect(repaired.repairs.count >= (named ? 1 : 0), "\(label)")
                    let after = try library.checkHealth()
                    #expect(
                        after.damagedCells.isEmpty && after.missingPhotos.isEmpty && after.brokenItems.isEmpty
                            && after.missingStickers.isEmpty, "\(label): after --repair \(after)")
                    // Everything reads again, and what was not damaged is all there.
                    #expect(throws: Never.self, "\(label)") {
                        _ = try library.photos()
                        _ = try library.stickers()
                        _ = try library.collages()
                        _ = try library.historyState(of: untouched)
                    }
                    #expect(try library.collage(untouched).collage == untouchedBefore.collage, "\(label)")
                    let lostPhotos = photosBefore - (try library.photos().count)
                    // Only a photo whose own row was damaged can go (its id changed: its file is lost to it).
                    #expect(lostPhotos <= (table.name == "photos" ? 1 : 0), "\(label): \(lostPhotos) photos gone")
                    if repaired.repairs.contains(where: { $0.hasPrefix("set aside") }) {
                        let quarantined = try library.database.read { connection throws(LibraryError) in
                            try connection.scalar("SELECT count(*) FROM quarantine")
                        }
                        #expect(quarantined != .integer(0), "\(label): nothing kept in quarantine")
                    }
                }
            }
        }
        #expect(cases > 300, "only \(cases) cases could be made")
    }

    @Test func aPhotoAndItsOnlyStickerBothGoneAreRepairedInOnePass() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        defer { library.close() }
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [10, 90, 160])).photo
        let sticker = try library.saveSticker(
            id: "only", photoID: photo.id, selection: "all", outlineWidth: 0, shadow: false,
            image: Bitmap(width: 8, height: 8, color: [1, 2, 3, 255]))
        try FileManager.default.removeItem(at: library.originalFile(of: photo))
        try FileManager.default.removeItem(at: library.stickerFile(of: sticker))
        let repaired = try library.checkHealth(repair: true)
        #expect(repaired.missingPhotos == [photo.id] && repaired.missingStickers == [sticker.id])
        #expect(try library.checkHealth().isHealthy, "a second repair was needed")
    }

    @Test func undoNeverBringsBackAPhotoSetAside() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        defer { library.close() }
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [10, 90, 160])).photo
        let id = try library.createCollage(title: "T", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id])
            .collage.id
        try library.apply([.rename(title: "Renamed")], to: id)
        // A damaged photo row whose file is gone too: it cannot be measured again, so it is set aside.
        try FileManager.default.removeItem(at: library.originalFile(of: photo))
        try library.database.write { connection throws(LibraryError) in
            try connection.run("UPDATE photos SET width = 'x'")
        }
        let repaired = try library.checkHealth(repair: true)
        #expect(repaired.repairs.contains { $0.hasPrefix("set aside") }, "\(repaired)")
        #expect(try library.checkHealth().isHealthy)
        while let undone = try? library.undo(id) {
            #expect(!undone.collage.items.contains { $0.content == .photo(photo.id) }, "undo brought back the photo")
        }
    }

    /// A library with a photo whose file will go (`gone`) and one that stays (`kept`).
    static func libraryWithTwoPhotos() throws -> (LibraryFixtures, Library, gone: PhotoRecord, kept: PhotoRecord) {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let gone = try library.importPhoto(from: try fixtures.photo("gone.png", [10, 90, 160])).photo
        let kept = try library.importPhoto(from: try fixtures.photo("kept.png", [200, 40, 40])).photo
        return (fixtures, library, gone, kept)
    }

    @Test func undoNeverBringsBackAPhotoWhoseFileIsGoneAndOtherStepsStay() throws {
        let (fixtures, library, gone, kept) = try Self.libraryWithTwoPhotos()
        // The folder lives as long as its fixtures.
        defer { withExtendedLifetime(fixtures) { library.close() } }
        let showing = try library.createCollage(
            title: "T", templateID: "grid2x2", aspect: .square, photoIDs: [gone.id, kept.id]
        ).collage.id
        try library.apply([.rename(title: "One")], to: showing)
        try library.apply([.rename(title: "Two")], to: showing)
        let other = try library.createCollage(title: "U", templateID: "grid2x2", aspect: .square, photoIDs: [kept.id])
            .collage.id
        try library.apply([.rename(title: "Other")], to: other)
        try FileManager.default.removeItem(at: library.originalFile(of: gone))
        let repaired = try library.checkHealth(repair: true)
        #expect(try library.checkHealth().isHealthy, "\(repaired)")
        #expect(try library.historyState(of: showing).canUndo == false, "every step showed the photo")
        // The other collage's step shows only the photo that stays: it is kept.
        #expect(try library.undo(other).collage.title == "U")
    }

    @Test func undoNeverBringsBackABackgroundPhotoWhoseFileIsGone() throws {
        let (fixtures, library, gone, kept) = try Self.libraryWithTwoPhotos()
        // The folder lives as long as its fixtures.
        defer { withExtendedLifetime(fixtures) { library.close() } }
        let id = try library.createCollage(title: "T", templateID: "grid2x2", aspect: .square, photoIDs: [kept.id])
            .collage.id
        var style = try library.collage(id).collage.style
        let plain = style.background
        style.background = .photo(reference: gone.id, blur: 20)
        try library.apply([.setStyle(style)], to: id)
        try library.apply([.rename(title: "Then renamed")], to: id)
        // Only earlier steps show it now.
        style.background = plain
        try library.apply([.setStyle(style)], to: id)
        try FileManager.default.removeItem(at: library.originalFile(of: gone))
        let repaired = try library.checkHealth(repair: true)
        #expect(try library.checkHealth().isHealthy, "\(repaired)")
        while let undone = try? library.undo(id) {
            #expect(undone.collage.style.background.photoContent != .photo(gone.id), "undo brought back the background")
        }
    }

    @Test func aBackgroundWhosePhotoIsGoneIsMadeWhiteAndTheCollageRendersAgain() throws {
        let (fixtures, library, gone, kept) = try Self.libraryWithTwoPhotos()
        // The folder lives as long as its fixtures.
        defer { withExtendedLifetime(fixtures) { library.close() } }
        let id = try library.createCollage(title: "T", templateID: "grid2x2", aspect: .square, photoIDs: [kept.id])
            .collage.id
        var style = try library.collage(id).collage.style
        style.background = .photo(reference: gone.id, blur: 20)
        let version = try library.apply([.setStyle(style)], to: id).version
        try FileManager.default.removeItem(at: library.originalFile(of: gone))
        let output = fixtures.directory.appendingPathComponent("after.png")
        func render() throws {
            try CollageRenderer().render(
                try library.collage(id).collage, photos: LibraryPhotoSource(library: library),
                options: RenderOptions(size: .scale(0.25), format: .png), to: output)
        }
        #expect(throws: RenderError.self, "the background's photo is gone") { try render() }
        let found = try library.checkHealth()
        #expect(found.brokenBackgrounds.map(\.collage) == [id] && found.isRepairable, "\(found)")

        let repaired = try library.checkHealth(repair: true)
        #expect(repaired.repairs.contains { $0.contains("background of collage \(id) white") }, "\(repaired.repairs)")
        #expect(!repaired.invalidCollages.contains { $0.collage == id }, "\(repaired.invalidCollages)")
        #expect(try library.checkHealth().isHealthy)
        let after = try library.collage(id)
        #expect(after.collage.style.background == .white)
        #expect(after.version > version, "the repair is a change: an open editor sees a new version")
        #expect(after.collage.items.map(\.content) == [.photo(kept.id)], "the photo that stays stays")
        try render()
        #expect(try Bitmap.read(output)[1, 1] == [255, 255, 255])
    }
}
