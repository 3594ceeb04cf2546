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
        let outlined = (style?.outlineWidth ?? 0) > 0
        // A small sticker's outline is at most an eighth of its size (the root of its area): at
        // its width in points a butterfly made small was a white blob with a speck in it.
        let ringWidth = min(
            (style?.outlineWidth ?? 0) * scale, 0.125 * (Double(fitted.width) * Double(fitted.height)).squareRoot())
        // The outline reads the plan only where it leaves thin parts out (see OutlineCore).
        let leavesOutThinParts =
            outlined && OutlineCore.thinRadius(width: fitted.width, height: fitted.height, ringWidth: ringWidth) > 0
        let planning = try planningImage(
            of: file, for: style?.effect, outlined: leavesOutThinParts, limits: limits)
        return try vips("style the sticker \(file.path)") { () throws(VipsError) -> PlacedCell in
            var image = try CellEffects.flip(fitted, as: look)
            var offsetX = (width - fitted.width) / 2
            var offsetY = (height - fitted.height) / 2
            let plan = try planning.map { plan throws(VipsError) in try CellEffects.flip(plan, as: look) }
            if let effect = style?.effect {
                image = try StickerLooks.apply(effect, to: image, planning: plan)
            }
            if outlined, ringWidth > 0 {
                let (outlined, margin) = try CellEffects.outline(
                    image, width: ringWidth, planning: leavesOutThinParts ? plan : nil)
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

    /// The sticker file at the size Comic and Halftone plan it at, for those two effects and for
    /// an outline, which decides there which parts are too thin for a ring (`nil` otherwise):
    /// planned on the pixels at hand, the editor's drawing and an export of another size found
    /// other regions and lines (see StickerLooks), and ringed a strand at some sizes only.
    private static func planningImage(
        of file: URL, for effect: StickerEffect?, outlined: Bool, limits: RenderLimits
    ) throws(RenderError) -> VipsImage? {
        guard effect == .comic || effect == .halftone || outlined else { return nil }
        let decoder = PhotoDecoder(limits: limits)
        let size = try decoder.header(of: file).size
        let plan = ComicLook.planSize(width: Int(size.width.rounded()), height: Int(size.height.rounded()))
        // In memory: an effect and the outline both read it, which a lazy sequential decode
        // cannot do.
        return try decoder.fit(file, width: plan.width, height: plan.height, materialize: true)
    }
}
