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

    /// A look column damaged by hand (not JSON, out of range, a flip on a text) opens the collage
    /// with that item drawn plain; the good looks beside it are kept.
    @Test func aDamagedLookOpensPlainAndTheOthersAreKept() throws {
        let fixtures = try LibraryFixtures()
        var library = try fixtures.open()
        let ids = try photos(library, fixtures, count: 3).map(\.id)
        let id = try library.createCollage(
            title: "Looks", templateID: "grid2x2", aspect: .square, photoIDs: ids
        ).collage.id
        let kept = ItemLook(flipsHorizontally: true, opacity: 0.5)
        _ = try library.apply(
            [
                .setLook(id: "i1", look: kept), .setLook(id: "i2", look: ItemLook(opacity: 0.2)),
                .addItem(id: "t", content: .text(TextBlock(text: "Hi")), frame: nil),
            ], to: id)
        library.close()
        let database = try Connection(path: fixtures.databaseFile.path)
        try database.run("UPDATE items SET look = '{not json' WHERE id = 'i2'")
        try database.run("UPDATE items SET look = '{\"opacity\": 9}' WHERE id = 'i3'")
        try database.run("UPDATE items SET look = '{\"flipHorizontal\": true}' WHERE id = 't'")
        database.close()
        library = try fixtures.open()
        let collage = try library.collage(id).collage
        #expect(collage.item("i1")?.look == kept)
        #expect(collage.items.filter { $0.id != "i1" }.allSatisfy { $0.look.isPlain })
    }

    /// A library keeps the collage it last saved and starts the next change from it while the
    /// row's version and time still match, so what it keeps must be exactly what its rows read
    /// back as, after every kind of change, and another process's save must be seen.
    @Test func theCollageKeptAfterASaveIsWhatItsRowsReadBackAs() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let ids = try photos(library, fixtures, count: 3).map(\.id)
        let id = try library.createCollage(
            title: "Kept", templateID: "grid2x2", aspect: .square, photoIDs: ids
        ).collage.id
        let text = TextBlock(
            text: "Sommer ☀️\nzwei Zeilen", font: "Lobster Two", weight: 700, italic: true, size: 41.25,
            color: Color(red: 1, green: 2, blue: 3, alpha: 4), alignment: .right, lineSpacing: 1.3,
            letterSpacing: -0.125,
            background: TextBackground(color: .white, opacity: 0.33, cornerRadius: 7, padding: 3),
            outline: TextOutline(color: .black, width: 1.5),
            shadow: DropShadow(
                color: Color(red: 9, green: 9, blue: 9, alpha: 200), blur: 2.5, offset: Point(x: -1, y: 3)))
        let changes: [[Edit]] = [
            [.rotateItem(id: "i1", degrees: -33.3333)],
            [.setCrop(id: "i2", crop: Crop(focus: Point(x: 0.123456789, y: 0.9), zoom: 2.75))],
            [.addItem(id: "t", content: .text(text), frame: Rect(x: 10.5, y: 20.25, width: 300, height: 90))],
            [.addItem(id: "s", content: .sticker("sticker-ref"), frame: nil)],
            [.setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 7.5, shadow: false, effect: .comic))],
            [
                .setLook(id: "s", look: ItemLook(flipsHorizontally: true, opacity: 0.37)),
                .setLook(id: "i2", look: ItemLook(flipsVertically: true)),
                .setLook(id: "t", look: ItemLook(opacity: 0.5)),
            ],
            [
                .setStyle(
                    Style(
                        background: .color(Color(red: 250, green: 240, blue: 230, alpha: 128)), spacing: 3,
                        cornerRadius: 9))
            ],
            [.setStyle(Style(background: try Background(parsing: "linear-gradient(33deg, #ff0000, #0000ff80 70%)")))],
            [.setStyle(Style(background: try Background(parsing: "paper(linen)"), spacing: 3, cornerRadius: 9))],
            [.reorder(id: "i1", move: .front), .swapContents(first: "i2", second: "i3")],
            [
                .arrange(
                    frames: [
                        "i1": Rect(x: 0, y: 0, width: 500, height: 500),
                        "i2": Rect(x: 500, y: 0, width: 250.5, height: 500),
                        "i3": Rect(x: 0, y: 500, width: 400, height: 300),
                    ], arrangement: Arrangement(seed: 7, hero: "i1", maximumCrop: 0.2, keepsOrder: false))
            ],
            [.removeItem(id: "i1")],
            [.setAspect(try #require(AspectRatio(parsing: "3:2"))), .rename(title: "Kept, then renamed 🎉")],
            // SQLite stores a U+0000 inside text when told the text's length; up to the NUL, a
            // title and an id would read back cut short.
            [
                .rename(title: "before\u{0}after"),
                .addItem(id: "x\u{0}y", content: .sticker("sticker-ref"), frame: nil),
            ],
        ]
        for edits in changes {
            let saved = try library.apply(edits, to: id)
            let other = try fixtures.open()
            defer { other.close() }
            #expect(try other.collage(id) == saved, "\(edits)")
            #expect(try library.collageToChange(id) == saved, "\(edits)")
        }
        let undone = try library.undo(id)
        #expect(try fixtures.open().collage(id) == undone)
        #expect(try library.collageToChange(id) == undone)
        // Another process's change is seen at once, not the kept collage.
        let elsewhere = try fixtures.open()
        let changedThere = try elsewhere.apply([.rename(title: "Changed elsewhere")], to: id)
        elsewhere.close()
        #expect(try library.collageToChange(id) == changedThere)
        try library.deleteCollage(id)
        #expect(throws: LibraryError.self) { try library.collageToChange(id) }
    }

    @Test func theKeptCollagesAreBoundedInNumberAndBytes() throws {
        let kept = RecentCollages()
        for index in 0..<(RecentCollages.capacity + 40) {
            kept.keep(
                StoredCollage(
                    collage: Collage(
                        id: "c\(index)", title: "small", created: Date(), canvas: Size(width: 100, height: 100)),
                    version: 1))
        }
        #expect(kept["c0"] == nil && kept["c\(RecentCollages.capacity + 39)"] != nil)
        #expect((0..<(RecentCollages.capacity + 40)).filter { kept["c\($0)"] != nil }.count == RecentCollages.capacity)
        // Collages of 200 long texts: only as many as the byte budget holds stay.
        var large = Collage(id: "large", title: "large", created: Date(), canvas: Size(width: 100, height: 100))
        large.items = (0..<200).map { item in
            CollageItem(
                id: "t\(item)", content: .text(TextBlock(text: String(repeating: "ü", count: 8_000))),
                frame: Rect(x: 0, y: 0, width: 100, height: 100))
        }
        let each = RecentCollages.approximateBytes(of: large)
        #expect(each > 3_000_000)
        for index in 0..<40 {
            large.id = "large\(index)"
            kept.keep(StoredCollage(collage: large, version: 1))
        }
        let stayed = (0..<40).filter { kept["large\($0)"] != nil }
        #expect(stayed == Array((40 - RecentCollages.byteBudget / each)..<40), "\(stayed)")
        kept.forget("large39")
        #expect(kept["large39"] == nil)
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
