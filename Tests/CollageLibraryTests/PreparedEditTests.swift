import CollageCore
import Foundation
import Testing

@testable import CollageLibrary

/// An edit made from the collage as the caller read it is saved without reading it again, and
/// only the rows that changed are written. These check that the result is always what applying
/// the edits to the stored collage gives, whatever happened between the read and the write.
struct PreparedEditTests {
    private func collage(in library: Library, fixtures: LibraryFixtures) throws -> StoredCollage {
        let photos = try (0..<3).map { index in
            try library.importPhoto(from: fixtures.photo("p\(index).png", [UInt8(40 * index), 90, 200])).photo.id
        }
        return try library.createCollage(title: "Base", templateID: "grid2x2", aspect: .square, photoIDs: photos)
    }

    @Test func aPreparedEditSavesWhatTheStoredCollageReadsBackAs() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let base = try collage(in: library, fixtures: fixtures)
        let edits: [Edit] = [
            .rotateItem(id: "i2", degrees: 12.5), .reorder(id: "i1", move: .front), .removeItem(id: "i3"),
            .addItem(
                id: "t1", content: .text(TextBlock(text: "Hello", size: 30)),
                frame: Rect(x: 20, y: 30, width: 300, height: 80)),
            .rename(title: "Changed"),
        ]
        let saved = try library.apply(edits, to: base.collage.id, expectedVersion: base.version, base: base)
        #expect(saved.version == base.version + 1)
        let expected = try base.collage.applying(edits)
        #expect(saved.collage.items == expected.items)
        // Read back from the file by another library: the rows, z-order included, hold it.
        library.close()
        let reopened = try fixtures.open()
        let stored = try reopened.collage(base.collage.id)
        #expect(stored == saved)
        #expect(stored.collage.items.map(\.id) == ["i2", "i1", "t1"])
        #expect(try reopened.undo(base.collage.id).collage.items == base.collage.items)
    }

    @Test func aPreparedEditOnAnOlderReadAppliesToTheStoredCollage() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let base = try collage(in: library, fixtures: fixtures)
        // Another writer moves the collage on after this caller read it.
        try library.apply([.rename(title: "Elsewhere"), .removeItem(id: "i3")], to: base.collage.id)
        let saved = try library.apply([.rotateItem(id: "i1", degrees: 30)], to: base.collage.id, base: base)
        #expect(saved.version == base.version + 2)
        #expect(saved.collage.title == "Elsewhere")
        #expect(saved.collage.item("i3") == nil)
        #expect(saved.collage.item("i1")?.rotation.degrees == 30)
        #expect(try library.collage(base.collage.id) == saved)
        // With the version it read named, the caller is told it is stale, and nothing is saved.
        #expect(throws: LibraryError.self) {
            try library.apply(
                [.rotateItem(id: "i2", degrees: 5)], to: base.collage.id, expectedVersion: base.version, base: base)
        }
        #expect(try library.collage(base.collage.id) == saved)
    }

    @Test func aPreparedEditThatTheStoredCollageRefusesIsRefused() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let base = try collage(in: library, fixtures: fixtures)
        try library.apply([.removeItem(id: "i2")], to: base.collage.id)
        // Fine on what the caller read, but the item is gone from what is stored.
        #expect(throws: LibraryError.self) {
            try library.apply([.rotateItem(id: "i2", degrees: 5)], to: base.collage.id, base: base)
        }
        #expect(try library.collage(base.collage.id).collage.item("i2") == nil)
    }

    @Test func theWALIsCopiedBackWhileABusyLibraryWrites() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let base = try collage(in: library, fixtures: fixtures)
        let wal = URL(fileURLWithPath: fixtures.databaseFile.path + "-wal")
        var largest = 0
        for step in 0..<600 {
            try library.apply([.rotateItem(id: "i1", degrees: Double(step % 300) - 150)], to: base.collage.id)
            let size = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
            largest = max(largest, size)
            // A person's edits come with pauses; a checkpoint behind a write that never stops
            // cannot finish, and the WAL starts again from its beginning only after one does.
            if step % 32 == 31 { usleep(100_000) }
        }
        // 600 edits write several thousand pages; SQLite's own checkpoint waits for 1,000 in
        // the WAL (4.1 MB, which it always reaches here without the background checkpoints).
        // With them it starts again well before (seen: 0.9–2.4 MB).
        #expect(largest > 0)
        #expect(largest < 3_600_000, "the WAL grew to \(largest) bytes")
    }
}
