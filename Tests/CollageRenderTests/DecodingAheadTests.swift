import CollageCore
import Foundation
import Testing

@testable import CollageRender

@Suite("Renderer: photos decoded ahead of the write")
struct DecodingAheadTests {
    /// A photo whose every pixel differs from its neighbours, so a cell drawn from the wrong
    /// rows, or from another photo, shows.
    static func texturedPhoto(_ seed: Int, width: Int, height: Int) -> Bitmap? {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(truncatingIfNeeded: x &+ seed &* 40)
                pixels[offset + 1] = UInt8(truncatingIfNeeded: y &* 3 &+ seed)
                pixels[offset + 2] = UInt8(truncatingIfNeeded: (x ^ y) &+ seed &* 17)
            }
        }
        return Bitmap(width: width, height: height, channels: 3, pixels: pixels)
    }

    @Test func theCollageIsThePictureComposedWithoutDecodingAhead() throws {
        let fixtures = try RenderFixtures()
        var photos: [URL] = []
        for index in 0..<6 {
            let bitmap = try #require(Self.texturedPhoto(index, width: 600 + index * 40, height: 450))
            let file = fixtures.url("p\(index).jpg")
            try bitmap.write(to: file, format: .jpeg)
            photos.append(file)
        }
        let collage = try RenderFixtures.collage(template: "grid3x3", photos: photos)
        let options = RenderOptions(size: .longSide(1200), format: .png)
        let ahead = try fixtures.render(collage, "ahead", options: options)
        // With the memory reserve held elsewhere, the photos decode as the file is written.
        var taken = 0
        while MemoryReserve.take(MemoryReserve.perRender) { taken += MemoryReserve.perRender }
        defer { MemoryReserve.give(taken) }
        let spare = MemoryReserve.take(6 * 400 * 400 * 3)
        if spare { MemoryReserve.give(6 * 400 * 400 * 3) }
        #expect(!spare, "the reserve is held")
        let lazy = try fixtures.render(collage, "lazy", options: options)
        #expect(ahead.pixels == lazy.pixels)
        #expect((ahead.width, ahead.height) == (1200, 1200))
    }
}
