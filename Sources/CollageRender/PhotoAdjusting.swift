import CVips
import CollageCore
import Foundation

/// A photo's filter and adjustments made on its cell (cut and sized for its frame, so they cost
/// in proportion to the output, not the photo): exposure, warmth and tint as gains on the
/// channels in linear light (``CollageCore/Adjustments/linearGains``); contrast, highlights
/// and shadows on Lab lightness; saturation and vibrance as
/// a factor on chroma; then the filter's curves, the vignette, grain and sharpening. Each
/// per-pixel function is tabulated once, so the pipeline is a handful of lookups.
enum PhotoAdjusting {
    /// The cell with `look`'s colour changes, at `scale` pixels per point (grain is a point
    /// across, sharpening's radius scales with the print); the cell itself when there are none.
    /// Below a pixel a point a grain covers several points, and is that much fainter, as the
    /// export's grain looks from that far.
    static func apply(_ look: ItemLook, to cell: VipsImage, scale: Double) throws(VipsError) -> VipsImage {
        guard look.changesColour else { return cell }
        let adjustments = look.combinedAdjustments
        let tone = toneTable(adjustments)
        let chroma = chromaTable(adjustments)
        let curves = look.combinedCurves.map(curveTable)
        let vignette = vignetteTable(adjustments.vignette)
        let gains = adjustments.linearGains
        return try cell.map("adjust the photo") { input, out in
            tone.withUnsafeBufferPointer { tone in
                chroma.withUnsafeBufferPointer { chroma in
                    vignette.withUnsafeBufferPointer { vignette in
                        let call = { (curves: UnsafePointer<UInt8>?) in
                            cvips_adjust(
                                input, gains, tone.baseAddress, chroma.baseAddress, curves, adjustments.vignette / 100,
                                vignette.baseAddress, adjustments.grain / 100 * 16 * min(1, scale), max(1, scale),
                                max(0.5, 0.6 * scale), adjustments.sharpness / 100 * 3, out)
                        }
                        guard let curves else { return call(nil) }
                        return curves.withUnsafeBufferPointer { call($0.baseAddress) }
                    }
                }
            }
        }
    }

    private static func smoothstep(_ edge0: Double, _ edge1: Double, _ x: Double) -> Double {
        let t = max(0, min(1, (x - edge0) / (edge1 - edge0)))
        return t * t * (3 - 2 * t)
    }

    /// Lightness out for L = 0, 0.1 … 100 in: contrast (an S-curve up, a flattening down), then
    /// highlights and shadows, each weighted to its end of the range.
    static func toneTable(_ adjustments: Adjustments) -> [Float] {
        let contrast = adjustments.contrast / 100
        let highlights = adjustments.highlights / 100
        let shadows = adjustments.shadows / 100
        return (0...1_000).map { index in
            let x = Double(index) / 1_000
            var y = contrast >= 0 ? x + contrast * (smoothstep(0, 1, x) - x) : 0.5 + (x - 0.5) * (1 + 0.7 * contrast)
            y += 0.22 * highlights * smoothstep(0.45, 1, y)
            y += 0.22 * shadows * (1 - smoothstep(0, 0.55, y))
            return Float(max(0, min(1, y)) * 100)
        }
    }

    /// The factor on chroma for C = 0, 0.1 … 200: saturation for all, vibrance mostly for muted colours.
    static func chromaTable(_ adjustments: Adjustments) -> [Float] {
        let saturation = max(0, 1 + adjustments.saturation / 100)
        let vibrance = adjustments.vibrance / 100
        return (0...2_000).map { index in
            let chroma = Double(index) / 10
            return Float(max(0, saturation * (1 + vibrance * max(0, 1 - chroma / 60))))
        }
    }

    /// The curves as a 256-entry table of red, green and blue bytes.
    static func curveTable(_ curves: [ToneCurve]) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: 256 * 3)
        for input in 0..<256 {
            for (band, curve) in curves.prefix(3).enumerated() {
                table[input * 3 + band] = UInt8(
                    max(0, min(255, (curve.value(at: Double(input) / 255) * 255).rounded())))
            }
        }
        return table
    }

    /// The factor for r = 0, 0.001 … 1.5 from the frame's centre (1 at the middle of a side):
    /// the corners darker for a positive amount, lighter for a negative one.
    static func vignetteTable(_ amount: Double) -> [Float] {
        (0...1_500).map { index in
            Float(1 - amount / 100 * 0.65 * smoothstep(0.35, 1.35, Double(index) / 1_000))
        }
    }
}
