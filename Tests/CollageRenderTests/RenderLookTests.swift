import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: flip and opacity")
struct RenderLookTests {
    /// A 200-point square canvas filled by one photo of quadrants (red, green / blue, white).
    func quadrantsCollage(_ fixtures: RenderFixtures, look: ItemLook, degrees: Double = 0) throws -> Collage {
        let file = fixtures.url("quadrants.png")
        try RenderFixtures.quadrants(width: 200, height: 200).write(to: file, format: .png)
        let collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 200, height: 200))
        return try collage.applying([
            .addItem(id: "p", content: .photo(file.path), frame: Rect(x: 0, y: 0, width: 200, height: 200)),
            .setLook(id: "p", look: look), .rotateItem(id: "p", degrees: degrees),
        ])
    }

    /// The four quadrants' colours of a render, read at their middles.
    func corners(_ image: Bitmap) -> [[UInt8]] {
        let (a, b) = (image.width / 4, image.width * 3 / 4)
        return [image[a, a], image[b, a], image[a, b], image[b, b]].map { Array($0.prefix(3)) }
    }

    @Test(
        arguments: [
            (ItemLook(flipsHorizontally: true), 0.0, [[0, 255, 0], [255, 0, 0], [255, 255, 255], [0, 0, 255]]),
            (ItemLook(flipsVertically: true), 0, [[0, 0, 255], [255, 255, 255], [255, 0, 0], [0, 255, 0]]),
            (
                ItemLook(flipsHorizontally: true, flipsVertically: true), 0,
                [[255, 255, 255], [0, 0, 255], [0, 255, 0], [255, 0, 0]]
            ),
            // Mirrored first, then turned a quarter clockwise about its centre.
            (ItemLook(flipsHorizontally: true), 90, [[255, 255, 255], [0, 255, 0], [0, 0, 255], [255, 0, 0]]),
        ] as [(ItemLook, Double, [[UInt8]])])
    func aFlippedPhotoIsMirroredInItsFrameBeforeItIsTurned(look: ItemLook, degrees: Double, expected: [[UInt8]]) throws
    {
        let fixtures = try RenderFixtures()
        let collage = try quadrantsCollage(fixtures, look: look, degrees: degrees)
        let image = try fixtures.render(collage, "flipped.png", options: RenderOptions(size: .scale(1), format: .png))
        let found = corners(image)
        for (colour, wanted) in zip(found, expected) { #expect(close(colour, wanted), "\(found) ≠ \(expected)") }
    }

    @Test func opacityFadesThePhotoOverTheBackgroundOrIntoAlpha() throws {
        let fixtures = try RenderFixtures()
        let faded = try quadrantsCollage(fixtures, look: ItemLook(opacity: 0.5))
        let onWhite = try fixtures.render(faded, "white.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(close(corners(onWhite)[0], [255, 128, 128], tolerance: 3), "half red over white")
        var clear = faded
        clear.style.background = .transparent
        let seeThrough = try fixtures.render(clear, "clear.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(seeThrough.channels == 4)
        let pixel = seeThrough[50, 50]
        #expect(close(pixel, [255, 0, 0, 128], tolerance: 3), "\(pixel)")
    }

    /// An item at opacity 0 is not drawn or even decoded: a missing photo does not matter.
    @Test func anInvisibleItemIsNotDecoded() throws {
        let fixtures = try RenderFixtures()
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 100, height: 100))
        collage = try collage.applying([
            .addItem(id: "gone", content: .photo("missing.png"), frame: nil),
            .setLook(id: "gone", look: ItemLook(opacity: 0)),
        ])
        let image = try fixtures.render(collage, "none.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(image[50, 50].prefix(3) == [255, 255, 255])
    }

    /// A sticker is mirrored before its shadow is drawn: turned upside down, its shadow still
    /// falls below it. The editor's drawn sticker is the same cell.
    @Test func aFlippedStickersShadowStillFallsDown() throws {
        let fixtures = try RenderFixtures()
        // A red bar over the top half of a 100-pixel square; the bottom half is clear.
        var bar = Bitmap(width: 100, height: 100, color: [0, 0, 0, 0])
        for y in 0..<50 { for x in 20..<80 { bar[x, y] = [220, 20, 20, 255] } }
        try bar.write(to: fixtures.url("bar.png"), format: .png)
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 200, height: 200))
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("bar.png"), frame: Rect(x: 50, y: 50, width: 100, height: 100)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 0, shadow: true)),
            .setLook(id: "s", look: ItemLook(flipsVertically: true)),
        ])
        let image = try fixtures.render(collage, "bar-out.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(close(image[100, 125], [220, 20, 20]), "the bar is now in the bottom half")
        #expect(close(image[100, 75], [255, 255, 255], tolerance: 20), "and the top half is clear")
        let below = Int(image[100, 152][0]), above = Int(image[100, 97][0])
        #expect(below < above - 10, "darker just below the bar (\(below)) than just above it (\(above))")
        let item = try #require(collage.item("s"))
        let drawn = try CollageRenderer().writeDrawnItem(
            item, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), scale: 1,
            to: fixtures.url("drawn.png"))
        let cell = try Bitmap.read(fixtures.url("drawn.png"))
        #expect(close(cell[50 - drawn.offsetX, 75 - drawn.offsetY], [220, 20, 20, 255]))
        #expect(cell[50 - drawn.offsetX, 25 - drawn.offsetY][3] < 60, "the drawn sticker is flipped too")
    }
}
