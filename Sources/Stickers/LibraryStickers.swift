import CollageCore
import CollageLibrary
import CollageRender
import Foundation

extension SubjectSelection {
    /// How the library records a selection: `all`, `instance:N` or `point:X,Y`.
    public var key: String {
        switch self {
        case .all: "all"
        case .instance(let number): "instance:\(number)"
        case .point(let x, let y): "point:\(x),\(y)"
        }
    }

    /// The selection a library record names (``key``), or `nil` for anything else.
    public init?(key: String) {
        if key == "all" {
            self = .all
        } else if key.hasPrefix("instance:"), let number = Int(key.dropFirst("instance:".count)) {
            self = .instance(number)
        } else if key.hasPrefix("point:") {
            let parts = key.dropFirst("point:".count).split(separator: ",")
            guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]) else { return nil }
            self = .point(x: x, y: y)
        } else {
            return nil
        }
    }
}

extension BrushStroke {
    /// The stroke as text, for a refined sticker's id: the same strokes name the same sticker.
    var key: String {
        "\(mode.rawValue) \(radius) \(softness) " + points.map { "\($0.x),\($0.y)" }.joined(separator: " ")
    }
}

extension SubjectModel {
    /// Lifts a sticker out of a library photo and stores it in the library.
    ///
    /// The mask is cached under the photo's hash, the model's hash and the refinement setting,
    /// so asking again runs no inference; the sticker's id is derived from the same things plus
    /// the options, so the same request gives the same sticker. A plain sticker of a subject
    /// made ahead by ``analyse(_:in:)`` is copied, not made again. `isCancelled` is asked
    /// between the stages; once it answers `true` nothing is stored and ``StickerError/image(_:)``
    /// with ``CollageRender/RenderError/cancelled`` is thrown.
    public func makeSticker(
        ofPhoto photoID: String, in library: Library, options: StickerOptions, refine: Bool = true,
        isCancelled: () -> Bool = { false }
    ) throws(StickerError) -> StickerRecord {
        let photo: PhotoRecord
        do throws(LibraryError) {
            photo = try library.photo(photoID)
        } catch {
            throw .library(error)
        }
        let key = [
            photo.id, sha256, refine ? "refined" : "bilinear", options.selection.key, "\(options.outlineWidth)",
            "\(options.shadow)", "\(options.margin)",
            // Stickers made before edges were cleaned (or kept whole) are made again, not reused.
            StickerMaker.cutOutVersion(cleanEdges: options.cleanEdges),
            options.effect.map(StickerEffects.drawingVersion) ?? "plain",
            options.outlineWidth > 0 ? StickerEffects.outlineVersion : "",
        ].joined(separator: "|")
        let id = SHA256.hex(of: Data(key.utf8))
        // A prepared file removed meanwhile (the budget's trim) only means the long way.
        if refine, let prepared = preparedLift(of: photo, options: options, in: library),
            let record = try? library.saveSticker(
                id: id, photoID: photo.id, selection: options.selection.key, outlineWidth: options.outlineWidth,
                shadow: options.shadow, copying: prepared.file, width: prepared.width, height: prepared.height,
                origin: prepared.origin, drawnEffect: options.effect?.rawValue)
        {
            return record
        }
        let file = library.originalFile(of: photo)
        let image: Bitmap
        do throws(RenderError) {
            image = try Bitmap.read(file)
        } catch {
            throw .image(error)
        }
        // A lift nobody waits for any more stops between its stages and saves nothing: the
        // model's run and the sticker's effects are the long ones.
        if isCancelled() { throw .image(.cancelled) }
        let mask = try cachedMask(of: image, photo: photo, in: library, refine: refine)
        // The focal point comes with the mask: smart crops of this photo need no model run.
        if refine, cachedFocus(of: photo, in: library) == nil, let centre = mask.cropFocus {
            try? library.storeFocus(.subject(centre), photoID: photo.id, model: focusKey)
        }
        if isCancelled() { throw .image(.cancelled) }
        let cut = try StickerMaker.cutOut(from: image, mask: mask, options: options, path: photo.originalName)
        if isCancelled() { throw .image(.cancelled) }
        do throws(LibraryError) {
            return try library.saveSticker(
                id: id, photoID: photo.id, selection: options.selection.key, outlineWidth: options.outlineWidth,
                shadow: options.shadow, image: cut.sticker, origin: PixelPoint(x: cut.x, y: cut.y),
                drawnEffect: options.effect?.rawValue)
        } catch {
            throw .library(error)
        }
    }

