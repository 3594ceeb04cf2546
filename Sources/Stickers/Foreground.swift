import CollageCore

/// The subject's own colours where its mask is partly transparent.
///
/// A pixel of fur or hair at alpha 0.4 holds 60 % of the old background; put on a new one as it
/// is, the sticker keeps a fringe of the old colour. Solving `photo = α·F + (1 − α)·B` for the
/// foreground `F`, with `F` and `B` smooth nearby, takes that fringe away.
public enum Foreground {
    /// The foreground colour of every pixel (3 bytes each): the photo's own where `alpha` is 0 or
    /// 255, the estimate in between.
    /// - Parameters:
    ///   - rgb: the photo, 3 bytes a pixel.
    ///   - alpha: its mask, a byte a pixel.
    /// - Throws: ``StickerError/engineMissing(_:)`` without the subject-lifting library, or
    ///   ``StickerError/inference(_:)`` when it fails.
    public static func estimate(
        rgb: [UInt8], alpha: [UInt8], width: Int, height: Int
    ) throws(StickerError) -> [UInt8] {
        guard width > 0, height > 0, rgb.count == width * height * 3, alpha.count == width * height else {
            throw .inference("the photo and its mask must be \(width) × \(height) pixels")
        }
        let library = try SegmentLibrary.get()
        var message = [CChar](repeating: 0, count: 512)
        var status: Int32 = 0
        let result = [UInt8](unsafeUninitializedCapacity: rgb.count) { output, initialized in
            status = rgb.withUnsafeBufferPointer { pixels in
                alpha.withUnsafeBufferPointer { mask in
                    library.foreground(
                        pixels.baseAddress, mask.baseAddress, Int32(width), Int32(height), output.baseAddress,
                        &message, message.count)
                }
            }
            initialized = status == 0 ? rgb.count : 0
        }
        guard status == 0 else { throw .inference(cMessage(message)) }
        return result
    }
}
