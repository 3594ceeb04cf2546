import CollageRender
import Foundation
import Stickers
import Testing

/// Clean edges: where the mask is partly transparent, the sticker takes the subject's colour,
/// not the old background's, measured against a known foreground, alpha and background.
@Suite("Stickers: clean edges")
struct ForegroundTests {
    static let (width, height) = (320, 240)

    /// An orange, textured subject on the left whose edge is fine strands of varying opacity
    /// (hair against the light), photographed against a bright green wall.
    static func scene() -> (photo: [UInt8], alpha: [UInt8], foreground: [UInt8]) {
        var photo = [UInt8](repeating: 0, count: width * height * 3)
        var alpha = [UInt8](repeating: 0, count: width * height)
        var foreground = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                // Fully the subject left of x = 120; strands fading out over the next 100 pixels.
                let strand = 0.5 + 0.5 * sin(Double(x) * 0.9 + Double(y) * 0.15)
                let fade = max(0, 1 - Double(max(0, x - 120)) / 100)
                let a = x < 120 ? 1 : fade * strand
                let texture = Double((x * 7 + y * 13) % 23) / 23
                let f = [220 + 30 * texture, 120 + 40 * texture, 40 + 20 * texture].map { min(255, $0) }
                let b: [Double] = [40, 220, 60]
                let index = y * width + x
                alpha[index] = UInt8((a * 255).rounded())
                let stored = Double(alpha[index]) / 255
                for channel in 0..<3 {
                    foreground[index * 3 + channel] = UInt8(f[channel].rounded())
                    photo[index * 3 + channel] = UInt8((stored * f[channel] + (1 - stored) * b[channel]).rounded())
                }
            }
        }
        return (photo, alpha, foreground)
    }

    /// The mean colour error, over the partly transparent pixels, of `colours` composited over a
    /// blue background against the true foreground composited there.
    static func edgeError(_ colours: [UInt8], _ scene: (photo: [UInt8], alpha: [UInt8], foreground: [UInt8])) -> Double
    {
        let blue: [Double] = [30, 60, 200]
        var total = 0.0
        var count = 0
        for index in 0..<(width * height) where scene.alpha[index] > 25 && scene.alpha[index] < 230 {
            let a = Double(scene.alpha[index]) / 255
            for channel in 0..<3 {
                let made = a * Double(colours[index * 3 + channel]) + (1 - a) * blue[channel]
                let truth = a * Double(scene.foreground[index * 3 + channel]) + (1 - a) * blue[channel]
                total += abs(made - truth)
            }
            count += 3
        }
        return total / Double(max(1, count))
    }

    @Test func theOldBackgroundNoLongerShowsThroughTheStrands() throws {
        let scene = Self.scene()
        let cleaned = try Foreground.estimate(
            rgb: scene.photo, alpha: scene.alpha, width: Self.width, height: Self.height)
        let before = Self.edgeError(scene.photo, scene)
        let after = Self.edgeError(cleaned, scene)
        print("edge colour error over a new background: \(before) as photographed, \(after) cleaned")
        #expect(after < before / 2, "\(before) → \(after)")
        // Opaque pixels keep the photo's own colour exactly.
        let inside = (100 * Self.width + 60) * 3
        #expect(Array(cleaned[inside..<inside + 3]) == Array(scene.photo[inside..<inside + 3]))
    }

    @Test func aStickerMadeWithCleanEdgesHasLessGreenInItsFringe() throws {
        let scene = Self.scene()
        var alpha = scene.alpha
        // The mask the sticker is cut with: the scene's alpha (a model would give much the same).
        for index in alpha.indices where alpha[index] < 6 { alpha[index] = 0 }
        let mask = try SubjectMask(alpha: alpha, width: Self.width, height: Self.height)
        let photo = try #require(Bitmap(width: Self.width, height: Self.height, channels: 3, pixels: scene.photo))
        let clean = try StickerMaker.sticker(
            from: photo, mask: mask, options: StickerOptions(margin: 0, cleanEdges: true))
        let raw = try StickerMaker.sticker(
            from: photo, mask: mask, options: StickerOptions(margin: 0))
        func greenness(_ sticker: Bitmap) -> Double {
            var total = 0.0
            var count = 0
            for y in 0..<sticker.height {
                for x in 0..<sticker.width where sticker[x, y][3] > 25 && sticker[x, y][3] < 230 {
                    total += Double(sticker[x, y][1]) - Double(sticker[x, y][0])
                    count += 1
                }
            }
            return total / Double(max(1, count))
        }
        #expect(greenness(clean) < greenness(raw) - 40, "\(greenness(raw)) → \(greenness(clean))")
    }
}
