import CollageRender
import Foundation
import Testing

/// The white outline around a sticker follows the exact distance from its opaque pixels, for any
/// shape (the distance field behind it is computed in linear time, not by libvips' fill).
@Suite("Rendering: sticker outline")
struct StickerOutlineTests {
    /// An opaque shape with concave corners, holes and lone pixels: a ring of every case.
    static func shape(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, color: [0, 0, 0, 0])
        var seed: UInt64 = 7
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let inBlock = (x > 10 && x < 40 && y > 8 && y < 30) && !(x > 20 && x < 30 && y > 14 && y < 22)
                let inBar = x > 50 && x < 54 && y > 5 && y < 60
                let speck = seed >> 58 == 0
                if inBlock || inBar || speck { bitmap[x, y] = [200, 40, 40, 255] }
            }
        }
        return bitmap
    }

    @Test(arguments: [1.0, 3.5, 8.0])
    func theOutlineCoversExactlyThePixelsWithinItsWidth(width: Double) throws {
        let (w, h) = (70, 64)
        let sticker = Self.shape(width: w, height: h)
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: width, shadow: false)
        let margin = (outlined.width - w) / 2
        let solid = (0..<(w * h)).filter { sticker.pixels[$0 * 4 + 3] >= 128 }.map { ($0 % w, $0 / w) }
        var checked = 0
        for y in 0..<outlined.height {
            for x in 0..<outlined.width {
                let (sx, sy) = (x - margin, y - margin)
                var nearest = Int.max
                for (px, py) in solid {
                    let (dx, dy) = (px - sx, py - sy)
                    nearest = min(nearest, dx * dx + dy * dy)
                }
                let distance = Double(nearest).squareRoot()
                let alpha = Int(outlined[x, y][3])
                // Well inside the width: fully covered; a pixel and a half beyond: untouched.
                if distance <= width - 0.5 {
                    #expect(alpha == 255, "(\(sx), \(sy)) at \(distance) px has alpha \(alpha)")
                    checked += 1
                } else if distance >= width + 1.5 {
                    #expect(alpha == 0, "(\(sx), \(sy)) at \(distance) px has alpha \(alpha)")
                    checked += 1
                }
            }
        }
        #expect(checked > outlined.width * outlined.height / 2)
    }
}

extension StickerOutlineTests {
    @Test(arguments: [(1, 1), (1, 9), (9, 1)])
    func tinyStickersGetTheirOutline(width: Int, height: Int) throws {
        let sticker = Bitmap(width: width, height: height, color: [10, 20, 30, 255])
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: 2, shadow: false)
        let margin = (outlined.width - width) / 2
        #expect(outlined[margin - 1, margin][3] == 255)
        #expect(outlined[margin - 2, margin][3] == 128)
        #expect(outlined[0, 0][3] == 0)
    }
}
