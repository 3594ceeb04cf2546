import CollageCore
import Foundation

extension CollageRenderer {
    /// The exposure and white balance `file` asks for (``CollageCore/AutoEnhance``), read from
    /// a copy of at most 256 pixels a side, upright and in sRGB, so a 48-megapixel photo costs a
    /// shrink-on-load decode.
    /// - Throws: ``RenderError`` when the photo cannot be read.
    public func autoEnhancement(for file: URL) throws(RenderError) -> Adjustments {
        let sample = try PhotoDecoder(limits: limits).fit(file, width: 256, height: 256, materialize: true)
        let pixels = try vips("read \(file.path)") { () throws(VipsError) -> [UInt8] in try sample.pixels() }
        return AutoEnhance.adjustments(forSRGB: pixels, channels: sample.bands)
    }
}
