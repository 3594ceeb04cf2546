import CZlib
import CollageRender
import Foundation

/// Sticker files made ready for paper: sized, cut around, and tagged with their resolution.
public enum SheetStickers {
    /// Reads a sticker (a PNG or WebP with alpha) and sizes it so that its cut shape's longer
    /// side is about `size` millimetres at `options.dotsPerInch`, then cuts around it.
    /// - Throws: ``PrintError/unreadable(_:)``, ``PrintError/noSubject(_:)``.
    public static func prepare(
        file: URL, name: String, size: Double, options: CutLineOptions
    ) throws(PrintError)
        -> CutSticker
    {
        let whole = try read(file, maxSide: nil)
        guard let box = subjectBounds(of: whole) else { throw .noSubject(name) }
        let wanted = max(1, (size - 2 * options.offset) * options.pixelsPerMillimetre)
        let scale = wanted / Double(max(box.width, box.height))
        let longest = Double(max(whole.width, whole.height))
        let sized: Bitmap
        if scale < 1 {
            sized = try read(file, maxSide: max(1, Int((longest * scale).rounded())))
        } else {
            sized = enlarged(whole, by: scale)
        }
        return try CutSticker(sticker: sized, options: options, name: name)
    }

    /// How much of its size on paper a sticker's own pixels cover: below about 150 dpi a print
    /// looks soft. `nil` when the sticker has no subject.
    public static func effectiveResolution(file: URL, size: Double, offset: Double) -> Double? {
        guard let whole = try? read(file, maxSide: nil), let box = subjectBounds(of: whole) else { return nil }
        return Double(max(box.width, box.height)) / max(0.1, size - 2 * offset) * PrintLength.millimetresPerInch
    }

    /// Adds the resolution to a PNG file (its `pHYs` chunk, after the header), so print shops
    /// and layout programs size it right.
    /// - Throws: ``PrintError/unwritable(_:)``.
    public static func tagResolution(of file: URL, dotsPerInch: Double) throws(PrintError) {
        guard var data = try? Data(contentsOf: file), data.count > 33,
            data[12..<16] == Data("IHDR".utf8)
        else { throw .unwritable("\(file.path): not a PNG to tag with its resolution") }
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

    /// The bounds of the pixels at least half opaque (all of them without alpha).
    static func subjectBounds(of image: Bitmap) -> (width: Int, height: Int)? {
        guard image.channels == 4 || image.channels == 2 else { return (image.width, image.height) }
        var box = (minX: Int.max, minY: Int.max, maxX: -1, maxY: -1)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                for x in 0..<image.width where pixels[(y * image.width + x + 1) * image.channels - 1] >= 128 {
                    box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
                }
            }
        }
        guard box.maxX >= 0 else { return nil }
        return (box.maxX - box.minX + 1, box.maxY - box.minY + 1)
    }

    /// Bilinear enlargement (libvips shrinks on load; a sticker smaller than its print size is
    /// rare and soft whatever the filter).
    static func enlarged(_ image: Bitmap, by scale: Double) -> Bitmap {
        let width = max(1, Int((Double(image.width) * scale).rounded()))
        let height = max(1, Int((Double(image.height) * scale).rounded()))
        let channels = image.channels
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        image.pixels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                let sourceY = max(0, min(Double(image.height - 1), (Double(y) + 0.5) / scale - 0.5))
                let y0 = Int(sourceY)
                let y1 = min(image.height - 1, y0 + 1)
                let fy = sourceY - Double(y0)
                for x in 0..<width {
                    let sourceX = max(0, min(Double(image.width - 1), (Double(x) + 0.5) / scale - 0.5))
                    let x0 = Int(sourceX)
                    let x1 = min(image.width - 1, x0 + 1)
                    let fx = sourceX - Double(x0)
                    for channel in 0..<channels {
                        func at(_ px: Int, _ py: Int) -> Double {
                            Double(source[(py * image.width + px) * channels + channel])
                        }
                        let top = at(x0, y0) * (1 - fx) + at(x1, y0) * fx
                        let bottom = at(x0, y1) * (1 - fx) + at(x1, y1) * fx
                        pixels[(y * width + x) * channels + channel] = UInt8(
                            max(0, min(255, (top * (1 - fy) + bottom * fy).rounded())))
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels) ?? image
    }
}
