import CollageCore
import CollageRender
import Foundation
import Stickers
import Testing

/// Masks whose subject has a long soft edge (fur glowing against a blurred room), and faint
/// blobs apart from it: what a sticker keeps and where its box ends.
@Suite("Stickers: soft edges and stray specks")
struct SoftEdgeTests {
    static let (width, height) = (400, 300)

    /// A solid disc at (120, 150), radius 50, whose glow fades from half opaque to nothing over
    /// 200 pixels to its right (a tail far past the disc's half-opaque box), and a faint blob
    /// apart from it at (340, 60).
    static func alpha() -> [UInt8] {
        var alpha = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let (dx, dy) = (Double(x) - 120, Double(y) - 150)
                let distance = (dx * dx + dy * dy).squareRoot()
                var value = distance <= 50 ? 255.0 : 0
                if value == 0, dx > 0, abs(dy) < 30, dx < 250 {
                    value = max(0, 120 * (1 - (dx - 50) / 200))
                }
                let (bx, by) = (Double(x) - 340, Double(y) - 60)
                if (bx * bx + by * by).squareRoot() < 12 { value = 70 }
                alpha[y * width + x] = UInt8(value.rounded())
            }
        }
        return alpha
    }

    @Test func theWholeSoftEdgeIsKeptAndTheBoxHoldsIt() throws {
        let alpha = Self.alpha()
        let mask = try SubjectMask(alpha: alpha, width: Self.width, height: Self.height)
        #expect(mask.subjects.count == 1)
        let (kept, bounds) = mask.kept(mask.subjects)
        // The tail 150 px right of the disc's edge, at a fifth opacity, is kept as it was.
        let tail = 150 * Self.width + 260
        #expect(alpha[tail] > 20 && kept[tail] == alpha[tail], "\(alpha[tail]) → \(kept[tail])")
        let box = try #require(bounds)
        #expect(box.maxX >= 290, "the box reaches the end of the glow: \(box)")
        // The model's own edge is cut from that box: no straight edge through the glow.
        let photo = Bitmap(width: Self.width, height: Self.height, color: [200, 150, 100])
        let sticker = try StickerMaker.sticker(from: photo, mask: mask, options: StickerOptions(cleanEdges: false))
        #expect(sticker.width >= Int(box.width), "\(sticker.width) for a box of \(box.width)")
        let column = (0..<sticker.width).map { sticker[$0, sticker.height / 2][3] }
        #expect(column.last == 0, "the sticker's right edge is clear: the glow fades out inside it")
        // A clean edge lets go of the faintest glow, and its box shrinks with it: still clear at its side.
        let clean = try StickerMaker.sticker(from: photo, mask: mask, options: StickerOptions())
        let cleanRow = (0..<clean.width).map { clean[$0, clean.height / 2][3] }
        #expect(cleanRow.last == 0, "the clean sticker's right edge is clear")
        #expect(cleanRow.contains { $0 > 20 && $0 < 128 }, "the glow's brighter part is kept")
    }

    @Test func aFaintBlobApartFromTheSubjectIsDropped() throws {
        let alpha = Self.alpha()
        let mask = try SubjectMask(alpha: alpha, width: Self.width, height: Self.height)
        let (kept, bounds) = mask.kept(mask.subjects)
        #expect(alpha[60 * Self.width + 340] == 70)
        #expect(kept[60 * Self.width + 340] == 0, "the speck is not part of the sticker")
        #expect((bounds?.y ?? 0) >= 99, "the box does not stretch up to the speck")
    }
}
