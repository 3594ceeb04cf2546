import CollageCore
import CollageRender
import Foundation

/// What a sticker looks like.
public struct StickerOptions: Hashable, Sendable {
    /// Which subjects to keep.
    public var selection: SubjectSelection
    /// White outline width in pixels; 0 for none.
    public var outlineWidth: Double
    /// A soft drop shadow below the sticker.
    public var shadow: Bool
    /// Transparent room around the subject, as a fraction of its longer side.
    public var margin: Double
    /// A look drawn over the sticker (comic, puffy, shiny), if any.
    public var effect: StickerEffect?
    /// Whether the edge band's alpha and colours are found again from the photo, so that strands
    /// of hair and fur are sharp, keep none of the old background, and nothing apart from the
    /// subject is kept (see ``EdgeMatte``); else the model's own soft edge, photo colours and all.
    public var cleanEdges: Bool

    /// Options; by default every subject, no outline or shadow, a 3 % margin, clean edges (they
    /// measure better in `bench/matting`: no haze of the old background, no stray parts).
    public init(
        selection: SubjectSelection = .all, outlineWidth: Double = 0, shadow: Bool = false, margin: Double = 0.03,
        effect: StickerEffect? = nil, cleanEdges: Bool = true
    ) {
        self.effect = effect
        self.cleanEdges = cleanEdges
        self.selection = selection
        self.outlineWidth = outlineWidth
        self.shadow = shadow
        self.margin = margin
    }
}

extension StickerOptions {
    /// Checks every number against ``CollageCore/Limits``, so a huge outline cannot run for minutes.
    /// - Throws: ``StickerError/invalidOptions(_:)`` naming the option and its range.
    public func validate() throws(StickerError) {
        guard Limits.stickerOutline.contains(outlineWidth) else {
            throw .invalidOptions(
                "the outline must be a number of pixels \(Limits.describe(Limits.stickerOutline)), "
                    + "got \(JSONValue.format(outlineWidth))")
        }
        guard (0...0.5).contains(margin) else {
            throw .invalidOptions("the margin must be a fraction from 0 to 0.5, got \(JSONValue.format(margin))")
        }
        if case .instance(let number) = selection, !Limits.stickerInstance.contains(number) {
            throw .invalidOptions(
                "the instance must be a whole number \(Limits.describe(Limits.stickerInstance)), got \(number)")
        }
    }
}

/// Turns a photo and its mask into a sticker: the photo with the mask as alpha, cropped to the
/// chosen subjects, optionally outlined and shadowed.
public enum StickerMaker {
    /// Names the cut-out in sticker ids and prepared files, for clean edges or the model's own:
    /// a change to what either makes gets a new name, so nothing made before is reused.
    static func cutOutVersion(cleanEdges: Bool) -> String { cleanEdges ? "edges15" : "raw3" }

    /// The sticker as RGBA pixels.
    public static func sticker(
        from image: Bitmap, mask: SubjectMask, options: StickerOptions, path: String = "the photo"
    ) throws(StickerError) -> Bitmap {
        try cutOut(from: image, mask: mask, options: options, path: path).sticker
    }

