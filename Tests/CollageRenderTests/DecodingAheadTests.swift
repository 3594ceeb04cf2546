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
        func render(_ name: String, decodingAhead: Bool) throws -> Bitmap {
            var renderer = CollageRenderer()
            renderer.decodesAhead = decodingAhead
            let output = fixtures.url(name)
            try renderer.render(
                collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), options: options, to: output)
            return try Bitmap.read(output)
        }
        let ahead = try render("ahead.png", decodingAhead: true)
        // Without it the photos decode as the file is written, strip by strip.
        let lazy = try render("lazy.png", decodingAhead: false)
        // Decoded ahead, a JPEG's crop is shrunk by the region reader's own resampler, which
        // rounds unlike libvips'.
        let (largest, mean) = JPEGRegionTests.difference(ahead.pixels, lazy.pixels)
        #expect(largest <= 10 && mean < 0.2, "\(largest), \(mean)")
        #expect((ahead.width, ahead.height) == (1200, 1200))
    }

    @Test func aPhotoMissingAfterOthersAreDecodingFailsTheRenderNamingIt() throws {
        let fixtures = try RenderFixtures()
        var photos: [URL] = []
        for index in 0..<3 {
            let bitmap = try #require(Self.texturedPhoto(index, width: 1600, height: 1200))
            let file = fixtures.url("p\(index).jpg")
            try bitmap.write(to: file, format: .jpeg)
            photos.append(file)
        }
        // The first photos are decoding when the fourth is found missing.
        photos.append(fixtures.url("gone.jpg"))
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: photos)
        let output = fixtures.url("out.png")
        let error = #expect(throws: RenderError.self) {
            try CollageRenderer().render(
                collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
                options: RenderOptions(size: .longSide(1200), format: .png), to: output)
        }
        #expect(error?.description.contains("gone.jpg") == true, "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        // The same renderer's next collage is whole: nothing was left holding the decoders.
        let whole = try fixtures.render(
            try RenderFixtures.collage(template: "grid2x2", photos: Array(photos.prefix(3))), "whole.png",
            options: RenderOptions(size: .longSide(600), format: .png))
        #expect((whole.width, whole.height) == (600, 600))
    }
}
