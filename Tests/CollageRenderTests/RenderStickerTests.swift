import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: stickers")
struct RenderStickerTests {
    /// A 200 × 200 RGBA image: an opaque red disc of radius 60 in the middle, transparent around it.
    static func disc() -> Bitmap {
        var bitmap = Bitmap(width: 200, height: 200, color: [0, 0, 0, 0])
        for y in 0..<200 {
            for x in 0..<200
            where (Double(x) - 99.5) * (Double(x) - 99.5) + (Double(y) - 99.5) * (Double(y) - 99.5) <= 3600 {
                bitmap[x, y] = [220, 20, 20, 255]
            }
        }
        return bitmap
    }

    func render(style: StickerStyle?) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        try Self.disc().write(to: fixtures.url("disc.png"), format: .png)
        var collage = Collage(id: "s", title: "s", created: Date(), canvas: Size(width: 400, height: 400))
        collage.style.background = .transparent
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("disc.png"), frame: Rect(x: 100, y: 100, width: 200, height: 200)),
            .setStickerStyle(id: "s", style: style),
        ])
        return try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(1), format: .png))
    }

    /// The editor's sticker image is the renderer's own cell (the same outline pixels as an
    /// export), and however large the scale and outline asked for, it stays within its budget.
    @Test func aStyledStickerIsTheExportsCellAndStaysWithinItsBudget() throws {
        let fixtures = try RenderFixtures()
        try Self.disc().write(to: fixtures.url("disc.png"), format: .png)
        let item = CollageItem(
            id: "s", content: .sticker("disc.png"), frame: Rect(x: 100, y: 100, width: 200, height: 200),
            stickerStyle: StickerStyle(outlineWidth: 10, shadow: false))
        let source = DirectoryPhotoSource(baseDirectory: fixtures.directory)
        let drawn = try CollageRenderer().writeDrawnItem(
            item, photos: source, scale: 1, to: fixtures.url("styled.png"))
        let image = try Bitmap.read(fixtures.url("styled.png"))
        #expect(drawn.scale == 1 && image.width == drawn.width && image.height == drawn.height)
        // The export puts this image's top-left at the frame's plus the offset: the outline
        // ring and the disc sit where `outlinePixelsAreWhiteAndOpaque` finds them.
        let centre = (100 - drawn.offsetX, 100 - drawn.offsetY)
        #expect(image[centre.0, centre.1] == [220, 20, 20, 255])
        #expect(image[centre.0, centre.1 - 65] == [255, 255, 255, 255], "the outline, 5 px past the disc")
        // A tiny frame with the widest outline at the largest scale: lowered to fit the budget.
        let huge = CollageItem(
            id: "h", content: .sticker("disc.png"), frame: Rect(x: 0, y: 0, width: 20, height: 20),
            stickerStyle: StickerStyle(outlineWidth: StickerStyle.maximumOutlineWidth, shadow: true))
        let bounded = try CollageRenderer().writeDrawnItem(
            huge, photos: source, scale: Limits.exportScale.upperBound, to: fixtures.url("huge.png"))
        #expect(bounded.scale < Limits.exportScale.upperBound)
        #expect(bounded.width * bounded.height <= CollageRenderer.maximumDrawnItemPixels * 11 / 10)
        #expect(throws: RenderError.self) {
            try CollageRenderer().writeDrawnItem(item, photos: source, scale: .nan, to: fixtures.url("nan.png"))
        }
    }

    @Test func outlinePixelsAreWhiteAndOpaque() throws {
        let image = try render(style: StickerStyle(outlineWidth: 10, shadow: false))
        #expect(image[200, 200] == [220, 20, 20, 255], "the subject itself")
        // The disc's edge is 60 px from the centre; 5 px beyond it lies inside a 10 px outline.
        for (x, y) in [(200, 135), (265, 200), (200, 265), (135, 200)] {
            #expect(image[x, y] == [255, 255, 255, 255], "outline at \(x),\(y): \(image[x, y])")
        }
        #expect(image[200, 120][3] == 0, "beyond the outline stays transparent")
        #expect(image[5, 5][3] == 0)
    }

    @Test func withoutStyleTheStickerIsJustItsSubject() throws {
        let image = try render(style: nil)
        #expect(image[200, 200] == [220, 20, 20, 255])
        #expect(image[200, 135][3] == 0, "no outline")
        #expect(image[110, 110][3] == 0, "the sticker's own transparent corners")
    }

    @Test func shadowDarkensBelowNotAbove() throws {
        let image = try render(style: StickerStyle(outlineWidth: 0, shadow: true))
        let below = image[200, 268]
        let above = image[200, 128]
        #expect(below[3] > 20 && below[0] < 40, "a soft dark shadow below: \(below)")
        #expect(above[3] < below[3], "less shadow above than below")
    }
}
