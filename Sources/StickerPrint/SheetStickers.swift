import CZlib
import CollageCore
import CollageRender
import Foundation

/// Sticker files made ready for paper: sized, cut around, and tagged with their resolution.
public enum SheetStickers {
    /// Refuses, before any pixel is made, a sheet of `count` stickers of up to `size` mm on their
    /// longer side whose print pixels would be over ``CollageCore/Limits/maximumSheetPixels``
    /// together: every one is held (as colour and as its inside of the cut) while the sheet is
    /// packed and written, so this bounds a sheet's memory at about half a gigabyte.
    /// - Throws: ``PrintError/tooLarge(_:)`` naming the total and what to change.
    public static func checkSheetPixels(count: Int, size: Double, options: CutLineOptions) throws(PrintError) {
        let side = size * options.pixelsPerMillimetre
        let total = Double(count) * side * side
        guard total <= Double(Limits.maximumSheetPixels) else {
            let millions = total / 1_000_000
            throw .tooLarge(
                "\(count) sticker\(count == 1 ? "" : "s") of \(PrintLength.format(size)) mm at \(Int(options.dotsPerInch)) dpi are up to "
                    + "\(millions >= 10_000 ? "over 10000" : String(Int(millions.rounded(.up)))) million pixels; one sheet holds at most "
                    + "\(Limits.maximumSheetPixels / 1_000_000) million: choose fewer stickers, a smaller size or a lower resolution"
            )
        }
    }

    /// Reads a sticker (a PNG or WebP with alpha) and sizes it so that its cut shape's longer
    /// side is about `size` millimetres at `options.dotsPerInch`, then cuts around it. Only the
    /// subject and what lies inside its cut line are kept: a small subject in a large clear
    /// picture is not enlarged with all its clear pixels.
    /// - Throws: ``PrintError/unreadable(_:)``, ``PrintError/noSubject(_:)``, and
    ///   ``PrintError/invalidOption(_:)`` when `size` leaves no room inside the offsets or the
    ///   sticker would be over ``CollageCore/Limits/maximumStickerPrintPixels`` pixels.
    public static func prepare(
        file: URL, name: String, size: Double, options: CutLineOptions
    ) throws(PrintError)
        -> CutSticker
    {
        guard size.isFinite, size >= 2 * options.offset + 4 else {
            throw .invalidOption(
                "\(name): at \(PrintLength.format(size)) mm there is no room for a subject inside a "
                    + "\(PrintLength.format(options.offset)) mm cut line; give a size of at least "
                    + "\(PrintLength.format(2 * options.offset + 4)) mm")
        }
        let whole = try read(file, maxSide: nil)
        guard let box = subjectBox(of: whole) else { throw .noSubject(name) }
        let wanted = (size - 2 * options.offset) * options.pixelsPerMillimetre
        let scale = wanted / Double(max(box.width, box.height))
        // Everything inside the cut line is kept (a soft glow around the opaque core prints).
        let reach = (options.offset + 1) * options.pixelsPerMillimetre
        let finalWidth = Double(box.width) * scale + 2 * reach
        let finalHeight = Double(box.height) * scale + 2 * reach
        guard finalWidth * finalHeight <= Double(Limits.maximumStickerPrintPixels) else {
            throw .invalidOption(
                "\(name): \(PrintLength.format(size)) mm at \(Int(options.dotsPerInch)) dpi is over "
                    + "\(Limits.maximumStickerPrintPixels / 1_000_000) million pixels; give a smaller size or resolution"
            )
        }
        // The sized picture, and where the whole one lies from its top-left, in its pixels.
        let sized: Bitmap
        let picture: (x: Double, y: Double, width: Double, height: Double)
        if scale < 1 {
            // libvips shrinks the whole file on load; the subject is then found again and cut out.
            let longest = Double(max(whole.width, whole.height))
            let shrunk = try read(file, maxSide: max(1, Int((longest * scale).rounded())))
            guard let small = subjectBox(of: shrunk) else { throw .noSubject(name) }
            let crop = cropped(shrunk, to: small, margin: Int(reach.rounded(.up)))
            sized = crop.image
            picture = (-Double(crop.left), -Double(crop.top), Double(shrunk.width), Double(shrunk.height))
        } else {
            let crop = cropped(whole, to: box, margin: Int((reach / scale).rounded(.up)))
            sized = enlarged(crop.image, by: scale)
            let (scaleX, scaleY) = (
                Double(sized.width) / Double(crop.image.width), Double(sized.height) / Double(crop.image.height)
            )
            picture = (
                -Double(crop.left) * scaleX, -Double(crop.top) * scaleY, Double(whole.width) * scaleX,
                Double(whole.height) * scaleY
            )
        }
        var sticker = try CutSticker(sticker: sized, options: options, name: name)
        sticker.pictureDotsPerInch =
            Double(max(box.width, box.height)) / max(0.1, size - 2 * options.offset) * PrintLength.millimetresPerInch
        sticker.pictureFrame = (
            Double(sticker.stickerOrigin.x) + picture.x, Double(sticker.stickerOrigin.y) + picture.y, picture.width,
            picture.height
        )
        return sticker
    }

