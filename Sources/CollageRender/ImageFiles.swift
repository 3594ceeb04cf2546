import Foundation

/// What a photo file is, read from its header.
public struct ImageInfo: Hashable, Sendable {
    /// Width as displayed (EXIF orientation applied).
    public let width: Int
    /// Height as displayed.
    public let height: Int
    /// `jpeg`, `png`, `heic`, `avif`, `webp`, `tiff` or `gif`.
    public let format: String
    /// The usual file extension for the format.
    public var fileExtension: String { format == "jpeg" ? "jpg" : format }
}

/// Photo files as the library handles them: identified, checked, and shrunk into thumbnails.
public enum ImageFiles {
    /// The formats a photo may be in.
    public static let supportedFormats = ["jpeg", "png", "heic", "avif", "webp", "tiff", "gif"]

    /// Reads a file's header: its displayed size and format. Refuses formats outside
    /// ``supportedFormats`` and images over the pixel limit, before any pixel is decoded.
    public static func inspect(_ file: URL, limits: RenderLimits = RenderLimits()) throws(RenderError) -> ImageInfo {
        let header = try PhotoDecoder(limits: limits).header(of: file)
        let format = try format(of: file, loader: header.loader)
        return ImageInfo(width: Int(header.size.width), height: Int(header.size.height), format: format)
    }

    /// Decodes `file` (all of it, so a corrupt file fails here) into a JPEG no larger than
    /// `maxSide` on its longer side, upright and in sRGB, written atomically to `output`; into a
    /// WebP that keeps the photo's transparency when `output` ends in `.webp`.
    public static func writeThumbnail(
        of file: URL, to output: URL, maxSide: Int, quality: Int = 85, limits: RenderLimits = RenderLimits()
    ) throws(RenderError) {
        let header = try PhotoDecoder(limits: limits).header(of: file)
        let longSide = max(header.size.width, header.size.height)
        let scale = min(1, Double(maxSide) / longSide)
        let width = max(1, Int((header.size.width * scale).rounded()))
        let height = max(1, Int((header.size.height * scale).rounded()))
        let image: VipsImage
        do {
            var decoded = try PhotoDecoder.srgb(
                VipsImage.thumbnail(file.path, width: width, height: height, convertProfile: header.hasProfile))
            // A see-through photo keeps its alpha where the output can (a WebP): the editor drew a
            // transparent PNG on white that the export showed on the collage's background.
            let keepsAlpha = output.pathExtension.lowercased() == "webp"
            if decoded.bands == 4, !keepsAlpha { decoded = try decoded.flattenedOnWhite() }
            // A preview is shown and can be saved from the page: it keeps no EXIF (GPS place) either.
            image = try decoded.asNewSRGBPicture().copyToMemory()
        } catch {
            throw .unreadableImage(file.path, reason: PhotoDecoder.tidy(error.message, path: file.path))
        }
        let format: OutputFormat = output.pathExtension.lowercased() == "webp" ? .webp : .jpeg
        try AtomicFile.write(to: output) { path throws(VipsError) in
            try image.save(to: path, format: format, quality: quality)
        }
    }

    private static func format(of file: URL, loader: String) throws(RenderError) -> String {
        switch loader {
        case "jpegload", "jpegload_source": return "jpeg"
        case "pngload", "pngload_source": return "png"
        case "webpload", "webpload_source": return "webp"
        case "tiffload", "tiffload_source": return "tiff"
        case "gifload", "gifload_source": return "gif"
        case "heifload", "heifload_source": return isAVIF(file) ? "avif" : "heic"
        default:
            let kind = loader.replacingOccurrences(of: "load", with: "").replacingOccurrences(of: "_source", with: "")
            throw .unreadableImage(
                file.path,
                reason: "\(kind.isEmpty ? "this kind of file" : kind.uppercased()) is not a photo format Collage "
                    + "imports; use JPEG, PNG, HEIC, AVIF, WebP, TIFF or GIF")
        }
    }

    /// HEIC and AVIF share a loader; the file type box's brand tells them apart.
    private static func isAVIF(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 32)) ?? Data()
        return String(decoding: head, as: UTF8.self).contains("avif")
    }
}
