import CollageRender
import Foundation
import Testing

@Suite("Bitmap files")
struct BitmapFileTests {
    /// Noise, so the compressor cannot get away with long runs, plus a gradient, so the "up"
    /// filter has rows worth subtracting.
    static func pattern(width: Int, height: Int, channels: Int) -> Bitmap? {
        var state: UInt32 = 2_463_534_242
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for index in pixels.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let row = index / (width * channels)
            pixels[index] = UInt8(truncatingIfNeeded: row + Int(state % 8))
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The PNG writer deflates bands of rows on several threads and stitches them into one
    /// stream; libvips' own decoder (which checks every CRC and the Adler-32) must read back
    /// exactly the pixels written, from one band and from several.
    @Test(arguments: [(1, 7), (3, 40), (4, 40), (3, 700), (4, 1_000)])
    func pngRoundTripsExactly(channels: Int, height: Int) throws {
        let fixtures = try RenderFixtures()
        let original = try #require(Self.pattern(width: 333, height: height, channels: channels))
        let file = fixtures.url("round-trip-\(channels)-\(height).png")
        try original.write(to: file, format: .png)
        let bytes = [UInt8](try Data(contentsOf: file))
        #expect(bytes.starts(with: [137, 80, 78, 71, 13, 10, 26, 10]))
        let decoded = try Bitmap.read(file)
        #expect(decoded.width == 333 && decoded.height == height)
        // Reading gives sRGB: a grey file comes back with its value in all three channels.
        let readBack =
            channels == 1
            ? stride(from: 0, to: decoded.pixels.count, by: decoded.channels).map { decoded.pixels[$0] }
            : decoded.pixels
        #expect(decoded.channels == max(3, channels))
        #expect(readBack == original.pixels, "\(channels) channels, \(height) rows differ")
    }
}