    /// The sticker, and where its top-left corner lies in the photo, in the photo's pixels
    /// (negative when an outline or shadow reaches past the photo's edge).
    public static func cutOut(
        from image: Bitmap, mask: SubjectMask, options: StickerOptions, path: String = "the photo"
    ) throws(StickerError) -> (sticker: Bitmap, x: Int, y: Int) {
        try options.validate()
        // The copies below walk the mask with the photo's rows.
        guard mask.width == image.width, mask.height == image.height else {
            throw .invalidOptions(
                "\(path): the mask is \(mask.width) × \(mask.height) pixels but the photo \(image.width) × \(image.height)"
            )
        }
        let chosen = try mask.select(options.selection, path: path)
        // The box holds every pixel the mask keeps, soft edges included: none is cut by its side.
        let (alpha, kept) = mask.kept(chosen)
        guard let bounds = kept else { throw .noSubject(path) }
        let margin = max(4, (max(bounds.width, bounds.height) * options.margin).rounded())
        let left = max(0, Int(bounds.x - margin))
        let top = max(0, Int(bounds.y - margin))
        let right = min(image.width, Int(bounds.maxX + margin))
        let bottom = min(image.height, Int(bounds.maxY + margin))
        let cropWidth = right - left
        let cropHeight = bottom - top
        let crop = (left: left, top: top, width: cropWidth, height: cropHeight)
        var sticker: Bitmap
        var origin = (x: left, y: top)
        if options.cleanEdges {
            // The matte sees every subject as subject: with the others made background, their
            // colours were the background's, and a blue sweet beside another blue one came out a
            // third see-through. What belongs to another subject is cleared after.
            let others = chosen.count < mask.subjects.count
            var pixels = try cleanedPixels(
                of: image, alpha: others ? mask.kept(mask.subjects).alpha : alpha, crop: crop)
            if others { mask.clearPixels(&pixels, ofSubjectsOtherThan: chosen, crop: crop) }
            // The matte reads colours the photo's own transparency hides, and may find them
            // partly subject: nothing the photo makes clear shows.
            keepPhotoTransparency(&pixels, of: image, crop: crop)
            guard let trimmed = trimmed(pixels, crop: crop, margin: options.margin) else { throw .noSubject(path) }
            (sticker, origin) = (trimmed.sticker, (trimmed.x, trimmed.y))
        } else {
            let pixels = plainPixels(of: image, alpha: alpha, crop: crop)
            guard let plain = Bitmap(width: cropWidth, height: cropHeight, channels: 4, pixels: pixels) else {
                throw .noSubject(path)
            }
            sticker = plain
        }
        let unstyledWidth = sticker.width
        if options.outlineWidth > 0 || options.shadow || options.effect != nil {
            do throws(RenderError) {
                sticker = try StickerEffects.apply(
                    to: sticker, outlineWidth: options.outlineWidth, shadow: options.shadow, effect: options.effect)
            } catch {
                throw .image(error)
            }
        }
        // The outline and shadow grow the image by the same room on every side.
        let grown = (sticker.width - unstyledWidth) / 2
        return (sticker, origin.x - grown, origin.y - grown)
    }

    /// Each pixel of the crop (RGBA) no more opaque than the photo is there, for a photo with
    /// transparency; a pixel made clear keeps no colour.
    static func keepPhotoTransparency(_ pixels: inout [UInt8], of image: Bitmap, crop: Crop) {
        guard image.channels == 4 else { return }
        image.pixels.withUnsafeBufferPointer { photo in
            for y in 0..<crop.height {
                let from = ((crop.top + y) * image.width + crop.left) * 4, to = y * crop.width * 4
                for x in 0..<crop.width {
                    let opacity = Int(photo[from + x * 4 + 3])
                    guard opacity < 255 else { continue }
                    // The mask already took the photo's alpha in: no lower than that a second time.
                    let kept = min(Int(pixels[to + x * 4 + 3]), opacity)
                    pixels[to + x * 4 + 3] = UInt8(kept)
                    if kept == 0 { for channel in 0..<3 { pixels[to + x * 4 + channel] = 0 } }
                }
            }
        }
    }

    /// The cleaned crop cut down to what its edge keeps, with the margin around it again (the
    /// matte lets go of parts apart from the subject, and the box would still reach out to
    /// them), and where its top-left corner lies in the photo; `nil` when nothing is kept.
    static func trimmed(_ pixels: [UInt8], crop: Crop, margin fraction: Double) -> (sticker: Bitmap, x: Int, y: Int)? {
        var (minX, minY, maxX, maxY) = (crop.width, crop.height, -1, -1)
        for y in 0..<crop.height {
            let row = y * crop.width * 4
            var first = -1
            var last = -1
            for x in 0..<crop.width where pixels[row + x * 4 + 3] != 0 {
                if first < 0 { first = x }
                last = x
            }
            guard first >= 0 else { continue }
            (minX, maxX) = (min(minX, first), max(maxX, last))
            (minY, maxY) = (min(minY, y), y)
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        let margin = max(4, (Double(max(maxX - minX + 1, maxY - minY + 1)) * fraction).rounded())
        let left = max(0, Int(Double(minX) - margin))
        let top = max(0, Int(Double(minY) - margin))
        let right = min(crop.width, Int(Double(maxX + 1) + margin))
        let bottom = min(crop.height, Int(Double(maxY + 1) + margin))
        let (width, height) = (right - left, bottom - top)
        if width == crop.width, height == crop.height {
            return Bitmap(width: width, height: height, channels: 4, pixels: pixels).map { ($0, crop.left, crop.top) }
        }
        var kept = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            let from = ((top + y) * crop.width + left) * 4
            kept.replaceSubrange(y * width * 4..<(y + 1) * width * 4, with: pixels[from..<from + width * 4])
        }
        return Bitmap(width: width, height: height, channels: 4, pixels: kept).map {
            ($0, crop.left + left, crop.top + top)
        }
    }

