import CVips
import CollageCore
import Foundation

/// A picture for a messenger's sticker pack, encoded to fit its byte limit.
public struct PackImage: Sendable, Equatable {
    /// The encoded file.
    public let data: Data
    /// Its width in pixels.
    public let width: Int
    /// Its height in pixels.
    public let height: Int
    /// The encoder's quality that made it fit (1–100), or nil when it is lossless.
    public let quality: Int?
}

/// What a pack picture's own bytes say it is, read from its header without decoding it.
public struct PackFileInfo: Sendable, Equatable {
    /// `png` or `webp`.
    public let format: String
    /// Its width in pixels.
    public let width: Int
    /// Its height in pixels.
    public let height: Int
    /// Whether it has more than one frame (an APNG's `acTL` chunk, a WebP's animation flag).
    public let animated: Bool
    /// Whether it can hold transparency (PNG colour types with alpha or a `tRNS` chunk, a WebP's
    /// alpha flag or lossless alpha).
    public let hasAlpha: Bool
}

/// Stickers made into a messenger pack's pictures: scaled whole into the messenger's size with
/// its margin and outline, then encoded at the highest quality that fits its byte limit.
public enum PackImages {
    /// `sticker` (RGBA) scaled so the subject fits `side` less `margin` on each side, outlined in
    /// white `outline` pixels wide, and centred on a clear canvas: `side` × `side` when `square`,
    /// else `side` along its longer side and as much as the subject needs along the other.
    /// - Throws: ``RenderError/invalidOptions(_:)`` for a sticker with nothing opaque.
    public static func fit(
        _ sticker: Bitmap, side: Int, square: Bool, margin: Int, outline: Double
    ) throws(RenderError) -> Bitmap {
        guard sticker.channels == 4 else { throw .invalidOptions("a sticker needs an alpha channel") }
        guard let box = opaqueBounds(of: sticker) else {
            throw .invalidOptions("it has no subject: every pixel is clear")
        }
        let room = Double(side - 2 * margin)
        do throws(VipsError) {
            var image = try VipsImage.fromPixels(sticker.pixels, width: sticker.width, height: sticker.height, bands: 4)
                .extractArea(x: box.x, y: box.y, width: box.width, height: box.height)
            // The outline's own room is kept out of the scale, so a thin subject is not shrunk twice.
            let ring = outline > 0 ? outline.rounded(.up) + 2 : 0
            let scale = max(1e-3, (room - 2 * ring) / Double(max(box.width, box.height)))
            let original = image
            image = try resizedKeepingEdges(image, scale: scale)
            if outline > 0 { image = try CellEffects.outline(image, width: outline, planning: original).0 }
            // The ring may need a pixel or two more than foreseen: the whole is brought inside.
            let over = Double(max(image.width, image.height)) / room
            if over > 1 { image = try resizedKeepingEdges(image, scale: 1 / over) }
            let canvasWidth = square || image.width >= image.height ? side : min(side, image.width + 2 * margin)
            let canvasHeight = square || image.height >= image.width ? side : min(side, image.height + 2 * margin)
            image = try image.embed(
                x: (canvasWidth - image.width) / 2, y: (canvasHeight - image.height) / 2, width: canvasWidth,
                height: canvasHeight)
            let pixels = try image.pixels()
            guard let result = Bitmap(width: image.width, height: image.height, channels: 4, pixels: pixels) else {
                throw VipsError(operation: "pack picture", message: "unexpected pixel layout")
            }
            return result
        } catch {
            throw .failed("could not size the sticker: \(error.message)")
        }
    }

    /// How many times ``fit(_:side:square:margin:outline:)`` enlarges `sticker`'s subject (its opaque
    /// part) to fill `side` less `margin` on each side, and that part's size in pixels; nil for
    /// a sticker with nothing opaque. Past 2× a picture looks soft.
    public static func enlargement(
        of sticker: Bitmap, side: Int, margin: Int
    ) -> (factor: Double, width: Int, height: Int)? {
        guard sticker.channels == 4, let box = opaqueBounds(of: sticker) else { return nil }
        return (Double(side - 2 * margin) / Double(max(box.width, box.height)), box.width, box.height)
    }

