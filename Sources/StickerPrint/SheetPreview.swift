import CCairo
import CollageCore
import CollageRender
import Foundation

/// A sheet page drawn as a PNG with cairo: the stickers on white paper, their cut lines in
/// magenta on top, and the registration marks, so a person sees what will be printed and cut.
public enum SheetPreview {
    /// Writes page `page` of `layout` to `file` at `dotsPerInch`.
    /// - Throws: ``PrintError/unwritable(_:)`` naming the file and cairo's reason.
    public static func write(
        page: Int, of layout: SheetLayout, to file: URL, dotsPerInch: Double = 100
    )
        throws(PrintError)
    {
        let options = layout.options
        let scale = dotsPerInch / PrintLength.millimetresPerInch
        let width = Int32((options.pageWidth * scale).rounded())
        let height = Int32((options.pageHeight * scale).rounded())
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height) else {
            throw .unwritable("\(file.path): cairo could not make a \(width) × \(height) page")
        }
        defer { cairo_surface_destroy(surface) }
        guard let context = cairo_create(surface) else { throw .unwritable("\(file.path): cairo could not draw") }
        defer { cairo_destroy(context) }
        cairo_set_source_rgb(context, 1, 1, 1)
        cairo_paint(context)
        // From here on the units are millimetres.
        cairo_scale(context, scale, scale)
        for placement in layout.placements where placement.page == page {
            let sticker = layout.stickers[placement.sticker]
            guard let picture = Self.surface(of: sticker.image) else { continue }
            defer { cairo_surface_destroy(picture) }
            let (stickerWidth, stickerHeight) = sticker.sizeInMillimetres
            let origin = layout.pagePoint(Point(x: 0, y: 0), of: placement)
            let across = layout.pagePoint(Point(x: stickerWidth, y: 0), of: placement)
            let down = layout.pagePoint(Point(x: 0, y: stickerHeight), of: placement)
            let (columns, rows) = (Double(sticker.image.width), Double(sticker.image.height))
            var matrix = cairo_matrix_t(
                xx: (across.x - origin.x) / columns, yx: (across.y - origin.y) / columns,
                xy: (down.x - origin.x) / rows, yy: (down.y - origin.y) / rows, x0: origin.x, y0: origin.y)
            cairo_save(context)
            cairo_transform(context, &matrix)
            cairo_set_source_surface(context, picture, 0, 0)
            cairo_paint(context)
            cairo_restore(context)
        }
        if options.registrationMarks {
            cairo_set_source_rgb(context, 0, 0, 0)
            for (x, y, markWidth, markHeight) in RegistrationMarks.rectangles(
                pageWidth: options.pageWidth, pageHeight: options.pageHeight)
            {
                cairo_rectangle(context, x, y, markWidth, markHeight)
            }
            cairo_fill(context)
        }
        cairo_set_source_rgb(context, 0.93, 0, 0.55)
        cairo_set_line_width(context, max(0.3, 1.5 / scale))
        for placement in layout.placements where placement.page == page {
            let path = layout.pagePath(of: placement)
            cairo_move_to(context, path.start.x, path.start.y)
            for segment in path.segments {
                switch segment {
                case .line(let end): cairo_line_to(context, end.x, end.y)
                case .curve(let first, let second, let end):
                    cairo_curve_to(context, first.x, first.y, second.x, second.y, end.x, end.y)
                }
            }
            cairo_close_path(context)
        }
        cairo_stroke(context)
        cairo_surface_flush(surface)
        let status = cairo_surface_write_to_png(surface, file.path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw .unwritable("\(file.path): \(String(cString: cairo_status_to_string(status)))")
        }
    }

    /// An RGBA bitmap as a cairo surface (premultiplied, native-endian ARGB words).
    private static func surface(of image: Bitmap) -> OpaquePointer? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height)),
            let data = cairo_image_surface_get_data(surface)
        else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        cairo_surface_flush(surface)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<image.width {
                    let source = (y * image.width + x) * 4
                    let alpha = UInt32(pixels[source + 3])
                    func premultiplied(_ value: UInt8) -> UInt32 { (UInt32(value) * alpha + 127) / 255 }
                    row[x] =
                        alpha << 24 | premultiplied(pixels[source]) << 16 | premultiplied(pixels[source + 1]) << 8
                        | premultiplied(pixels[source + 2])
                }
            }
        }
        cairo_surface_mark_dirty(surface)
        return surface
    }
}