    /// Where `sticker` lies in its photo: as recorded, or found again by cutting it out of the
    /// cached mask once more (a lift by an older version recorded none), and recorded then.
    /// - Parameter image: the photo's pixels, when already decoded.
    /// - Throws: ``StickerError/invalidOptions(_:)`` when the sticker cannot be made again the
    ///   same size (made by a version whose cut-out differed).
    public func origin(
        of sticker: StickerRecord, in library: Library, image: Bitmap? = nil
    ) throws(StickerError) -> PixelPoint {
        if let origin = sticker.photoOrigin { return origin }
        let (photo, pixels) = try photoAndPixels(of: sticker, in: library, image: image)
        guard let selection = SubjectSelection(key: sticker.selection) else {
            throw .invalidOptions("sticker \(sticker.id) names no subject it was lifted from (\(sticker.selection))")
        }
        let mask = try cachedMask(of: pixels, photo: photo, in: library, refine: true)
        for cleanEdges in [true, false] {
            let options = StickerOptions(
                selection: selection, outlineWidth: sticker.outlineWidth, shadow: sticker.shadow, cleanEdges: cleanEdges
            )
            let cut = try StickerMaker.cutOut(from: pixels, mask: mask, options: options, path: photo.originalName)
            if cut.sticker.width == sticker.width, cut.sticker.height == sticker.height {
                let origin = PixelPoint(x: cut.x, y: cut.y)
                try? library.recordStickerOrigin(origin, of: sticker.id)
                return origin
            }
        }
        throw .invalidOptions(
            "sticker \(sticker.id) cannot be found again in its photo (made by an older version); "
                + "lift it again to refine it")
    }

    /// Whether the refine brush can work on `sticker`: no outline or shadow drawn into it, and
    /// its file the size its record says.
    /// - Throws: ``StickerError/invalidOptions(_:)`` saying why not and what to do instead.
    public func checkRefinable(_ sticker: StickerRecord, in library: Library) throws(StickerError) {
        guard sticker.outlineWidth == 0, !sticker.shadow else {
            throw .invalidOptions(
                "sticker \(sticker.id) has its outline or shadow drawn into it; lift it without them to refine it "
                    + "(the editor draws them around a refined sticker)")
        }
        if let effect = sticker.drawnEffect {
            throw .invalidOptions(
                "sticker \(sticker.id) has the \(effect) effect drawn into it; lift it without an effect to refine it "
                    + "(the editor draws effects over a refined sticker)")
        }
        let info: ImageInfo
        do throws(RenderError) {
            info = try ImageFiles.inspect(library.stickerFile(of: sticker))
        } catch {
            throw .image(error)
        }
        guard info.width == sticker.width, info.height == sticker.height else {
            throw .invalidOptions(
                "sticker \(sticker.id)'s file is \(info.width) × \(info.height) pixels but its record says "
                    + "\(sticker.width) × \(sticker.height); run 'collage doctor --repair'")
        }
    }

    /// The photo's pixels under a refinable sticker and around it, as far as the refine brush
    /// reaches (``StickerRefinement/area(width:height:origin:photoWidth:photoHeight:)``), and
    /// where the sticker's top-left corner lies in them.
    /// - Throws: as ``checkRefinable(_:in:)`` and ``origin(of:in:image:)`` do.
    public func photoUnder(
        _ sticker: StickerRecord, in library: Library
    ) throws(StickerError) -> (photo: Bitmap, stickerAt: PixelPoint) {
        try checkRefinable(sticker, in: library)
        let (_, image) = try photoAndPixels(of: sticker, in: library)
        let origin = try self.origin(of: sticker, in: library, image: image)
        let area = StickerRefinement.area(
            width: sticker.width, height: sticker.height, origin: origin, photoWidth: image.width,
            photoHeight: image.height)
        return (
            image.region(x: area.x, y: area.y, width: area.width, height: area.height),
            PixelPoint(x: origin.x - area.x, y: origin.y - area.y)
        )
    }