    /// Adds the resolution to a PNG file (its `pHYs` chunk, after the header), so print shops
    /// and layout programs size it right.
    /// - Throws: ``PrintError/unwritable(_:)``.
    public static func tagResolution(of file: URL, dotsPerInch: Double) throws(PrintError) {
        guard var data = try? Data(contentsOf: file), data.count > 33,
            data[12..<16] == Data("IHDR".utf8)
        else { throw .unwritable("\(file.path): not a PNG to tag with its resolution") }
        // A PNG has at most one pHYs chunk: one already there is replaced.
        var offset = 8
        while offset + 12 <= data.count {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 12 + length
            guard end <= data.count else { break }
            if data[offset + 4..<offset + 8] == Data("pHYs".utf8) {
                data.removeSubrange(offset..<end)
                break
            }
            offset = end
        }
        let perMetre = UInt32((dotsPerInch / 0.0254).rounded())
        var chunk = Data("pHYs".utf8)
        for _ in 0..<2 {
            chunk.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: perMetre >> $0) })
        }
        chunk.append(1)  // the unit is the metre
        let crc = chunk.withUnsafeBytes { bytes in
            crc32(0, bytes.bindMemory(to: UInt8.self).baseAddress, uInt(bytes.count))
        }
        var whole = Data([0, 0, 0, 9])
        whole.append(chunk)
        whole.append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(crc) >> $0) })
        data.insert(contentsOf: whole, at: 33)
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw .unwritable("\(file.path): \(error.localizedDescription)")
        }
    }

    private static func read(_ file: URL, maxSide: Int?) throws(PrintError) -> Bitmap {
        do {
            return try Bitmap.read(file, maxSide: maxSide)
        } catch {
            throw .unreadable(error.description)
        }
    }

    /// The box of the pixels at least half opaque (the whole picture without alpha).
    static func subjectBox(of image: Bitmap) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard image.channels == 4 || image.channels == 2 else { return (0, 0, image.width, image.height) }
        var box = (minX: Int.max, minY: Int.max, maxX: -1, maxY: -1)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                for x in 0..<image.width where pixels[(y * image.width + x + 1) * image.channels - 1] >= 128 {
                    box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
                }
            }
        }
        guard box.maxX >= 0 else { return nil }
        return (box.minX, box.minY, box.maxX - box.minX + 1, box.maxY - box.minY + 1)
    }

    /// `image` cut to `box` grown by `margin` pixels (within the picture), and where the cut's
    /// top-left corner was.
    static func cropped(
        _ image: Bitmap, to box: (x: Int, y: Int, width: Int, height: Int), margin: Int
    ) -> (
        image: Bitmap, left: Int, top: Int
    ) {
        let left = max(0, box.x - margin)
        let top = max(0, box.y - margin)
        let right = min(image.width, box.x + box.width + margin)
        let bottom = min(image.height, box.y + box.height + margin)
        let channels = image.channels
        var pixels = [UInt8]()
        pixels.reserveCapacity((right - left) * (bottom - top) * channels)
        for y in top..<bottom {
            let start = (y * image.width + left) * channels
            pixels.append(contentsOf: image.pixels[start..<start + (right - left) * channels])
        }
        return (
            Bitmap(width: right - left, height: bottom - top, channels: channels, pixels: pixels) ?? image, left, top
        )
    }

    /// Bilinear enlargement (libvips shrinks on load; a sticker smaller than its print size is
    /// rare and soft whatever the filter), in fixed point with each column's weights worked out
    /// once: a sheet enlarges dozens of stickers.
    static func enlarged(_ image: Bitmap, by scale: Double) -> Bitmap {
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        let channels = image.channels
        /// Where a target position falls between two source positions, and the far one's weight of 256.
        func taps(_ count: Int, from sourceCount: Int) -> [(near: Int, far: Int, weight: Int)] {
            (0..<count).map { target in
                let source = max(0, min(Double(sourceCount - 1), (Double(target) + 0.5) / scale - 0.5))
                let near = Int(source)
                return (near, min(sourceCount - 1, near + 1), Int(((source - Double(near)) * 256).rounded()))
            }
        }
        let columns = taps(width, from: image.width)
        let rows = taps(height, from: image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                for (y, row) in rows.enumerated() {
                    let (upper, lower) = (row.near * image.width * channels, row.far * image.width * channels)
                    let (rowFar, rowNear) = (row.weight, 256 - row.weight)
                    var out = y * width * channels
                    for column in columns {
                        let (near, far) = (column.near * channels, column.far * channels)
                        let (columnFar, columnNear) = (column.weight, 256 - column.weight)
                        for channel in 0..<channels {
                            let top =
                                Int(source[upper + near + channel]) * columnNear
                                + Int(source[upper + far + channel]) * columnFar
                            let bottom =
                                Int(source[lower + near + channel]) * columnNear
                                + Int(source[lower + far + channel]) * columnFar
                            target[out] = UInt8(
                                truncatingIfNeeded: min(255, (top * rowNear + bottom * rowFar + 32768) >> 16))
                            out += 1
                        }
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels) ?? image
    }
}
