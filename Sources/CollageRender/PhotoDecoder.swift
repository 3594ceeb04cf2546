import CollageCore
import Foundation

/// Decodes photos for cells: checked before any pixel is read, then shrunk on load.
struct PhotoDecoder {
    let limits: RenderLimits

    /// What the header says about a photo.
    struct Header {
        /// The pixel size as it displays, EXIF orientation applied.
        let size: Size
        /// Whether it embeds an ICC profile to convert through (one that is sRGB already is not).
        let hasProfile: Bool
        /// The libvips loader that reads it, e.g. `jpegload`.
        let loader: String
        /// The pixel size as stored, before orientation.
        let storedWidth: Int
        let storedHeight: Int
        /// The EXIF orientation, 1–8.
        let orientation: Int
    }

    /// The photo's header, after checking the file exists, is not empty, is an image, and is
    /// within the pixel limit. Reads no pixels.
    func header(of file: URL) throws(RenderError) -> Header {
        let path = file.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .missingFile(path) }
        guard !isDirectory.boolValue else { throw .unreadableImage(path, reason: "it is a folder") }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard bytes > 0 else { throw .emptyFile(path) }
        let header: VipsImage
        do {
            header = try VipsImage.openHeader(path)
        } catch {
            throw .unreadableImage(path, reason: Self.tidy(error.message, path: path))
        }
        let (width, height) = (header.width, header.height)
        guard width.multipliedReportingOverflow(by: height).partialValue <= limits.maximumInputPixels,
            width <= limits.maximumInputPixels, height <= limits.maximumInputPixels
        else { throw .imageTooLarge(path, width: width, height: height, limit: limits.maximumInputPixels) }
        let size =
            header.orientation >= 5
            ? Size(width: Double(height), height: Double(width)) : Size(width: Double(width), height: Double(height))
        return Header(
            size: size, hasProfile: header.hasProfile && !header.profileIsSRGB, loader: header.loader,
            storedWidth: width,
            storedHeight: height, orientation: header.orientation)
    }

    /// The photo filling a `width` × `height` cell with an aspect-fill crop, as 8-bit sRGB with
    /// alpha. The result is a lazy pipeline, so several photos decode in parallel when the
    /// collage is written; `materialize` decodes it now instead, so a bad file fails here, naming
    /// itself (see ``CollageRenderer``'s diagnosis after a failed write). `decodedAhead` says the
    /// cell will be decoded into memory before the write anyway, so a JPEG's crop may be held in
    /// memory while it is (see ``VipsImage/jpegRegion(_:shrink:x:y:width:height:)``); a render
    /// too big to decode ahead streams each photo instead.
    func cover(
        _ file: URL, width: Int, height: Int, crop: Crop, materialize: Bool = false, decodedAhead: Bool = false
    ) throws(RenderError)
        -> VipsImage
    {
        let path = file.path
        let header = try header(of: file)
        let source = CropMath.sourceRect(
            imageSize: header.size, frameSize: Size(width: Double(width), height: Double(height)), crop: crop)
        do {
            var image =
                Self.cropsBeforeDecoding.contains(header.loader)
                ? try Self.croppedCell(
                    path, header: header, source: source, width: width, height: height,
                    holdsCrop: materialize || decodedAhead)
                : try Self.thumbnailCell(path, header: header, source: source, width: width, height: height)
            image = try Self.srgb(image)
            return materialize ? try image.copyToMemory() : image
        } catch {
            throw .unreadableImage(path, reason: Self.tidy(error.message, path: path))
        }
    }

    /// Formats read row by row, where decoding only the crop (shrunk on load for JPEG) and
    /// resampling just that beats resampling the whole photo first.
    private static let cropsBeforeDecoding: Set<String> = ["jpegload", "pngload", "webpload", "heifload"]

    /// Opens the stored pixels at the largest JPEG shrink that still covers the cell, cuts out the
    /// crop in stored coordinates, resamples it to the cell, then converts the profile and turns
    /// the (small) cell upright, so no pixel outside the crop is ever resampled. With `holdsCrop`
    /// (the cell is decoded into memory before the write), a JPEG decodes only the crop's
    /// columns and stops after its last row, holding the crop until the cell is made.
    private static func croppedCell(
        _ path: String, header: Header, source: Rect, width: Int, height: Int, holdsCrop: Bool
    ) throws(VipsError) -> VipsImage {
        let factor = min(Double(width) / source.width, Double(height) / source.height)
        var shrink = 1
        while shrink < 8, Double(shrink * 2) * factor <= 1 { shrink *= 2 }
        let turned = header.orientation >= 5
        let (cellWidth, cellHeight) = turned ? (height, width) : (width, height)
        let area = storedRect(of: source, header: header)
        var image: VipsImage
        if holdsCrop, header.loader == "jpegload",
            let region = try jpegRegion(
                path, header: header, area: area, shrink: shrink, cell: (cellWidth, cellHeight))
        {
            image = try resampled(region, width: cellWidth, height: cellHeight)
        } else {
            let stored = try VipsImage.openSequential(path, loader: header.loader, shrink: shrink)
            image = try cut(
                area, from: stored, scaleX: Double(stored.width) / Double(header.storedWidth),
                scaleY: Double(stored.height) / Double(header.storedHeight), width: cellWidth, height: cellHeight)
        }
        if header.hasProfile { image = try image.convertingProfileToSRGB() }
        // Turning reads out of order, which a one-pass decode cannot serve: keep the cell instead.
        if header.orientation != 1 { image = try image.copyToMemory().oriented(header.orientation) }
        return image
    }

    /// `area` (in stored pixels) of a JPEG decoded at 1/`shrink`: the pixels ``cut(_:from:scaleX:scaleY:width:height:)``
    /// would take from the whole photo opened at that shrink. `nil` for a JPEG it does not handle.
    private static func jpegRegion(
        _ path: String, header: Header, area: Rect, shrink: Int, cell: (width: Int, height: Int)
    ) throws(VipsError) -> VipsImage? {
        // The size libvips' loader gives at 1/shrink: libjpeg's, less a last partial pixel.
        let width = max(1, header.storedWidth / shrink)
        let height = max(1, header.storedHeight / shrink)
        let piece = pieceRect(
            of: area, scaleX: Double(width) / Double(header.storedWidth),
            scaleY: Double(height) / Double(header.storedHeight), within: (width, height))
        // Shrunk by the reader as it is decoded, in a sixth of libvips' resize time at half its
        // CPU (see reduce.c); a piece to enlarge, or to shrink further, goes to libvips.
        let most = VipsImage.reducesAtMost
        let reducible =
            cell.width <= piece.width && cell.height <= piece.height && piece.width <= most * cell.width
            && piece.height <= most * cell.height
        return try VipsImage.jpegRegion(
            path, shrink: shrink, x: piece.x, y: piece.y, width: piece.width, height: piece.height,
            shrunkTo: reducible ? cell : nil)
    }

    /// `displayed` (a rectangle of the photo as shown, orientation applied) in the stored pixels'
    /// coordinates.
    static func storedRect(of displayed: Rect, header: Header) -> Rect {
        let (width, height) = (Double(header.storedWidth), Double(header.storedHeight))
        let (x, y, w, h) = (displayed.x, displayed.y, displayed.width, displayed.height)
        switch header.orientation {
        case 2: return Rect(x: width - x - w, y: y, width: w, height: h)
        case 3: return Rect(x: width - x - w, y: height - y - h, width: w, height: h)
        case 4: return Rect(x: x, y: height - y - h, width: w, height: h)
        case 5: return Rect(x: y, y: x, width: h, height: w)
        case 6: return Rect(x: y, y: height - x - w, width: h, height: w)
        case 7: return Rect(x: width - y - h, y: height - x - w, width: h, height: w)
        case 8: return Rect(x: width - y - h, y: x, width: h, height: w)
        default: return displayed
        }
    }

    /// Other formats (SVG, PDF, GIF, TIFF pyramids…) go through libvips' thumbnail, which knows
    /// each one's own way to load small.
    private static func thumbnailCell(
        _ path: String, header: Header, source: Rect, width: Int, height: Int
    ) throws(VipsError) -> VipsImage {
        let size = header.size
        // Never asked to enlarge: `cut` enlarges from memory (see there), the only way a one-pass
        // load can be enlarged safely.
        let factor = min(1, Double(width) / source.width)
        let decodeWidth = max(1, Int((size.width * factor).rounded(.up)))
        let decodeHeight = max(1, Int((size.height * factor).rounded(.up)))
        let image = try VipsImage.thumbnail(
            path, width: decodeWidth, height: decodeHeight, convertProfile: header.hasProfile)
        let scaleX = Double(image.width) / size.width
        let scaleY = Double(image.height) / size.height
        let wanted = (width: source.width * scaleX, height: source.height * scaleY)
        if abs(wanted.width - Double(width)) <= 1, abs(wanted.height - Double(height)) <= 1,
            image.width >= width, image.height >= height
        {
            // The decode is already at the cell's scale to within a pixel: crop, and skip a
            // second resampling pass over every pixel.
            let x = min(image.width - width, max(0, Int((source.x * scaleX).rounded())))
            let y = min(image.height - height, max(0, Int((source.y * scaleY).rounded())))
            return try image.extractArea(x: x, y: y, width: width, height: height)
        }
        return try cut(source, from: image, scaleX: scaleX, scaleY: scaleY, width: width, height: height)
    }

    /// `area` (in coordinates that `scaleX` and `scaleY` map onto `image`'s pixels) cut out of
    /// `image` and resampled to exactly `width` × `height`; not resampled when it already is.
    private static func cut(
        _ area: Rect, from image: VipsImage, scaleX: Double, scaleY: Double, width: Int, height: Int
    ) throws(VipsError) -> VipsImage {
        let rect = pieceRect(of: area, scaleX: scaleX, scaleY: scaleY, within: (image.width, image.height))
        let piece = try image.extractArea(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        return try resampled(piece, width: width, height: height)
    }

    /// `area` scaled onto an image of `size` pixels, in whole pixels, kept inside it.
    private static func pieceRect(
        of area: Rect, scaleX: Double, scaleY: Double, within size: (width: Int, height: Int)
    ) -> (x: Int, y: Int, width: Int, height: Int) {
        let areaWidth = min(size.width, max(1, Int((area.width * scaleX).rounded())))
        let areaHeight = min(size.height, max(1, Int((area.height * scaleY).rounded())))
        let areaX = min(size.width - areaWidth, max(0, Int((area.x * scaleX).rounded())))
        let areaY = min(size.height - areaHeight, max(0, Int((area.y * scaleY).rounded())))
        return (areaX, areaY, areaWidth, areaHeight)
    }

    /// `piece` resampled to exactly `width` × `height`; itself when it already is.
    private static func resampled(_ piece: VipsImage, width: Int, height: Int) throws(VipsError) -> VipsImage {
        let (areaWidth, areaHeight) = (piece.width, piece.height)
        var piece = piece
        guard areaWidth != width || areaHeight != height else { return piece }
        // Shrinking reads its input top to bottom, as a photo opened for one pass serves it.
        // Enlarging goes through an affine transform whose tiles, computed on several threads,
        // ask for rows in any order ("out of order read"): the piece it enlarges is smaller than
        // the cell it makes, so it is decoded into memory first, whatever the format.
        if width > areaWidth || height > areaHeight { piece = try piece.copyToMemory() }
        let resized = try piece.resize(
            horizontal: Double(width) / Double(areaWidth), vertical: Double(height) / Double(areaHeight))
        return try exactSize(resized, width: width, height: height)
    }

    /// The photo fitted inside a `width` × `height` box, keeping its aspect, as 8-bit sRGB with alpha.
    func fit(_ file: URL, width: Int, height: Int, materialize: Bool = false) throws(RenderError) -> VipsImage {
        let path = file.path
        let header = try header(of: file)
        do {
            let image = try Self.rgba(
                VipsImage.thumbnail(
                    path, width: max(1, width), height: max(1, height), convertProfile: header.hasProfile))
            return materialize ? try image.copyToMemory() : image
        } catch {
            throw .unreadableImage(path, reason: Self.tidy(error.message, path: path))
        }
    }

    /// Greyscale, CMYK, 16-bit and palette images all become 8-bit sRGB: three bands, or four
    /// when the file has alpha.
    static func srgb(_ image: VipsImage) throws(VipsError) -> VipsImage {
        let srgb = try image.toSRGB()
        return srgb.bands > 4 ? try srgb.extractBands(0, count: 4) : srgb
    }

    /// As ``srgb(_:)``, always with an alpha band.
    static func rgba(_ image: VipsImage) throws(VipsError) -> VipsImage {
        let srgb = try srgb(image)
        return srgb.bands == 3 ? try srgb.appendingBand(value: 255) : srgb
    }

    /// Resizing rounds each side; trim or pad the last pixel so the cell is exactly the frame.
    private static func exactSize(_ image: VipsImage, width: Int, height: Int) throws(VipsError) -> VipsImage {
        guard image.width != width || image.height != height else { return image }
        var result = image
        if result.width > width || result.height > height {
            result = try result.extractArea(
                x: 0, y: 0, width: min(width, result.width), height: min(height, result.height))
        }
        if result.width < width || result.height < height {
            // A pixel short: repeat the edge rather than resample, which would read out of order.
            result = try result.extendingEdges(width: width, height: height)
        }
        return result
    }

    /// libvips repeats the file name and adds its own prefixes; keep what helps a person.
    static func tidy(_ message: String, path: String) -> String {
        var cleaned = message.replacingOccurrences(of: "\"\(path)\" ", with: "")
            .replacingOccurrences(of: path, with: "the file")
        // libvips names its own classes ("VipsForeignLoad: ", "VipsJpeg: "): words for its
        // developers, not for the person whose photo it is.
        cleaned = cleaned.replacingOccurrences(of: #"\bVips[A-Za-z]*: "#, with: "", options: .regularExpression)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if cleaned.contains("not a known file format") {
            cleaned = "its format is not one Collage reads: JPEG, PNG, HEIC, AVIF, WebP, TIFF or GIF"
        }
        // A PNG cut short before its pixels fails with warnings alone, and libvips leaves no message.
        if cleaned.isEmpty || cleaned == VipsError.unknownMessage {
            cleaned = "it may be damaged or cut short"
        }
        return cleaned
    }
}