    /// Refines a library sticker with the refine brush's strokes and stores the result as a new
    /// sticker of the same photo (the original stays: collages and undo steps may show it). The
    /// brush reaches past the sticker's box (``StickerRefinement/area(width:height:origin:photoWidth:photoHeight:)``),
    /// so Restore can bring back a part the model missed; the result is cut down to what it
    /// keeps, with a sticker's usual margin, so its size and place in the photo may change (the
    /// editor moves the item to match). The same strokes on the same sticker give the same sticker.
    /// - Throws: ``StickerError/invalidOptions(_:)`` for a sticker that cannot be refined (see
    ///   ``checkRefinable(_:in:)``) or strokes that leave nothing; ``StickerError/library(_:)`` for
    ///   an unknown sticker.
    public func refineSticker(
        _ id: String, strokes: [BrushStroke], in library: Library
    ) throws(StickerError) -> StickerRecord {
        let sticker: StickerRecord
        do throws(LibraryError) {
            sticker = try library.sticker(id)
        } catch {
            throw .library(error)
        }
        try checkRefinable(sticker, in: library)
        let (photo, image) = try photoAndPixels(of: sticker, in: library)
        let origin = try self.origin(of: sticker, in: library, image: image)
        let current: Bitmap
        do throws(RenderError) {
            current = try Bitmap.read(library.stickerFile(of: sticker)).addingOpaqueAlpha()
        } catch {
            throw .image(error)
        }
        let area = StickerRefinement.area(
            width: current.width, height: current.height, origin: origin, photoWidth: image.width,
            photoHeight: image.height)
        let (left, top) = (origin.x - area.x, origin.y - area.y)
        // The sticker on a clear canvas the size of what the brush reaches, the strokes moved with it.
        var padded = [UInt8](repeating: 0, count: area.width * area.height * 4)
        for row in 0..<current.height {
            let from = row * current.width * 4
            let to = ((row + top) * area.width + left) * 4
            padded.replaceSubrange(to..<to + current.width * 4, with: current.pixels[from..<from + current.width * 4])
        }
        guard let canvas = Bitmap(width: area.width, height: area.height, channels: 4, pixels: padded) else {
            throw .invalidOptions("sticker \(sticker.id) could not be laid out for refining")
        }
        let moved = strokes.map { stroke in
            BrushStroke(
                mode: stroke.mode, radius: stroke.radius, softness: stroke.softness,
                points: stroke.points.map { Point(x: $0.x + Double(left), y: $0.y + Double(top)) })
        }
        let under = image.region(x: area.x, y: area.y, width: area.width, height: area.height)
        let refined = try StickerRefinement.apply(moved, to: canvas, photo: under)
        guard
            let kept = StickerMaker.trimmed(
                refined.pixels, crop: (area.x, area.y, area.width, area.height),
                margin: StickerOptions().margin)
        else {
            throw .invalidOptions("these strokes erase the whole sticker; undo some, or remove the sticker instead")
        }
        let key = ["refined2", sticker.id] + strokes.map(\.key)
        let newID = SHA256.hex(of: Data(key.joined(separator: "|").utf8))
        do throws(LibraryError) {
            return try library.saveSticker(
                id: newID, photoID: photo.id, selection: sticker.selection, outlineWidth: 0, shadow: false,
                image: kept.sticker, origin: PixelPoint(x: kept.x, y: kept.y))
        } catch {
            throw .library(error)
        }
    }

    /// The photo a sticker was lifted from, and its pixels (`image` when already decoded).
    private func photoAndPixels(
        of sticker: StickerRecord, in library: Library, image: Bitmap? = nil
    ) throws(StickerError) -> (PhotoRecord, Bitmap) {
        let photo: PhotoRecord
        do throws(LibraryError) {
            photo = try library.photo(sticker.photoID)
        } catch {
            throw .library(error)
        }
        if let image { return (photo, image) }
        do throws(RenderError) {
            return (photo, try Bitmap.read(library.originalFile(of: photo)))
        } catch {
            throw .image(error)
        }
    }

