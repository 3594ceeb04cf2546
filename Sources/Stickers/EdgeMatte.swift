import CollageCore

/// The subject's alpha and colours found again along its edge, for `--clean-edges`.
///
/// The model's map is 320 px across, so at a photo's own size fur and hair are a soft haze, and
/// a pixel at alpha 0.4 still holds 60 % of the old background. Where the subject's and the
/// background's colours nearby differ, each edge pixel is placed between them: that gives single
/// strands back their alpha, and `photo = α·F + (1 − α)·B` solved for `F` takes the old
/// background out of their colour. Where the two colours are alike (white fur before a white
/// wall) the colours say little and the model's alpha is kept.
public enum EdgeMatte {
    /// The refined alpha (a byte a pixel) and the subject's colours (3 bytes a pixel): the
    /// photo's own where the subject is opaque.
    /// - Parameters:
    ///   - rgb: the photo, 3 bytes a pixel.
    ///   - alpha: its mask, a byte a pixel.
    /// - Throws: ``StickerError/engineMissing(_:)`` without the subject-lifting library, or
    ///   ``StickerError/inference(_:)`` when it fails.
    public static func refine(
        rgb: [UInt8], alpha: [UInt8], width: Int, height: Int
    ) throws(StickerError) -> (alpha: [UInt8], colours: [UInt8]) {
        guard width > 0, height > 0, rgb.count == width * height * 3, alpha.count == width * height else {
            throw .inference("the photo and its mask must be \(width) × \(height) pixels")
        }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for index in 0..<(width * height) {
            rgba[index * 4] = rgb[index * 3]
            rgba[index * 4 + 1] = rgb[index * 3 + 1]
            rgba[index * 4 + 2] = rgb[index * 3 + 2]
            rgba[index * 4 + 3] = alpha[index]
        }
        try refine(rgba: &rgba, width: width, height: height)
        var refined = [UInt8](repeating: 0, count: width * height)
        var colours = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            refined[index] = rgba[index * 4 + 3]
            colours[index * 3] = rgba[index * 4]
            colours[index * 3 + 1] = rgba[index * 4 + 1]
            colours[index * 3 + 2] = rgba[index * 4 + 2]
        }
        return (refined, colours)
    }

    /// Refines, in place, a photo with its mask as alpha (4 bytes a pixel): the alpha and the
    /// colours as ``refine(rgb:alpha:width:height:)`` finds them, clear pixels with no colour,
    /// and only what is joined to the subject kept.
    /// - Throws: ``StickerError/engineMissing(_:)`` without the subject-lifting library, or
    ///   ``StickerError/inference(_:)`` when it fails.
    public static func refine(rgba: inout [UInt8], width: Int, height: Int) throws(StickerError) {
        guard width > 0, height > 0, rgba.count == width * height * 4 else {
            throw .inference("the photo with its mask must be \(width) × \(height) pixels of 4 bytes")
        }
        let library = try SegmentLibrary.get()
        var message = [CChar](repeating: 0, count: 512)
        let status = rgba.withUnsafeMutableBufferPointer { pixels in
            library.matte(pixels.baseAddress, Int32(width), Int32(height), &message, message.count)
        }
        guard status == 0 else { throw .inference(cMessage(message)) }
    }
}
