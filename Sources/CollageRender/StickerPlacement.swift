import CollageCore
import Foundation

/// Places a sticker (an image with alpha) in its frame: fitted inside it and centred, mirrored
/// as its look asks, then outlined and shadowed as its style asks (so the shadow still falls down).
enum StickerPlacement {
    static func place(
        _ file: URL, width: Int, height: Int, style: StickerStyle?, look: ItemLook = .plain, scale: Double,
        limits: RenderLimits
    ) throws(RenderError) -> PlacedCell {
        // In memory: the outline and shadow read the sticker more than once, which a lazy
        // sequential decode cannot do.
        let fitted = try PhotoDecoder(limits: limits).fit(file, width: width, height: height, materialize: true)
        // Comic and Halftone plan their regions and lines on the file at a size of its own,
        // whatever size it is drawn at (see StickerLooks).
        func planning(_ file: URL, for effect: StickerEffect, look: ItemLook) throws(VipsError) -> VipsImage? {
            guard effect == .comic || effect == .halftone,
                let size = try? PhotoDecoder(limits: limits).header(of: file).size
            else { return nil }
            let plan = ComicLook.planSize(width: Int(size.width.rounded()), height: Int(size.height.rounded()))
            guard let source = try? PhotoDecoder(limits: limits).fit(file, width: plan.width, height: plan.height)
            else {
                return nil
            }
            return try CellEffects.flip(source, as: look)
        }
        return try vips("style the sticker \(file.path)") { () throws(VipsError) -> PlacedCell in
            var image = try CellEffects.flip(fitted, as: look)
            var offsetX = (width - fitted.width) / 2
            var offsetY = (height - fitted.height) / 2
            if let effect = style?.effect {
                image = try StickerLooks.apply(effect, to: image, planning: try planning(file, for: effect, look: look))
            }
            if let style, style.outlineWidth > 0 {
                let (outlined, margin) = try CellEffects.outline(image, width: style.outlineWidth * scale)
                image = outlined
                offsetX -= margin
                offsetY -= margin
            }
            if let style, style.shadow {
                let sigma = max(2, 0.04 * Double(min(width, height)))
                let (shadowed, margin) = try CellEffects.shadow(image, sigma: sigma)
                image = shadowed
                offsetX -= margin
                offsetY -= margin
            }
            return PlacedCell(image: image, offsetX: offsetX, offsetY: offsetY)
        }
    }
}