    /// A photo's mask, from the library's cache when this model made it before.
    func cachedMask(
        of image: Bitmap, photo: PhotoRecord, in library: Library, refine: Bool
    ) throws(StickerError)
        -> SubjectMask
    {
        // Nearly colourless photos and photos with transparency have keys of their own: the
        // model sees the first more than once, and the second as they look, since their masks
        // were found wanting (a grey cat cached as one eye would stay one eye in every lift; what
        // a cut-out's clear pixels hide would stay in its stickers).
        let key =
            Self.maskKey(modelSHA256: sha256, refined: refine) + (image.isNearlyColourless ? "g" : "")
            + (image.channels == 4 ? "a" : "")
        let cache = library.maskCacheFile(photoID: photo.id, key: key)
        if let cached = try? Bitmap.readMask(cache), cached.width == image.width, cached.height == image.height {
            return try SubjectMask(
                alpha: cached.pixels, width: image.width, height: image.height, path: photo.originalName)
        }
        let mask = try self.mask(of: image, options: MaskOptions(refine: refine), path: photo.originalName)
        if let maskImage = Bitmap(width: mask.width, height: mask.height, channels: 1, pixels: mask.alpha) {
            try? FileManager.default.createDirectory(
                at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? maskImage.write(to: cache, format: .png)
            removeMasksOfEarlierRules(of: photo, in: library)
        }
        return mask
    }

    /// Removes the photo's masks cached by an earlier rule (or another model), refined or
    /// plain, once a mask of the current rule is written: nothing reads them again, and a
    /// library's masks, a full-size image a photo, would otherwise double with each new rule.
    /// Stickers made ahead are trimmed apart (see `trimPrepared`).
    func removeMasksOfEarlierRules(of photo: PhotoRecord, in library: Library) {
        let folder = library.maskCacheFile(photoID: photo.id, key: "").deletingLastPathComponent()
        let prefix = "\(photo.id)-"
        let current = maskKey.dropLast()  // the current rule's keys, refined (r) or plain (b)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".png") {
            // A mask's key: the model's hash (12 hex digits), the map's rule if any, then r
            // (refined) or b (plain) and the marks g and a.
            let key = name.dropFirst(prefix.count).dropLast(4)
            guard !key.hasPrefix(current), key.wholeMatch(of: /[0-9a-f]{12}[0-9]*-[rb]g?a?/) != nil else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}

/// Resolves a library collage's references and, given a model, crops photos without a crop
/// around their subject, computing each photo's focus once per model and keeping it in the
/// library. Without a model, photos are centred: the one source every library render uses.
public struct LibrarySubjectFocusSource: PhotoSource {
    let library: Library
    let model: SubjectModel?
    let findsMissing: Bool
    let base: LibraryPhotoSource

    /// A source over `library`, using `model` (when there is one) for focal points.
    /// - Parameter findsMissing: whether a photo whose focus is not cached yet is analysed now
    ///   (the command line) or centred until the background analysis caches it (the server,
    ///   whose requests never wait for the model, and whose editor and exports must agree).
    public init(library: Library, model: SubjectModel?, findsMissing: Bool = true) {
        self.library = library
        self.model = model
        self.findsMissing = findsMissing
        self.base = LibraryPhotoSource(library: library)
    }

    /// Whether `photo`'s focus is still to be found by a model this source would use.
    public func focusIsPending(_ photo: PhotoRecord) -> Bool {
        guard let model else { return false }
        return model.cachedFocus(of: photo, in: library) == nil
    }

    /// The file, as the library resolves it.
    public func file(for content: ItemContent) throws(RenderError) -> URL { try base.file(for: content) }

    /// The cached focus, or one computed now and cached.
    public func automaticFocus(for content: ItemContent, file: URL) -> Point? {
        guard let model, case .photo(let reference) = content, let photo = try? library.photo(reference) else {
            return nil
        }
        if let cached = model.cachedFocus(of: photo, in: library) {
            if case .subject(let point) = cached { return point }
            return nil
        }
        guard findsMissing else { return nil }
        let point = model.focusPoint(ofFile: file)
        try? library.storeFocus(point.map { .subject($0) } ?? .noSubject, photoID: photo.id, model: model.focusKey)
        return point
    }
}

extension Bitmap {
    /// Whether the picture has next to no colour: the mean spread between each pixel's
    /// brightest and darkest channel under 12 of 255, over a grid of at most 65,536 pixels. The
    /// model's library applies the same rule to its own 320 px copy to see such a photo a second
    /// time; the two may differ on a photo at the line, which costs only a mask found again.
    var isNearlyColourless: Bool {
        guard channels >= 3, width > 0, height > 0 else { return true }
        let step = sampleStep
        var (spread, count) = (0, 0)
        pixels.withUnsafeBufferPointer { samples in
            for y in stride(from: 0, to: height, by: step) {
                for x in stride(from: 0, to: width, by: step) {
                    let index = (y * width + x) * channels
                    let (red, green, blue) = (samples[index], samples[index + 1], samples[index + 2])
                    spread += Int(max(red, green, blue) - min(red, green, blue))
                    count += 1
                }
            }
        }
        return spread < 12 * count
    }

    /// The stride, in rows and columns, of a grid of at most 65,536 of the picture's pixels:
    /// enough to judge its colours and lightness as a whole, in a fraction of the time.
    var sampleStep: Int { max(1, Int((Double(width) * Double(height) / 65_536).squareRoot().rounded(.up))) }
}
