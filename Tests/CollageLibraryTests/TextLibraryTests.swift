import CollageCore
import Foundation
import Testing

@testable import CollageLibrary

@Suite("Library: text items")
struct TextLibraryTests {
    static let caption = TextBlock(
        text: "Day one\nيوم · 一日目 🌊", font: "Roboto Slab", weight: 700, size: 40, alignment: .right,
        background: TextBackground(), outline: TextOutline(width: 1), shadow: DropShadow())

    @Test func aTextItemSurvivesARestartAndComesBackWithUndo() throws {
        let fixtures = try LibraryFixtures()
        var library = try fixtures.open()
        let made = try library.createCollage(title: "Trip", templateID: "grid2x2", aspect: .square)
        let frame = Rect(x: 100, y: 100, width: 600, height: 120)
        _ = try library.apply([.addItem(id: "t", content: .text(Self.caption), frame: frame)], to: made.collage.id)
        var changed = Self.caption
        changed.text = "Day two"
        _ = try library.apply([.setText(id: "t", text: changed)], to: made.collage.id)
        library.close()

        library = try fixtures.open()
        let stored = try library.collage(made.collage.id)
        #expect(stored.collage.item("t")?.content == .text(changed))
        #expect(stored.collage.item("t")?.frame == frame)
        let undone = try library.undo(made.collage.id)
        #expect(undone.collage.item("t")?.content == .text(Self.caption), "the words before the change come back")
        // Text items name no file: the health check finds nothing missing.
        let report = try library.checkHealth(repair: false)
        #expect(report.brokenItems.isEmpty)
    }

    /// A library at schema 5 keeps its items, photos and stickers alike, when the items table is
    /// rebuilt to take text.
    @Test func aSchemaFiveLibraryKeepsItsItemsAndThenTakesText() throws {
        let fixtures = try LibraryFixtures()
        try FileManager.default.createDirectory(at: fixtures.libraryRoot, withIntermediateDirectories: true)
        let connection = try Connection(path: fixtures.databaseFile.path)
        for migration in Schema.migrations.prefix(5) { try connection.execute(migration.sql) }
        try connection.execute("PRAGMA user_version = 5")
        try connection.execute("PRAGMA application_id = \(Library.applicationID)")
        try connection.run(
            """
            INSERT INTO collages (id, title, created_at, updated_at, canvas_width, canvas_height, background,
                spacing, padding, corner_radius, template_id, version)
            VALUES ('old', 'Made before', 0, 0, 1200, 1200, '#ffffff', 12, 12, 0, NULL, 4)
            """)
        try connection.run(
            """
            INSERT INTO items (collage_id, id, z, kind, ref, x, y, width, height, rotation, crop_x, crop_y,
                crop_zoom, slot, outline, shadow)
            VALUES ('old', 'a', 0, 'photo', 'abc', 10, 20, 300, 200, 5, 0.25, 0.75, 2, NULL, NULL, NULL),
                   ('old', 'b', 1, 'sticker', 'def', 400, 20, 200, 200, 0, NULL, NULL, NULL, NULL, 8, 1)
            """)
        connection.close()

        let library = try fixtures.open()
        let before = try library.collage("old").collage
        #expect(before.items.map(\.id) == ["a", "b"])
        #expect(before.items[0].crop == Crop(focus: Point(x: 0.25, y: 0.75), zoom: 2))
        #expect(before.items[1].stickerStyle == StickerStyle(outlineWidth: 8, shadow: true))
        let after = try library.apply(
            [.addItem(id: "t", content: .text(Self.caption), frame: Rect(x: 50, y: 900, width: 800, height: 80))],
            to: "old")
        #expect(after.collage.items.map(\.content.kind) == ["photo", "sticker", "text"])
        let counts = try library.database.read { connection throws(LibraryError) in
            try connection.scalar("SELECT COUNT(*) FROM items WHERE kind = 'text' AND text IS NOT NULL")
        }
        #expect(counts == .integer(1))
    }
}
