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
            StickerMaker.cutOutVersion(cleanEdges: options.cleanEdges), options.effect?.rawValue ?? "plain",
        ].joined(separator: "|")
        let id = SHA256.hex(of: Data(key.utf8))
        // A prepared file removed meanwhile (the budget's trim) only means the long way.
        if refine, let prepared = preparedLift(of: photo, options: options, in: library),
            let record = try? library.saveSticker(
                id: id, photoID: photo.id, selection: options.selection.key, outlineWidth: options.outlineWidth,
                shadow: options.shadow, copying: prepared.file, width: prepared.width, height: prepared.height)
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
        if refine, (try? library.cachedFocus(photoID: photo.id, model: sha256)) == nil, let centre = mask.centreOfMass {
            try? library.storeFocus(.subject(centre), photoID: photo.id, model: sha256)
        }
        if isCancelled() { throw .image(.cancelled) }
        let sticker = try StickerMaker.sticker(from: image, mask: mask, options: options, path: photo.originalName)
        if isCancelled() { throw .image(.cancelled) }
        do throws(LibraryError) {
            return try library.saveSticker(
                id: id, photoID: photo.id, selection: options.selection.key, outlineWidth: options.outlineWidth,
                shadow: options.shadow, image: sticker)
        } catch {
            throw .library(error)
        }
    }

    /// A photo's mask, from the library's cache when this model made it before.
    func cachedMask(
        of image: Bitmap, photo: PhotoRecord, in library: Library, refine: Bool
    ) throws(StickerError)
        -> SubjectMask
    {
        let cache = library.maskCacheFile(photoID: photo.id, key: refine ? maskKey : "\(sha256.prefix(12))-b")
        if let cached = try? Bitmap.readMask(cache), cached.width == image.width, cached.height == image.height {
            return try SubjectMask(
                alpha: cached.pixels, width: image.width, height: image.height, path: photo.originalName)
        }
        let mask = try self.mask(of: image, options: MaskOptions(refine: refine), path: photo.originalName)
        if let maskImage = Bitmap(width: mask.width, height: mask.height, channels: 1, pixels: mask.alpha) {
            try? FileManager.default.createDirectory(
                at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? maskImage.write(to: cache, format: .png)
        }
        return mask
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
        return (try? library.cachedFocus(photoID: photo.id, model: model.sha256)) == nil
    }

    /// The file, as the library resolves it.
    public func file(for content: ItemContent) throws(RenderError) -> URL { try base.file(for: content) }

    /// The cached focus, or one computed now and cached.
    public func automaticFocus(for content: ItemContent, file: URL) -> Point? {
        guard let model, case .photo(let reference) = content, let photo = try? library.photo(reference) else {
            return nil
        }
        if let cached = try? library.cachedFocus(photoID: photo.id, model: model.sha256) {
            if case .subject(let point) = cached { return point }
            return nil
        }
        guard findsMissing else { return nil }
        let point = model.focusPoint(ofFile: file)
        try? library.storeFocus(point.map { .subject($0) } ?? .noSubject, photoID: photo.id, model: model.sha256)
        return point
    }
}
