import CollageCore
import CollageRender
import Foundation
import Testing

@testable import CollageLibrary

/// Undo and redo live in the library: one history per collage, for every editor and the command
/// line, kept across restarts, and bounded.
@Suite("Library: undo history")
struct LibraryHistoryTests {
    @Test func undoAndRedoWalkTheHistoryAndSurviveAReopen() throws {
        let fixtures = try LibraryFixtures()
        var library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [200, 40, 40])).photo
        let created = try library.createCollage(
            title: "History", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id])
        let id = created.collage.id
        #expect(try library.historyState(of: id) == HistoryState(canUndo: false, canRedo: false))
        let turned = try library.apply([.rotateItem(id: "i1", degrees: 20)], to: id)
        let renamed = try library.apply([.rename(title: "Renamed")], to: id)
        #expect(try library.historyState(of: id) == HistoryState(canUndo: true, canRedo: false))

        // A restart in between: the history is in the database, not in a process.
        library.close()
        library = try fixtures.open()
        let back = try library.undo(id, expectedVersion: renamed.version)
        #expect(back.collage.title == "History" && back.collage.items[0].rotation.degrees == 20)
        #expect(back.version == renamed.version + 1, "an undo is a new version, so other editors see it")
        let first = try library.undo(id)
        #expect(first.collage.items[0].rotation == .zero)
        let nothing = #expect(throws: LibraryError.self) { try library.undo(id) }
        #expect(nothing?.description == "collage \(id) has nothing to undo")
        #expect(try library.historyState(of: id) == HistoryState(canUndo: false, canRedo: true))

        let again = try library.redo(id)
        #expect(again.collage.items == turned.collage.items && again.collage.title == "History")
        // A new change after an undo forgets what could be redone.
        _ = try library.apply([.rotateItem(id: "i1", degrees: 5)], to: id)
        #expect(try library.historyState(of: id) == HistoryState(canUndo: true, canRedo: false))
        let noRedo = #expect(throws: LibraryError.self) { try library.redo(id) }
        #expect(noRedo?.description == "collage \(id) has nothing to redo")
        // A stale version is refused and nothing moves.
        let current = try library.collage(id)
        #expect(throws: LibraryError.self) { try library.undo(id, expectedVersion: current.version - 1) }
        #expect(try library.collage(id) == current)
    }

    /// A title typed with pauses is saved at each pause; undo takes the whole retitling back in
    /// one step, to the title before it, not a few letters at a time. Another change, or an undo,
    /// in between keeps the retitlings apart.
    @Test func titlesTypedInTurnAreOneUndoStep() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [200, 40, 40])).photo
        let id = try library.createCollage(
            title: "Untitled", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id]
        ).collage.id
        _ = try library.apply([.rotateItem(id: "i1", degrees: 20)], to: id)
        for title in ["Su", "Summer at", "Summer at the sea"] { try library.rename(id, to: title) }
        let back = try library.undo(id)
        #expect(back.collage.title == "Untitled" && back.collage.items[0].rotation.degrees == 20)
        #expect(try library.redo(id).collage.title == "Summer at the sea")
        // A turn between two retitlings: three steps back to the start.
        _ = try library.apply([.rotateItem(id: "i1", degrees: 30)], to: id)
        try library.rename(id, to: "Summer")
        #expect(try library.undo(id).collage.title == "Summer at the sea")
        #expect(try library.undo(id).collage.items[0].rotation.degrees == 20)
        #expect(try library.undo(id).collage.title == "Untitled")
        // After an undo, a retitling is a step of its own again.
        try library.rename(id, to: "Beach")
        try library.rename(id, to: "Beach day")
        #expect(try library.undo(id).collage.title == "Untitled")
    }

    /// A step that no longer reads (a damaged row) is dropped, not left to block every undo.
    @Test func aDamagedStepIsSkipped() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let id = try library.createCollage(title: "First", templateID: nil, aspect: .square).collage.id
        try library.apply([.rename(title: "Second")], to: id)
        try library.database.write { connection throws(LibraryError) in
            try connection.run(
                "INSERT INTO collage_history (collage_id, stack, position, document) VALUES (?, 'undo', 99, ?)",
                [id, "{not json"])
        }
        let undone = try library.undo(id)
        #expect(undone.collage.title == "First")
        #expect(try library.historyState(of: id).canUndo == false)
    }

    @Test func aRepairLeavesNoStepThatWouldBringBackWhatItRemoved() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let kept = try library.importPhoto(from: try fixtures.photo("kept.png", [20, 160, 90])).photo
        let lost = try library.importPhoto(from: try fixtures.photo("lost.png", [160, 20, 90])).photo
        let id = try library.createCollage(
            title: "Repaired", templateID: "grid2x2", aspect: .square, photoIDs: [kept.id, lost.id]
        ).collage.id
        // The lost photo is taken out (a step that shows it stays in the history), then its file goes.
        try library.apply([.removeItem(id: "i2")], to: id)
        try library.apply([.rename(title: "Later")], to: id)
        try FileManager.default.removeItem(at: library.originalFile(of: lost))
        let report = try library.checkHealth(repair: true)
        #expect(report.missingPhotos == [lost.id] && report.repaired)
        // Undo walks back as far as it can, and never to a collage showing the removed photo.
        while let undone = try? library.undo(id) {
            #expect(!undone.collage.items.contains { $0.content == .photo(lost.id) }, "undo brought back \(lost.id)")
        }
        #expect(try library.collage(id).collage.items.allSatisfy { $0.content != .photo(lost.id) })
    }

    @Test func theHistoryIsBoundedInBytesToo() throws {
        let fixtures = try LibraryFixtures()
        // A small bound, so a few steps of a modest document pass it.
        let limit = 60_000
        let library = try Library(root: fixtures.libraryRoot, historyByteLimit: limit)
        let id = try library.createCollage(title: "Heavy", templateID: nil, aspect: .square).collage.id
        let words = String(repeating: "Words for a long caption. ", count: 20)
        var edits: [Edit] = []
        for index in 0..<4 {
            edits.append(
                .addItem(
                    id: "t\(index)", content: .text(TextBlock(text: words, size: 6)),
                    frame: Rect(x: 20, y: 20 + Double(index) * 200, width: 1100, height: 180)))
        }
        try library.apply(edits, to: id)
        for step in 0..<40 { try library.apply(stepEdits("Step \(step)", step), to: id) }
        let (total, documentBytes) = try library.database.read { connection throws(LibraryError) in
            (
                try connection.scalar("SELECT SUM(length(document)) FROM collage_history WHERE collage_id = ?", [id]),
                try connection.scalar("SELECT MAX(length(document)) FROM collage_history WHERE collage_id = ?", [id])
            )
        }
        guard case .integer(let bytes) = total, case .integer(let largest) = documentBytes else {
            Issue.record("no history: \(total)")
            return
        }
        #expect(40 * largest > Int64(limit), "the steps together would pass the bound")
        #expect(bytes <= Int64(limit), "\(bytes) bytes of history kept for \(largest)-byte documents")
        var undone = 0
        while (try? library.undo(id)) != nil { undone += 1 }
        #expect(undone >= 5 && undone < 40, "\(undone) of 41 steps kept")
        #expect(try library.collage(id).collage.title != "Heavy", "the oldest steps were forgotten first")
    }

    @Test func smallStepsSummedOnlyNowAndThenStillKeepTheBound() throws {
        let fixtures = try LibraryFixtures()
        let first = try Library(root: fixtures.libraryRoot)
        let id = try captioned(in: first, title: "Light", captions: 1, sentences: 10)
        try first.apply(stepEdits("Step 00", 0), to: id)
        let documentBytes = try historyBytes(first, id, "MAX")
        // Each step is under a 64th of the bound, so the bytes are summed only every 8th step.
        let limit = Int(documentBytes) * 70
        let library = try Library(root: fixtures.libraryRoot, historyByteLimit: limit)
        for step in 1..<99 { try library.apply(stepEdits("Step \(step < 10 ? "0" : "")\(step)", step), to: id) }
        let bytes = try historyBytes(library, id, "SUM")
        #expect(bytes <= Int64(limit), "\(bytes) bytes of history kept under a bound of \(limit)")
        var undone = 0
        while (try? library.undo(id)) != nil { undone += 1 }
        #expect(undone >= 50 && undone < 70, "\(undone) of 100 steps kept under a bound of 70 steps")
    }

    @Test func aLargeStepKeptAloneDoesNotStayWithSmallStepsPastTheBound() throws {
        let fixtures = try LibraryFixtures()
        let first = try Library(root: fixtures.libraryRoot)
        let id = try captioned(in: first, title: "Heavy", captions: 15, sentences: 60)
        try first.apply(stepEdits("b", 1), to: id)
        let large = try historyBytes(first, id, "MAX")
        // The next large step nearly fills the bound alone: the small steps after it must not
        // be kept beside it.
        let limit = Int(large) * 64 / 63
        let library = try Library(root: fixtures.libraryRoot, historyByteLimit: limit)
        try library.apply((0..<15).map { .removeItem(id: "t\($0)") }, to: id)
        for step in 0..<3 {
            try library.apply(stepEdits("s\(step)", step), to: id)
            let bytes = try historyBytes(library, id, "SUM")
            #expect(bytes <= Int64(limit), "after small step \(step): \(bytes) bytes kept under a bound of \(limit)")
        }
    }

    @Test func theHistoryIsBoundedAndGoesWithItsCollage() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let id = try library.createCollage(title: "Long", templateID: nil, aspect: .square).collage.id
        for step in 0..<(Library.historyLimit + 20) {
            try library.apply(stepEdits("Step \(step)", step), to: id)
        }
        var undone = 0
        while (try? library.undo(id)) != nil { undone += 1 }
        #expect(undone == Library.historyLimit)
        #expect(try library.collage(id).collage.title == "Step 19", "the oldest steps were forgotten first")

        try library.deleteCollage(id)
        let rows = try library.database.read { connection throws(LibraryError) in
            try connection.scalar("SELECT COUNT(*) FROM collage_history WHERE collage_id = ?", [id])
        }
        #expect(rows == .integer(0))
    }

    /// A photo taken out of every collage but still in a step that undo can bring back is kept
    /// by gc: undoing must not produce a collage whose photo is gone.
    @Test func gcKeepsPhotosTheHistoryCanBringBack() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("kept.png", [20, 160, 90])).photo
        let id = try library.createCollage(title: "Kept", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id])
            .collage.id
        try library.apply([.removeItem(id: "i1")], to: id)
        _ = try library.cleanUp()
        let restored = try library.undo(id)
        #expect(restored.collage.items.map(\.content) == [.photo(photo.id)])
        #expect(FileManager.default.fileExists(atPath: library.originalFile(of: try library.photo(photo.id)).path))

        // Once no step holds it either (the collage is gone), the photo is still the person's.
        try library.deleteCollage(id)
        _ = try library.cleanUp()
        #expect(try library.photos().map(\.id) == [photo.id])
        #expect(FileManager.default.fileExists(atPath: library.originalFile(of: try library.photo(photo.id)).path))
    }

    /// A new collage holding `captions` texts (ids t0, t1, …) of `sentences` short sentences each.
    private func captioned(in library: Library, title: String, captions: Int, sentences: Int) throws -> String {
        let id = try library.createCollage(title: title, templateID: nil, aspect: .square).collage.id
        let words = String(repeating: "Words for a caption. ", count: sentences)
        try library.apply(
            (0..<captions).map { index in
                .addItem(
                    id: "t\(index)", content: .text(TextBlock(text: words, size: 6)),
                    frame: Rect(x: 20, y: 20 + Double(index) * 60, width: 1100, height: 50))
            }, to: id)
        return id
    }

    /// One small step of a long history: a new title and corners turned square or round in
    /// turn (titles alone, one after another, would be one step).
    private func stepEdits(_ title: String, _ step: Int) -> [Edit] {
        [.rename(title: title), .setStyle(Style(cornerRadius: Double(step % 2)))]
    }

    /// The `aggregate` (SUM or MAX) of the byte lengths of collage `id`'s history steps.
    private func historyBytes(_ library: Library, _ id: String, _ aggregate: String) throws -> Int64 {
        let value = try library.database.read { connection throws(LibraryError) in
            try connection.scalar(
                "SELECT \(aggregate)(length(document)) FROM collage_history WHERE collage_id = ?", [id])
        }
        guard case .integer(let bytes) = value else { throw HistoryBytesMissing(value: "\(String(describing: value))") }
        return bytes
    }
}

/// A history with no steps where a test expected some.
private struct HistoryBytesMissing: Error {
    let value: String
}
