import CollageCore
import CollageRender
import Foundation
import Stickers

/// Generated photos with a known foreground, and the shared model.
enum StickerFixtures {
    /// Loaded once for all tests; `nil` (and the tests say why) when the model is not installed.
    static let model: Result<SubjectModel, StickerError> = Result { () throws(StickerError) in try SubjectModel() }

    /// Whether (x, y) lies in the ellipse centred at (cx, cy) with radii rx, ry.
    static func inEllipse(_ x: Int, _ y: Int, _ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Bool {
        let dx = (Double(x) + 0.5 - cx) / rx
        let dy = (Double(y) + 0.5 - cy) / ry
        return dx * dx + dy * dy <= 1
    }

    /// A photo with coloured ellipses on a plain or textured background, and the true mask.
    static func scene(
        width: Int = 480, height: Int = 360, textured: Bool = false,
        shapes: [(cx: Double, cy: Double, rx: Double, ry: Double, color: [UInt8])]
    ) -> (image: Bitmap, truth: [Bool]) {
        var image = Bitmap(width: width, height: height, color: [235, 232, 225])
        var truth = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                if textured {
                    // Soft diagonal stripes and a little deterministic grain.
                    let stripe = ((x + y) / 24) % 2 == 0 ? 20 : 0
                    let grain = (x &* 7919 &+ y &* 104_729) % 17
                    let base = 200 + stripe + grain
                    image[x, y] = [UInt8(min(255, base)), UInt8(min(255, base - 10)), UInt8(min(255, base - 25))]
                }
                for shape in shapes where inEllipse(x, y, shape.cx, shape.cy, shape.rx, shape.ry) {
                    image[x, y] = shape.color
                    truth[y * width + x] = true
                }
            }
        }
        return (image, truth)
    }

    /// Intersection over union of a mask (alpha ≥ 128) with the truth.
    static func iou(_ alpha: [UInt8], _ truth: [Bool]) -> Double {
        var intersection = 0
        var union = 0
        for (value, inside) in zip(alpha, truth) {
            let predicted = value >= 128
            if predicted && inside { intersection += 1 }
            if predicted || inside { union += 1 }
        }
        return union == 0 ? 0 : Double(intersection) / Double(union)
    }

    /// Mean absolute difference between the alpha and the truth (0 or 255), 0…1.
    static func meanError(_ alpha: [UInt8], _ truth: [Bool]) -> Double {
        let total = zip(alpha, truth).reduce(0.0) { sum, pair in
            sum + abs(Double(pair.0) - (pair.1 ? 255 : 0)) / 255
        }
        return total / Double(alpha.count)
    }
}
