import Foundation
import Testing

@testable import CollageRender

/// The one palette of a moving sticker's frames, as a messenger's byte limit makes it small.
struct StickerPaletteTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples")

    /// The sample cat at 24 colours (a pack of moving stickers for Signal, at its smallest): a
    /// median cut gave its olive eyes the brown of its fur. Here the photo's own browns with two
    /// olive eyes as large as a sticker's (their green about their red, well above their blue):
    /// they keep a colour of that olive, and the fur keeps its browns.
    @Test func aSmallPartKeepsItsHueOnAFewColourPalette() throws {
        let cat = try Bitmap.read(Self.samples.appendingPathComponent("chelsea.png"))
        var frame = [UInt8](repeating: 255, count: cat.width * cat.height * 4)
        var eyes: [Int] = []
        for y in 0..<cat.height {
            for x in 0..<cat.width {
                let pixel = y * cat.width + x
                for channel in 0..<3 { frame[pixel * 4 + channel] = cat.pixels[pixel * cat.channels + channel] }
                let eye = [(178, 120), (300, 118)].contains {
                    (x - $0.0) * (x - $0.0) + (y - $0.1) * (y - $0.1) <= 14 * 14
                }
                guard eye else { continue }
                // Olive, shaded as an iris is.
                let shade = UInt8((x * 5 + y * 3) % 30)
                (frame[pixel * 4], frame[pixel * 4 + 1], frame[pixel * 4 + 2]) = (
                    70 + shade, 70 + shade, 30 + shade / 2
                )
                eyes.append(pixel)
            }
        }
        let palette = StickerPalette(frames: [frame], count: 24)
        let indices = palette.indices(of: frame)
        let kept = eyes.filter { pixel in
            let entry = palette.colours[Int(indices[pixel])]
            let (red, green, blue) = (Int((entry >> 16) & 0xFF), Int((entry >> 8) & 0xFF), Int(entry & 0xFF))
            return green >= red - 6 && green > blue + 15
        }
        #expect(Double(kept.count) >= 0.8 * Double(eyes.count), "\(kept.count) of \(eyes.count) eye pixels olive")
    }
}
