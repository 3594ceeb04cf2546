import CollageCore
import Foundation

/// Draws a text item with Pango through libvips: the words wrapped at the frame's width, then the
/// outline, the shadow and the background box, in pixels at the render's scale.
///
/// Sizes are multiplied by the scale and laid out at 72 DPI, where a point is a pixel, so a text
/// drawn for a screen and for a print wraps at the same words.
enum TextPlacement {
    /// The longest side of a text's image, in pixels: Cairo draws on at most 32,767.
    static let maximumSide: Double = 30_000

    /// How far a text's outline and shadow reach past its words, in points.
    static func margin(of block: TextBlock) -> Double {
        let shadow = block.shadow.map { 3 * $0.blur + max(abs($0.offset.x), abs($0.offset.y)) } ?? 0
        return (block.outline?.width ?? 0) + shadow + 2
    }

    /// The text of `block` in a frame `width` × `height` pixels, at `scale` pixels per point. The
    /// image is centred on the frame's centre (so turning it turns it about the frame's centre);
    /// the words start at the top of the frame, or are centred in a frame taller than they need.
    static func place(_ block: TextBlock, width: Int, height: Int, scale: Double) throws(RenderError) -> PlacedCell {
        try vips("draw the text \"\(block.text.prefix(40))\"") { () throws(VipsError) -> PlacedCell in
            let inset = block.inset * scale
            let wrap = wrapWidth(block, frameWidth: Double(width), scale: scale)
            let glyphs = try drawGlyphs(block, wrapWidth: wrap, scale: scale)
            let contentHeight = Double(glyphs.height) + 2 * inset
            let top = max(0, (Double(height) - contentHeight) / 2)
            let textX = inset + alignedX(block.alignment, inkWidth: glyphs.width, in: Double(width) - 2 * inset)
            let textY = top + inset
            var layers: [(image: VipsImage, x: Double, y: Double)] = []
            if let background = block.background, background.opacity > 0 {
                let boxWidth = max(1, Int((Double(glyphs.width) + 2 * inset).rounded()))
                let boxHeight = max(1, Int(contentHeight.rounded()))
                let alpha = (Double(background.color.alpha) * background.opacity).rounded()
                let solid = try VipsImage.solid(
                    width: boxWidth, height: boxHeight,
                    values: [background.color.red, background.color.green, background.color.blue].map(Double.init)
                        + [alpha])
                let box = try CellEffects.roundCorners(solid, radius: background.cornerRadius * scale)
                layers.append((box, textX - inset, top))
            }
            var letters = glyphs
            var lettersX = textX
            var lettersY = textY
            if let outline = block.outline, outline.width * scale >= 0.25 {
                // The outline follows the letters' shapes, however see-through their colour (a
                // hollow, outline-only title is a common look): it is traced from opaque letters.
                var solid = block
                solid.color.alpha = 255
                let shapes = block.color.alpha == 255 ? glyphs : try drawGlyphs(solid, wrapWidth: wrap, scale: scale)
                let (line, margin, _) = try CellEffects.ring(
                    around: shapes, width: outline.width * scale, color: components(outline.color))
                letters = try line.compositing([(glyphs, margin, margin)])
                lettersX -= Double(margin)
                lettersY -= Double(margin)
            }
            if let shadow = block.shadow, shadow.color.alpha > 0 {
                let sigma = max(0.5, shadow.blur * scale)
                let margin = Int((sigma * 3).rounded(.up)) + 1
                let alpha = try softened(
                    letters.extractBands(3, count: 1).embed(
                        x: margin, y: margin, width: letters.width + 2 * margin, height: letters.height + 2 * margin),
                    sigma: sigma
                ).linear(multiply: Double(shadow.color.alpha) / 255, add: 0).castToUInt8()
                let shade = try VipsImage.solid(
                    width: alpha.width, height: alpha.height,
                    values: [shadow.color.red, shadow.color.green, shadow.color.blue].map(Double.init)
                ).joining(alpha)
                layers.append(
                    (
                        shade, lettersX - Double(margin) + shadow.offset.x * scale,
                        lettersY - Double(margin) + shadow.offset.y * scale
                    ))
            }
            layers.append((letters, lettersX, lettersY))
            return try centred(layers, frameWidth: Double(width), frameHeight: Double(height))
        }
    }

    /// The height in points the text of `block` needs in a frame `width` points wide: the frame
    /// height that fits it, measured at `scale` pixels per point.
    static func fittedHeight(_ block: TextBlock, width: Double, scale: Double) throws(RenderError) -> Double {
        try vips("measure the text \"\(block.text.prefix(40))\"") { () throws(VipsError) -> Double in
            let glyphs = try drawGlyphs(
                block, wrapWidth: wrapWidth(block, frameWidth: width * scale, scale: scale), scale: scale)
            return Double(glyphs.height) / scale + 2 * block.inset
        }
    }

