import Foundation

/// 8-bit interleaved pixels in memory: what a decoded file looks like, or what will be encoded.
///
/// The renderer itself streams through libvips; a bitmap is for the places that need the pixels
/// in hand (masks from a model, checks of a rendered result, generated images).
public struct Bitmap: Hashable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Samples per pixel: 1 (grey), 3 (RGB) or 4 (RGBA).
    public let channels: Int
    /// Row-major samples, `width * height * channels` of them.
    public private(set) var pixels: [UInt8]

    /// A bitmap filled with one colour; `color` has one value per channel.
    public init(width: Int, height: Int, color: [UInt8]) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.channels = color.count
        // Doubling copies (memcpy each time) rather than one pixel at a time: a test photo of a
        // few megapixels is made in milliseconds even in a debug build.
        let count = self.width * self.height * color.count
        var pixels = color
        pixels.reserveCapacity(count)
        while pixels.count < count { pixels.append(contentsOf: pixels.prefix(count - pixels.count)) }
        self.pixels = count == 0 ? [] : pixels
    }

    /// A bitmap over existing samples; `nil` when the count does not match the size.
    public init?(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, [1, 3, 4].contains(channels), pixels.count == width * height * channels else {
            return nil
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// The samples of the pixel at (`x`, `y`).
    public subscript(x: Int, y: Int) -> [UInt8] {
        get {
            let start = (y * width + x) * channels
            return Array(pixels[start..<start + channels])
        }
        set {
            let start = (y * width + x) * channels
            for channel in 0..<min(channels, newValue.count) { pixels[start + channel] = newValue[channel] }
        }
    }

    /// The `width` × `height` pixels whose top-left is (`x`, `y`), as RGB; what lies outside
    /// this bitmap is black.
    public func region(x: Int, y: Int, width: Int, height: Int) -> Bitmap {
        var result = Bitmap(width: width, height: height, color: [0, 0, 0])
        let (left, right) = (max(0, x), min(self.width, x + width))
        let (top, bottom) = (max(0, y), min(self.height, y + height))
        guard left < right, top < bottom else { return result }
        for row in top..<bottom {
            for column in left..<right {
                let from = (row * self.width + column) * channels
                let to = ((row - y) * width + column - x) * 3
                result.pixels[to] = pixels[from]
                result.pixels[to + 1] = pixels[from + min(1, channels - 1)]
                result.pixels[to + 2] = pixels[from + min(2, channels - 1)]
            }
        }
        return result
    }

    /// The same pixels as RGBA, fully opaque where there was no alpha.
    public func addingOpaqueAlpha() -> Bitmap {
        guard channels != 4 else { return self }
        var rgba = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<(width * height) {
            for channel in 0..<3 { rgba[index * 4 + channel] = pixels[index * channels + min(channel, channels - 1)] }
        }
        return Bitmap(width: width, height: height, channels: 4, pixels: rgba) ?? self
    }

    /// Decodes a file upright (EXIF orientation applied) as 8-bit sRGB, keeping alpha when the
    /// file has it.
    /// - Parameter maxSide: shrink (on load, cheaply) so the longer side is at most this.
    /// - Throws: ``RenderError`` naming the file and the problem.
    public static func read(
        _ file: URL, maxSide: Int? = nil, limits: RenderLimits = RenderLimits()
    )
        throws(RenderError) -> Bitmap
    {
        let decoder = PhotoDecoder(limits: limits)
        let header = try decoder.header(of: file)
        let scale = maxSide.map { min(1, Double($0) / max(header.size.width, header.size.height)) } ?? 1
        return try decoding(file) { () throws(VipsError) in
            var image = try VipsImage.thumbnail(
                file.path, width: max(1, Int((header.size.width * scale).rounded())),
                height: max(1, Int((header.size.height * scale).rounded())), convertProfile: header.hasProfile
            ).toSRGB()
            if image.bands == 2 || image.bands > 4 { image = try PhotoDecoder.rgba(image) }
            return image
        }
    }

    /// A mask written by ``write(to:format:quality:orientation:)`` from a one-channel bitmap, read
    /// back as it was stored: one channel, no orientation, no colour conversion (which would
    /// triple it to RGB and cost a 12 MP mask a tenth of a second).
    public static func readMask(_ file: URL) throws(RenderError) -> Bitmap {
        try decoding(file) { () throws(VipsError) in
            let image = try VipsImage.openSequential(file.path, loader: "", shrink: 1)
            return image.bands > 1 ? try image.extractBands(0, count: 1) : image
        }
    }

    /// The pixels of the image `open` makes of `file`, with libvips' errors named for the file.
    private static func decoding(
        _ file: URL, _ open: () throws(VipsError) -> VipsImage
    ) throws(RenderError) -> Bitmap {
        let image: VipsImage
        let pixels: [UInt8]
        do throws(VipsError) {
            image = try open()
            pixels = try image.pixels()
        } catch {
            throw .unreadableImage(file.path, reason: PhotoDecoder.tidy(error.message, path: file.path))
        }
        guard let bitmap = Bitmap(width: image.width, height: image.height, channels: image.bands, pixels: pixels)
        else { throw .failed("\(file.path): decoded to an unexpected pixel layout") }
        return bitmap
    }

    /// Encodes the bitmap to `file`, optionally tagged with an EXIF orientation (JPEG, PNG, WebP),
    /// replacing the file atomically.
    public func write(
        to file: URL, format: OutputFormat, quality: Int = 95, orientation: Int = 1
    )
        throws(RenderError)
    {
        // The encoder reads the pixels in place; the image is gone before the buffer is.
        let result: Result<Void, RenderError> = pixels.withUnsafeBytes { buffer in
            let save: (String) throws(VipsError) -> Void
            if format == .png, orientation == 1 {
                save = { path throws(VipsError) in
                    try Vips.writePNG(buffer, width: width, height: height, channels: channels, to: path)
                }
            } else {
                let image: VipsImage
                do throws(VipsError) {
                    image = try VipsImage.borrowing(buffer, width: width, height: height, bands: channels)
                        .settingOrientation(orientation)
                } catch {
                    return .failure(.failed("could not prepare \(file.path): \(error.message)"))
                }
                save = { path throws(VipsError) in try image.save(to: path, format: format, quality: quality) }
            }
            return Result { () throws(RenderError) in try AtomicFile.write(to: file, save) }
        }
        try result.get()
    }
}
