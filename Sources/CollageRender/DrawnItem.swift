import CollageCore
import Foundation

/// An item as the renderer draws it, before it is turned, faded and placed: a photo cut, sized and
/// adjusted for its frame; a sticker fitted in its frame, mirrored, outlined and shadowed; a text wrapped, outlined, shadowed and on its
/// background. The editor shows these pixels rather than imitating them with CSS, so the screen
/// shows what the export will.
public struct DrawnItem: Sendable, Equatable {
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
    /// The largest scale at most `requested` whose image (the frame, plus what grows around it
    /// with the scale: a sticker's outline and shadow, a text's outline, shadow and overflow)
    /// stays within the pixel budget.
    static func drawnItemScale(_ item: CollageItem, requested: Double) -> Double {
        func pixels(_ scale: Double) -> Double {
            let words = item.content.textBlock?.roughHeight(inWidth: item.frame.width) ?? 0
            let (width, height) = (item.frame.width * scale, max(item.frame.height, words) * scale)
            var margin = 2.0
            switch item.content {
            case .photo: margin += PhotoPlacement.shadowReach(of: item.look) * scale
            case .sticker:
                // CellEffects.shadow: a margin of 3.6 sigma, sigma 4 % of the shorter side (at least 2).
                let shadow = item.stickerStyle?.shadow ?? false
                margin +=
                    (item.stickerStyle?.outlineWidth ?? 0) * scale
                    + (shadow ? 3.6 * max(2, 0.04 * min(width, height)) + 2 : 0)
            case .text(let block):
                margin += TextPlacement.margin(of: block) * scale
            }
            return (width + 2 * margin) * (height + 2 * margin)
        }
        var scale = requested
        if let block = item.content.textBlock {
            let side =
                max(item.frame.width, block.roughHeight(inWidth: item.frame.width)) + 2
                * TextPlacement.margin(of: block)
            scale = min(scale, TextPlacement.maximumSide / side)
        }
        for _ in 0..<20 where pixels(scale) > Double(maximumDrawnItemPixels) {
            scale *= (Double(maximumDrawnItemPixels) / pixels(scale)).squareRoot() * 0.98
        }
        return scale
    }

    /// The largest item image drawn for a screen: far more than any display needs.
    public static let maximumDrawnItemPixels = 4_000_000

    /// Draws an item at `scale` pixels per canvas point and writes it as a PNG with alpha (a photo
    /// with corners of `cornerRadius` points unless its shape says otherwise). A scale that would
    /// make the image larger than ``maximumDrawnItemPixels`` is lowered.
    /// - Throws: ``RenderError`` when the scale is outside
    ///   ``CollageCore/Limits/exportScale``, or the sticker's file cannot be read.
    public func writeDrawnItem(
        _ item: CollageItem, photos: some PhotoSource, scale requested: Double, cornerRadius: Double = 0,
        to output: URL
    ) throws(RenderError) -> DrawnItem {
        guard Limits.exportScale.contains(requested) else {
            throw .invalidOptions(
                "the scale must be a number of pixels per point \(Limits.describe(Limits.exportScale)), "
                    + "got \(JSONValue.format(requested))")
        }
        let scale = Self.drawnItemScale(item, requested: requested)
        let width = max(1, Int((item.frame.width * scale).rounded()))
        let height = max(1, Int((item.frame.height * scale).rounded()))
        let cell: PlacedCell
        switch item.content {
        case .photo:
            // Cut, sized, adjusted, mirrored, shaped, bordered and shadowed as an export makes it.
            let file = try photos.file(for: item.content)
            cell = try PhotoPlacement.place(
                file, width: width, height: height, crop: crop(for: item, file: file, photos: photos), look: item.look,
                cornerRadius: cornerRadius, scale: scale, limits: limits, materialize: false)
        case .sticker:
            let file = try photos.file(for: item.content)
            cell = try StickerPlacement.place(
                file, width: width, height: height, style: item.stickerStyle, look: item.look, scale: scale,
                limits: limits)
        case .text(let block):
            cell = try TextPlacement.place(block, width: width, height: height, scale: scale)
        }
        try vips("save the drawn item") { () throws(VipsError) in
            try cell.image.save(to: output.path, format: .png, quality: 90)
        }
        return DrawnItem(
            offsetX: cell.offsetX, offsetY: cell.offsetY, width: cell.image.width, height: cell.image.height,
            scale: scale)
    }

    /// The frame height, in points, that fits the words of `block` wrapped at `width` points: what
    /// a text item's frame is given after each change, so it hugs its words. Never below
    /// ``CollageCore/EditRules/minimumItemSide``.
    /// - Throws: ``RenderError`` when the text cannot be laid out.
    public static func fittedTextHeight(_ block: TextBlock, width: Double) throws(RenderError) -> Double {
        // Measured at twice the canvas's resolution (fine enough that a frame's height is within
        // a point of the words at any export size), or less for a large text: at most about
        // 16 megapixels are drawn to measure it.
        let side = max(1, width) * max(1, block.roughHeight(inWidth: width))
        let scale = min(2, 8_000 / max(1, width), (16_000_000 / side).squareRoot())
        let height = try TextPlacement.fittedHeight(block, width: width, scale: scale)
        return max(EditRules.minimumItemSide, (height * 4).rounded(.up) / 4)
    }
}
