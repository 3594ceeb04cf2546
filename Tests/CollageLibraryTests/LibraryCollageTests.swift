import CollageCore
import CollageRender
import Foundation
import Testing

@testable import CollageLibrary

@Suite("Library: collages")
struct LibraryCollageTests {
    func photos(_ library: Library, _ fixtures: LibraryFixtures, count: Int) throws -> [PhotoRecord] {
        try (0..<count).map { index in
            try library.importPhoto(from: try fixtures.photo("p\(index).png", [UInt8(index * 60), 100, 30])).photo
        }
    }

    @Test func createdCollagesSurviveAReopen() throws {
        let fixtures = try LibraryFixtures()
        var library = try fixtures.open()
        let ids = try photos(library, fixtures, count: 3).map(\.id)
        let created = try library.createCollage(
            title: "Trip 🏖", templateID: "magazine", aspect: try #require(AspectRatio(parsing: "4:5")), photoIDs: ids)
        #expect(created.version == 1 && created.collage.items.map(\.slot) == [0, 1, 2])
        var edited = try library.apply(
            [
                .rotateItem(id: "i2", degrees: 12),
                .setCrop(id: "i1", crop: Crop(focus: Point(x: 0.2, y: 0.3), zoom: 2)),
            ],
            to: created.collage.id)
        edited = try library.apply(
            [.addItem(id: "s", content: .sticker("sticker-ref"), frame: nil)], to: created.collage.id)
        library.close()
        library = try fixtures.open()
        #expect(try library.collage(created.collage.id) == edited)
        #expect(edited.version == 3)
    }

    @Test func everyWriteBumpsTheVersionAndStaleVersionsAreRefused() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let id = try library.createCollage(title: "A", templateID: "grid2x2", aspect: .square).collage.id
        let renamed = try library.rename(id, to: "B", expectedVersion: 1)
        #expect(renamed.version == 2)
        #expect(throws: LibraryError.self) { try library.rename(id, to: "C", expectedVersion: 1) }
        #expect(try library.collage(id).collage.title == "B")
        // A refused edit changes nothing either.
        #expect(throws: LibraryError.self) { try library.apply([.removeItem(id: "nope")], to: id) }
        #expect(try library.collage(id).version == 2)
    }

    @Test func listIsNewestFirstWithItemCounts() throws {
        let fixtures = try LibraryFixtures()
        let clock = Clock()
        let library = try fixtures.open(now: clock.now)
        let ids = try photos(library, fixtures, count: 2).map(\.id)
        let first = try library.createCollage(title: "First", templateID: "strip", aspect: .square, photoIDs: ids)
        let second = try library.createCollage(title: "Second", templateID: "strip", aspect: .square)
        #expect(try library.collages().map(\.title) == ["Second", "First"])
        try library.rename(first.collage.id, to: "First, edited")
        let list = try library.collages()
        #expect(list.map(\.id) == [first.collage.id, second.collage.id])
        #expect(list.map(\.itemCount) == [2, 0])
    }

    @Test func duplicateAndDeleteCascade() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let ids = try photos(library, fixtures, count: 2).map(\.id)
        let original = try library.createCollage(
            title: "Original", templateID: "grid2x2", aspect: .square, photoIDs: ids)
        let copy = try library.duplicate(original.collage.id)
        #expect(copy.collage.id != original.collage.id && copy.collage.title == "Original copy")
        #expect(copy.collage.items == original.collage.items && copy.version == 1)
        try library.deleteCollage(original.collage.id)
        #expect(throws: LibraryError.self) { try library.collage(original.collage.id) }
        let orphans = try library.database.read { connection throws(LibraryError) in
            try connection.scalar("SELECT COUNT(*) FROM items WHERE collage_id = ?", [original.collage.id])
        }
        #expect(orphans == .integer(0), "deleting a collage deletes its items")
        #expect(try library.collage(copy.collage.id).collage.items.count == 2)
    }

    @Test func exportRendersFromTheLibrary() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("red.png", [220, 20, 20])).photo
        let stored = try library.createCollage(title: "E", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id])
        let output = fixtures.directory.appendingPathComponent("export.png")
        try CollageRenderer().render(
            stored.collage, photos: LibraryPhotoSource(library: library),
            options: RenderOptions(size: .scale(0.5), format: .png), to: output)
        let image = try Bitmap.read(output)
        let center = stored.collage.items[0].frame.center
        #expect(image[Int(center.x / 2), Int(center.y / 2)] == [220, 20, 20])
        // A photo whose original went missing is named in the error.
        try FileManager.default.removeItem(at: library.originalFile(of: photo))
        #expect {
            try CollageRenderer().render(
                stored.collage, photos: LibraryPhotoSource(library: library), to: output)
        } throws: { error in
            "\(error)".contains("missing") && "\(error)".contains(photo.id)
        }
    }
}

/// A clock that moves a second forward each time it is read, so orderings are certain.
final class Clock: Sendable {
    private let ticks = Counter()
    var now: @Sendable () -> Date {
        { [ticks] in Date(timeIntervalSince1970: 1_800_000_000 + Double(ticks.next())) }
    }
}

final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.withLock {
            value += 1; return value
        }
    }
}