    /// `image` encoded as `format` at the best quality whose file is at most `maximumBytes`:
    /// WebP from quality 90 down in steps of 10; PNG lossless first, then on a palette of falling
    /// quality. The subject's size never changes: only the encoding gives way.
    /// - Throws: ``RenderError/invalidOptions(_:)`` saying how small it came and the limit,
    ///   when even the lowest quality is too large.
    public static func encode(
        _ image: Bitmap, as format: PackImageFormat, maximumBytes: Int
    ) throws(RenderError) -> PackImage {
        let attempts: [Int?] =
            switch format {
            case .webp: [90, 80, 70, 60, 50, 40, 30, 20, 10]
            case .png: [nil, 100, 90, 75, 60, 45, 30, 15]
            }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("collage-pack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(folder.path, reason: error.localizedDescription)
        }
        var smallest = Int.max
        for quality in attempts {
            let file = folder.appendingPathComponent("picture.\(format.rawValue)")
            let written: Result<Void, VipsError> = image.pixels.withUnsafeBytes { buffer in
                Result { () throws(VipsError) in
                    let borrowed = try VipsImage.borrowing(
                        buffer, width: image.width, height: image.height, bands: image.channels)
                    try borrowed.savePackPicture(to: file.path, format: format, quality: quality)
                }
            }
            do throws(VipsError) {
                try written.get()
            } catch {
                throw .failed("could not encode the \(format.rawValue.uppercased()): \(error.message)")
            }
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                throw .cannotWrite(file.path, reason: error.localizedDescription)
            }
            if data.count <= maximumBytes {
                return PackImage(data: data, width: image.width, height: image.height, quality: quality)
            }
            smallest = min(smallest, data.count)
        }
        throw .invalidOptions(
            "even at the lowest quality its \(format.rawValue.uppercased()) is \(Self.bytes(smallest)), over the "
                + "limit of \(Self.bytes(maximumBytes)); a simpler subject (fewer fine details) fits")
    }

    /// What a pack picture's bytes say it is, or nil when they are neither a PNG nor a WebP.
    public static func inspect(_ data: Data) -> PackFileInfo? {
        let bytes = [UInt8](data)
        func big32(_ at: Int) -> Int {
            bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        func little(_ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        if bytes.count >= 33, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            bytes[12..<16] == [0x49, 0x48, 0x44, 0x52]
        {
            // The chunks up to the first image data: an acTL makes it animated, a tRNS gives a
            // palette or grey image its transparency.
            var (animated, transparency) = (false, false)
            var at = 8
            while at + 8 <= bytes.count {
                let length = big32(at)
                let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
                if type == "acTL" { animated = true }
                if type == "tRNS" { transparency = true }
                if type == "IDAT" || length < 0 || length > bytes.count { break }
                at += 12 + length
            }
            let colourType = bytes[25]
            return PackFileInfo(
                format: "png", width: big32(16), height: big32(20), animated: animated,
                hasAlpha: colourType == 4 || colourType == 6 || transparency)
        }
        guard bytes.count >= 30, bytes[0..<4] == ArraySlice("RIFF".utf8), bytes[8..<12] == ArraySlice("WEBP".utf8)
        else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8X":
            let flags = bytes[20]
            return PackFileInfo(
                format: "webp", width: little(24, 3) + 1, height: little(27, 3) + 1, animated: flags & 0x02 != 0,
                hasAlpha: flags & 0x10 != 0)
        case "VP8L":
            // After the signature byte 0x2F: 14 bits of width − 1, 14 of height − 1, one of alpha.
            let bits = little(21, 4)
            return PackFileInfo(
                format: "webp", width: bits & 0x3FFF + 1, height: (bits >> 14) & 0x3FFF + 1, animated: false,
                hasAlpha: (bits >> 28) & 1 != 0)
        case "VP8 ":
            // A key frame's start code, then 14 bits each of width and height.
            return PackFileInfo(
                format: "webp", width: little(26, 2) & 0x3FFF, height: little(28, 2) & 0x3FFF, animated: false,
                hasAlpha: false)
        default:
            return nil
        }
    }

    /// Bytes as people read them: "98.2 KB".
    public static func bytes(_ count: Int) -> String {
        // A limit set in binary units (Signal's 300 KiB) is said as it is published.
        if count >= 100 * 1_024, count % 1_024 == 0, count % 1_000 != 0 { return "\(count / 1_024) KiB" }
        return count < 1_000 ? "\(count) bytes" : String(format: "%.1f KB", Double(count) / 1_000)
    }

    /// The smallest rectangle holding every pixel that is not clear.
    static func opaqueBounds(of sticker: Bitmap) -> (x: Int, y: Int, width: Int, height: Int)? {
        var (left, top, right, bottom) = (Int.max, Int.max, -1, -1)
        for y in 0..<sticker.height {
            for x in 0..<sticker.width where sticker.pixels[(y * sticker.width + x) * 4 + 3] > 0 {
                left = min(left, x)
                right = max(right, x)
                top = min(top, y)
                bottom = max(bottom, y)
            }
        }
        guard right >= 0 else { return nil }
        return (left, top, right - left + 1, bottom - top + 1)
    }

    static func resizedKeepingEdges(_ image: VipsImage, scale: Double) throws(VipsError) -> VipsImage {
        try image.resizedKeepingEdges(horizontal: scale, vertical: scale)
    }
}

extension VipsImage {
    /// Resized with premultiplied alpha (an opaque image given one), so the clear pixels' colours
    /// do not bleed into the edge.
    func resizedKeepingEdges(horizontal: Double, vertical: Double) throws(VipsError) -> VipsImage {
        let withAlpha = bands == 3 ? try appendingBand(value: 255) : self
        return try withAlpha.premultiply().resize(horizontal: horizontal, vertical: vertical).unpremultiply()
            .castToUInt8()
    }

    /// Writes a sticker pack's picture: WebP at `quality`, or PNG lossless (`quality` nil) or on a
    /// palette at `quality`, each at its smallest.
    func savePackPicture(to path: String, format: PackImageFormat, quality: Int?) throws(VipsError) {
        let status: Int32 =
            switch (format, quality) {
            case (.webp, let quality): cvips_webpsave_smallest(handle, path, Int32(quality ?? 90))
            case (.png, nil): cvips_pngsave(handle, path, 9)
            case (.png, let quality?): cvips_pngsave_palette(handle, path, Int32(quality))
            }
        guard status == 0 else { throw VipsError(operation: "\(format.rawValue) save", message: Vips.takeError()) }
    }
}
