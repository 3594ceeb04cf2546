import CollageCore

/// A sticker's effect, white outline and soft shadow, applied to pixels in memory: the same
/// effects the renderer gives sticker items, for writing a finished sticker file.
public enum StickerEffects {
    /// The generation of how every effect is drawn, for keys of pictures that hold several
    /// (a collage's thumbnail, the editor's drawn items): raised whenever one is drawn anew.
    public static let drawingGeneration = "looks6"

    /// The name of the way an outline is drawn now, for keys of stickers made with one: since
    /// 7 December which parts are too thin for a ring is decided on the sticker's plan.
    public static let outlineVersion = "outline2"

    /// The name of the way `effect` is drawn now, for keys of what is made with it: a sticker
    /// or picture drawn before the effect was redrawn is made again rather than reused.
    public static func drawingVersion(of effect: StickerEffect) -> String {
        switch effect {
        // Their palettes are found in Oklab since 6 December (a small part's hue kept), and their
        // shape is firm, without specks or pinholes, since 7 December.
        case .comic: "comic4"
        case .halftone: "halftone3"
        // Its wide blur is taken on a reduced copy since 6 December (the same to the eye).
        case .puffy: "puffy2"
        default: effect.rawValue
        }
    }

    /// `image` (RGBA) with `effect` drawn on it, a white outline `outlineWidth` pixels wide around
    /// its opaque part and optionally a soft shadow below it; the result grows by the room they need.
    public static func apply(
        to image: Bitmap, outlineWidth: Double, shadow: Bool, effect: StickerEffect? = nil
    ) throws(RenderError) -> Bitmap {
        guard image.channels == 4 else { throw .invalidOptions("a sticker needs an alpha channel") }
        do throws(VipsError) {
            var styled = try VipsImage.fromPixels(
                image.pixels, width: image.width, height: image.height, bands: 4)
            // The outline decides what is too thin for a ring on the sticker as it came, as the
            // renderer does on its file.
            let original = styled
            if let effect { styled = try StickerLooks.apply(effect, to: styled) }
            if outlineWidth > 0 { styled = try CellEffects.outline(styled, width: outlineWidth, planning: original).0 }
            if shadow {
                let sigma = max(2, 0.03 * Double(min(image.width, image.height)))
                styled = try CellEffects.shadow(styled, sigma: sigma).0
            }
            let pixels = try styled.pixels()
            guard let result = Bitmap(width: styled.width, height: styled.height, channels: 4, pixels: pixels) else {
                throw VipsError(operation: "sticker effects", message: "unexpected pixel layout")
            }
            return result
        } catch {
            throw .failed("could not style the sticker: \(error.message)")
        }
    }
}