    /// A Gaussian blur whose cost does not grow with `sigma`: a wide blur is made on a reduced
    /// copy (at most 8 pixels of sigma) and enlarged back, which a soft shadow cannot tell apart.
    private static func softened(_ mask: VipsImage, sigma: Double) throws(VipsError) -> VipsImage {
        let shrink = max(1, (sigma / 8).rounded(.up))
        guard shrink > 1 else { return try mask.gaussianBlur(sigma: sigma) }
        let small = try mask.resize(horizontal: 1 / shrink, vertical: 1 / shrink).gaussianBlur(sigma: sigma / shrink)
        return try small.resize(
            horizontal: Double(mask.width) / Double(small.width), vertical: Double(mask.height) / Double(small.height)
        ).embed(x: 0, y: 0, width: mask.width, height: mask.height)
    }

    private static func wrapWidth(_ block: TextBlock, frameWidth: Double, scale: Double) -> Int {
        max(1, Int((frameWidth - 2 * block.inset * scale).rounded()))
    }

    private static func alignedX(_ alignment: TextAlignment, inkWidth: Int, in width: Double) -> Double {
        let room = max(0, width - Double(inkWidth))
        switch alignment {
        case .left: return 0
        case .center: return room / 2
        case .right: return room
        }
    }

    private static func components(_ color: Color) -> [Double] {
        [color.red, color.green, color.blue, color.alpha].map(Double.init)
    }

    /// The words alone, RGBA, cropped to their ink.
    private static func drawGlyphs(_ block: TextBlock, wrapWidth: Int, scale: Double) throws(VipsError) -> VipsImage {
        let size = max(1, block.size * scale)
        let align =
            switch block.alignment {
            case .left: 0
            case .center: 1
            case .right: 2
            }
        let font = "\(block.font) \(JSONValue.format((size * 100).rounded() / 100))px"
        return try VipsImage.text(markup: markup(block, scale: scale), font: font, width: wrapWidth, align: align)
    }

    /// The Pango markup of a block: its text escaped, in one span that carries the look.
    static func markup(_ block: TextBlock, scale: Double) -> String {
        var attributes = [
            "font_family=\"\(escaped(block.font))\"", "font_weight=\"\(block.weight)\"",
            "font_style=\"\(block.italic ? "italic" : "normal")\"",
            "foreground=\"\(String(block.color.hexString.prefix(7)))\"",
        ]
        if block.color.alpha < 255 {
            attributes.append("fgalpha=\"\(max(1, Int(block.color.alpha) * 65535 / 255))\"")
        }
        if block.lineSpacing != 1 { attributes.append("line_height=\"\(JSONValue.format(block.lineSpacing))\"") }
        let spacing = Int((block.letterSpacing * block.size * scale * 1024).rounded())
        if spacing != 0 { attributes.append("letter_spacing=\"\(spacing)\"") }
        return "<span \(attributes.joined(separator: " "))>\(escaped(block.text))</span>"
    }

    /// Escapes by Unicode scalar, not by `Character`: a `<` that a combining mark or joiner makes
    /// part of a larger character is still a `<` to Pango's markup parser.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Stacks the layers on a transparent image whose centre is the frame's centre.
    private static func centred(
        _ layers: [(image: VipsImage, x: Double, y: Double)], frameWidth: Double, frameHeight: Double
    ) throws(VipsError) -> PlacedCell {
        let minX = layers.map(\.x).min() ?? 0
        let minY = layers.map(\.y).min() ?? 0
        let maxX = layers.map { $0.x + Double($0.image.width) }.max() ?? frameWidth
        let maxY = layers.map { $0.y + Double($0.image.height) }.max() ?? frameHeight
        let halfWidth = max(frameWidth / 2 - minX, maxX - frameWidth / 2, frameWidth / 2).rounded(.up)
        let halfHeight = max(frameHeight / 2 - minY, maxY - frameHeight / 2, frameHeight / 2).rounded(.up)
        let originX = Int((frameWidth / 2 - halfWidth).rounded())
        let originY = Int((frameHeight / 2 - halfHeight).rounded())
        let canvas = try VipsImage.solid(
            width: Int(2 * halfWidth), height: Int(2 * halfHeight), values: [0, 0, 0, 0])
        let placed = layers.map { layer in
            (layer.image, Int(layer.x.rounded()) - originX, Int(layer.y.rounded()) - originY)
        }
        return PlacedCell(image: try canvas.compositing(placed), offsetX: originX, offsetY: originY)
    }
}
