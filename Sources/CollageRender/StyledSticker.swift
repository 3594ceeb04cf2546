import CollageCore
import Foundation

/// A sticker item as the renderer draws it, before it is turned and placed: fitted in its frame,
/// outlined and shadowed. The editor shows these pixels rather than imitating the outline and
/// shadow with CSS, so the screen shows what the export will.
public struct StyledSticker: Sendable, Equatable {
    /// Where the image's top-left corner sits relative to the frame's, in the image's pixels
    /// (negative: the outline and shadow reach past the frame).
    public let offsetX: Int
    /// See ``offsetX``.
    public let offsetY: Int
    /// The image's size in pixels.
    public let width: Int
    /// See ``width``.
    public let height: Int
    /// The pixels per canvas point it was drawn at (at most the scale asked for).
    public let scale: Double
}

extension CollageRenderer {
    /// The largest scale at most `requested` whose image (the frame, plus the outline and the
    /// shadow around it, which grow with the scale too) stays within the pixel budget.
    static func styledStickerScale(_ item: CollageItem, requested: Double) -> Double {
        let outline = item.stickerStyle?.outlineWidth ?? 0
        let shadow = item.stickerStyle?.shadow ?? false
        func pixels(_ scale: Double) -> Double {
            let (width, height) = (item.frame.width * scale, item.frame.height * scale)
            // CellEffects.shadow: a margin of 3.6 sigma, sigma 4 % of the shorter side (at least 2).
            let shadowMargin = shadow ? 3.6 * max(2, 0.04 * min(width, height)) + 2 : 0
            let margin = outline * scale + shadowMargin + 2
            return (width + 2 * margin) * (height + 2 * margin)
        }
        var scale = requested
        for _ in 0..<20 where pixels(scale) > Double(maximumStyledStickerPixels) {
            scale *= (Double(maximumStyledStickerPixels) / pixels(scale)).squareRoot() * 0.98
        }
        return scale
    }

    /// The largest styled sticker drawn for a screen: far more than any display needs.
    public static let maximumStyledStickerPixels = 4_000_000

    /// Draws a sticker item at `scale` pixels per canvas point and writes it as a PNG with alpha.
    /// A scale that would make the image larger than ``maximumStyledStickerPixels`` is lowered.
    /// - Throws: ``RenderError`` when the item is not a sticker, the scale is outside
    ///   ``CollageCore/Limits/exportScale``, or the sticker's file cannot be read.
    public func writeStyledSticker(
        _ item: CollageItem, photos: some PhotoSource, scale requested: Double, to output: URL
    ) throws(RenderError) -> StyledSticker {
        guard case .sticker = item.content else {
            throw .invalidOptions("item \"\(item.id)\" is a photo; only stickers are drawn on their own")
        }
        guard Limits.exportScale.contains(requested) else {
            throw .invalidOptions(
                "the scale must be a number of pixels per point \(Limits.describe(Limits.exportScale)), "
                    + "got \(JSONValue.format(requested))")
        }
        let scale = Self.styledStickerScale(item, requested: requested)
        let width = max(1, Int((item.frame.width * scale).rounded()))
        let height = max(1, Int((item.frame.height * scale).rounded()))
        let file = try photos.file(for: item.content)
        let cell = try StickerPlacement.place(
            file, width: width, height: height, style: item.stickerStyle, scale: scale, limits: limits)
        try vips("save the sticker") { () throws(VipsError) in
            try cell.image.save(to: output.path, format: .png, quality: 90)
        }
        return StyledSticker(
            offsetX: cell.offsetX, offsetY: cell.offsetY, width: cell.image.width, height: cell.image.height,
            scale: scale)
    }
}
