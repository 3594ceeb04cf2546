import CVips
import CollageCore
import Foundation
import Synchronization

/// A photo's filter and adjustments made on its cell (cut and sized for its frame, so they cost
/// in proportion to the output, not the photo): exposure, warmth and tint as gains on the
/// channels in linear light (``CollageCore/Adjustments/linearGains``); contrast, highlights
/// and shadows on Lab lightness; saturation and vibrance as a factor on chroma; then the
/// filter's curves, the vignette, grain and sharpening.
///
/// Everything that maps a colour to a colour is worked out once per look on a 52³ grid of
/// colours (by the same libvips operations, in the same spaces) and applied to the cell by
/// tetrahedral interpolation in one pass with the vignette and the grain: the chain of float
/// images it replaces made a filtered 3,600 px collage take 2.7 times as long as a plain one.
enum PhotoAdjusting {
    /// The cell with `look`'s colour changes, at `scale` pixels per point (grain is a point
    /// across, sharpening's radius scales with the print); the cell itself when there are none.
    /// Below a pixel a point a grain covers several points, and is that much fainter, as the
    /// export's grain looks from that far.
    static func apply(_ look: ItemLook, to cell: VipsImage, scale: Double) throws(VipsError) -> VipsImage {
        guard look.changesColour else { return cell }
        let adjustments = look.combinedAdjustments
        let lut = try colourTable(adjustments: adjustments, curves: look.combinedCurves)
        let vignette = vignetteTable(adjustments.vignette)
        return try cell.map("adjust the photo") { input, out in
            vignette.withUnsafeBufferPointer { vignette in
                let call = { (lut: UnsafePointer<UInt8>?) in
                    cvips_adjust(
                        input, lut, adjustments.vignette / 100, vignette.baseAddress,
                        adjustments.grain / 100 * 16 * min(1, scale), max(1, scale), max(0.5, 0.6 * scale),
                        adjustments.sharpness / 100 * 3, out)
                }
                guard let lut else { return call(nil) }
                return lut.withUnsafeBufferPointer { call($0.baseAddress) }
            }
        }
    }

    /// What a colour table depends on: the adjustments that map colour to colour, and the curves.
    private struct ColourKey: Hashable {
        var gains: [Double]
        var contrast, highlights, shadows, saturation, vibrance: Double
        var curves: [ToneCurve]?
    }

    /// The tables of the looks drawn last: a collage's photos share a filter, and the editor
    /// draws the same photo again as a slider moves.
    private static let recentTables = Mutex<[(key: ColourKey, table: [UInt8])]>([])
    private static let keptTables = 8

    /// The 52³ colour table for the colour-to-colour part of a look; `nil` when that part
    /// changes nothing (a vignette or grain alone).
    static func colourTable(adjustments: Adjustments, curves: [ToneCurve]?) throws(VipsError) -> [UInt8]? {
        let key = ColourKey(
            gains: adjustments.linearGains, contrast: adjustments.contrast, highlights: adjustments.highlights,
            shadows: adjustments.shadows, saturation: adjustments.saturation, vibrance: adjustments.vibrance,
            curves: curves)
        // By the sliders, not the gains: "as shot" gains are 1 only to within a rounding.
        guard
            adjustments.exposure != 0 || adjustments.warmth != 0 || adjustments.tint != 0 || key.contrast != 0
                || key.highlights != 0 || key.shadows != 0 || key.saturation != 0 || key.vibrance != 0 || curves != nil
        else { return nil }
        if let kept = recentTables.withLock({ tables in tables.first { $0.key == key }?.table }) { return kept }
        let tone = toneTable(adjustments)
        let chroma = chromaTable(adjustments)
        let curveBytes = curves.map(curveTable)
        var table = [UInt8](repeating: 0, count: Int(CVIPS_COLOUR_LUT_BYTES))
        let status = table.withUnsafeMutableBufferPointer { table in
            tone.withUnsafeBufferPointer { tone in
                chroma.withUnsafeBufferPointer { chroma in
                    guard let curveBytes else {
                        return cvips_colour_lut(key.gains, tone.baseAddress, chroma.baseAddress, nil, table.baseAddress)
                    }
                    return curveBytes.withUnsafeBufferPointer {
                        cvips_colour_lut(
                            key.gains, tone.baseAddress, chroma.baseAddress, $0.baseAddress, table.baseAddress)
                    }
                }
            }
        }
        guard status == 0 else { throw VipsError(operation: "tabulate the photo's colours", message: Vips.takeError()) }
        recentTables.withLock { tables in
            tables.removeAll { $0.key == key }
            tables.insert((key, table), at: 0)
            if tables.count > keptTables { tables.removeLast() }
        }
        return table
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