    /// A part of a photo to cut out, in its pixels.
    typealias Crop = (left: Int, top: Int, width: Int, height: Int)

    /// The crop as RGBA with the mask's alpha, read straight from the photo: one buffer the
    /// size of the sticker (a 48 MP photo's crop in separate colour and alpha buffers first
    /// spent most of a lift faulting in fresh memory). Fully transparent pixels keep no colour:
    /// nothing shows it, and runs of zeros make the PNG smaller and faster to write. Bands of
    /// rows are filled on every core: on a large crop the first touch of each fresh page (the
    /// kernel clearing it) costs more than the copy, and that work divides.
    static func plainPixels(of image: Bitmap, alpha: [UInt8], crop: Crop, clearingHidden: Bool = true) -> [UInt8] {
        let (channels, imageWidth) = (image.channels, image.width)
        let count = crop.width * crop.height * 4
        let bands = crop.width * crop.height < 1 << 20 ? 1 : ProcessInfo.processInfo.activeProcessorCount * 4
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            image.pixels.withUnsafeBufferPointer { source in
                alpha.withUnsafeBufferPointer { alpha in
                    guard let source = source.baseAddress, let alpha = alpha.baseAddress,
                        let target = buffer.baseAddress
                    else { return }
                    defer { initialized = count }
                    let (green, blue) = (min(1, channels - 1), min(2, channels - 1))
                    let shared = BandBuffers(source: source, alpha: alpha, target: target)
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        let (source, alpha) = (shared.source, shared.alpha)
                        let rows = (crop.height * band / bands)..<(crop.height * (band + 1) / bands)
                        var to = shared.target + rows.lowerBound * crop.width * 4
                        for y in rows {
                            let from = (crop.top + y) * imageWidth + crop.left
                            var pixel = source + from * channels
                            var opacity = alpha + from
                            for _ in 0..<crop.width {
                                let value = opacity.pointee
                                if value == 0, clearingHidden {
                                    to[0] = 0
                                    to[1] = 0
                                    to[2] = 0
                                } else {
                                    to[0] = pixel[0]
                                    to[1] = pixel[green]
                                    to[2] = pixel[blue]
                                }
                                to[3] = value
                                pixel += channels
                                opacity += 1
                                to += 4
                            }
                        }
                    }
                }
            }
        }
    }

    /// The buffers the bands of ``plainPixels(of:alpha:crop:)`` share: each band reads the
    /// photo and the mask and writes only its own rows of the target, so no two threads touch
    /// the same bytes, and the buffers outlive the bands (`concurrentPerform` returns after them).
    private struct BandBuffers: @unchecked Sendable {
        let source: UnsafePointer<UInt8>
        let alpha: UnsafePointer<UInt8>
        let target: UnsafeMutablePointer<UInt8>
    }

    /// The crop with its edge refined by ``EdgeMatte`` (the alpha's strands back, the subject's
    /// own colours where the alpha is partial, parts apart from the subject let go), as RGBA;
    /// clear pixels keep no colour. Refined in place in the one buffer the sticker is.
    static func cleanedPixels(of image: Bitmap, alpha: [UInt8], crop: Crop) throws(StickerError) -> [UInt8] {
        // The matte reads the background's colours where the mask is clear; it clears them after.
        var pixels = plainPixels(of: image, alpha: alpha, crop: crop, clearingHidden: false)
        try EdgeMatte.refine(rgba: &pixels, width: crop.width, height: crop.height)
        return pixels
    }

    /// The mask alone, as a one-channel image the size of the photo.
    public static func maskImage(
        _ mask: SubjectMask, options: StickerOptions, path: String = "the photo"
    )
        throws(StickerError) -> Bitmap
    {
        let alpha = mask.alpha(keeping: try mask.select(options.selection, path: path))
        guard let image = Bitmap(width: mask.width, height: mask.height, channels: 1, pixels: alpha) else {
            throw .noSubject(path)
        }
        return image
    }

}
