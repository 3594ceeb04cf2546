import CCairo
import CollageCore
import Foundation

/// Places a photo in its frame: cut and sized for it (aspect-fill around its crop), adjusted,
/// mirrored, then cut to its shape with the collage's corners, its own border drawn and its
/// shadow cast, as its look asks. The export and the editor's drawn items both come from here.
enum PhotoPlacement {
    /// The photo's cell, `width` × `height` pixels at `scale` pixels a point, and where it sits
    /// relative to the frame (a shadow reaches past it).
    static func place(
        _ file: URL, width: Int, height: Int, crop: Crop, look: ItemLook, cornerRadius: Double, scale: Double,
        limits: RenderLimits, materialize: Bool, decodedAhead: Bool = false
    ) throws(RenderError) -> PlacedCell {
        let frame = Size(width: Double(width), height: Double(height))
        let border = look.border.map { PhotoBorder(style: $0.style, width: $0.width * scale, color: $0.color) }
        let area = pixelRect(border?.photoArea(in: frame) ?? Rect(origin: .zero, size: frame))
        // Rotation and a top-to-bottom flip read their input out of order, and a shadow reads
        // the cut photo twice, so such a photo is decoded up front.
        let photo = try PhotoDecoder(limits: limits).cover(
            file, width: area.width, height: area.height, crop: crop,
            materialize: materialize || look.flipsVertically || look.shadow != nil, decodedAhead: decodedAhead)
        return try vips("adjust and cut \(file.path)") { () throws(VipsError) -> PlacedCell in
            let adjusted = try CellEffects.flip(PhotoAdjusting.apply(look, to: photo, scale: scale), as: look)
            guard look.isFramed else {
                return PlacedCell(
                    image: try CellEffects.roundCorners(adjusted, radius: cornerRadius * scale), offsetX: 0, offsetY: 0)
            }
            var cell: VipsImage
            if let border, border.style == .polaroid {
                // A card of the border's colour with the collage's corners, the photo cut to its
                // shape on it.
                let card = try VipsImage.solid(width: width, height: height, values: border.color.channels)
                    .joining(
                        ShapeMask.image(
                            PhotoShape.rectangle.outline(in: frame, cornerRadius: cornerRadius * scale), width: width,
                            height: height, opacity: border.color.opacity))
                let cut = try CellEffects.multiplyAlpha(
                    adjusted,
                    by: ShapeMask.image(
                        look.shape.outline(in: Size(width: Double(area.width), height: Double(area.height))),
                        width: area.width, height: area.height))
                cell = try card.compositing([(cut, area.x, area.y)])
            } else {
                let outline = look.shape.outline(in: frame, cornerRadius: cornerRadius * scale)
                var picture = adjusted
                if let border {
                    // The line runs inside the shape's edge, over the photo, so the frame keeps its size.
                    let line = try VipsImage.solid(width: width, height: height, values: border.color.channels)
                        .joining(
                            ShapeMask.image(
                                outline, width: width, height: height, innerStroke: border.width,
                                opacity: border.color.opacity))
                    picture = try picture.compositing([(line, 0, 0)])
                }
                cell = try CellEffects.multiplyAlpha(
                    picture, by: ShapeMask.image(outline, width: width, height: height))
            }
            guard let shadow = look.shadow else { return PlacedCell(image: cell, offsetX: 0, offsetY: 0) }
            let cast = try CellEffects.dropShadow(
                cell, sigma: shadow.blur * scale, offsetX: shadow.offset.x * scale, offsetY: shadow.offset.y * scale,
                color: shadow.color)
            cell = cast.image
            return PlacedCell(image: cell, offsetX: -cast.left, offsetY: -cast.top)
        }
    }

    /// How far a photo's shadow reaches past its frame on its widest side, in points.
    static func shadowReach(of look: ItemLook) -> Double {
        guard let shadow = look.shadow else { return 0 }
        return 3 * shadow.blur + max(abs(shadow.offset.x), abs(shadow.offset.y)) + 2
    }

    private static func pixelRect(_ rect: Rect) -> (x: Int, y: Int, width: Int, height: Int) {
        let x = Int(rect.x.rounded())
        let y = Int(rect.y.rounded())
        return (x, y, max(1, Int(rect.maxX.rounded()) - x), max(1, Int(rect.maxY.rounded()) - y))
    }
}

extension Color {
    /// Red, green and blue, 0–255, for a solid image.
    var channels: [Double] { [Double(red), Double(green), Double(blue)] }
    /// The alpha as 0–1.
    var opacity: Double { Double(alpha) / 255 }
}

/// One-band masks of a polygon, drawn by cairo with antialiased edges.
enum ShapeMask {
    /// The longest side a mask is drawn at: cairo's image surfaces stop at 32,767 pixels.
    static let maximumSide = 30_000.0

    /// A `width` × `height` mask, 255 × `opacity` inside `outline` (unit coordinates of the image)
    /// and 0 outside; with `innerStroke`, only the band that many pixels wide inside its edge.
    static func pixels(
        _ outline: [Point], width: Int, height: Int, innerStroke: Double? = nil, opacity: Double = 1
    ) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: width * height)
        guard outline.count >= 3, width > 0, height > 0,
            let surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(width), Int32(height))
        else { return mask }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let context = cairo_create(surface) else {
            return mask
        }
        defer { cairo_destroy(context) }
        cairo_new_path(context)
        for (index, point) in outline.enumerated() {
            let (x, y) = (point.x * Double(width), point.y * Double(height))
            if index == 0 { cairo_move_to(context, x, y) } else { cairo_line_to(context, x, y) }
        }
        cairo_close_path(context)
        cairo_set_source_rgba(context, 0, 0, 0, max(0, min(1, opacity)))
        if let innerStroke {
            // Half of a stroke twice as wide lies inside the outline: clipped to it, it is an
            // even band along the edge, round where the shape turns.
            cairo_clip_preserve(context)
            cairo_set_line_width(context, 2 * innerStroke)
            cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke(context)
        } else {
            cairo_fill(context)
        }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return mask }
        let stride = Int(cairo_image_surface_get_stride(surface))
        mask.withUnsafeMutableBufferPointer { mask in
            for row in 0..<height {
                guard let base = mask.baseAddress else { return }
                (base + row * width).update(from: data + row * stride, count: width)
            }
        }
        return mask
    }

    /// ``pixels(_:width:height:innerStroke:opacity:)`` as a one-band image.
    static func image(
        _ outline: [Point], width: Int, height: Int, innerStroke: Double? = nil, opacity: Double = 1
    ) throws(VipsError) -> VipsImage {
        try VipsImage.fromPixels(
            pixels(outline, width: width, height: height, innerStroke: innerStroke, opacity: opacity), width: width,
            height: height, bands: 1)
    }
}
