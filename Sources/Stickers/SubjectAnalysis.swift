import CollageCore
import CollageLibrary
import CollageRender
import Foundation

/// Whether a library photo's subjects are ready to lift at once.
public enum SubjectReadiness: String, Sendable {
    /// Its mask is cached: a lift runs no inference.
    case ready
    /// The model found no subject in it.
    case noSubject = "none"
    /// Not analysed yet.
    case pending
}

extension SubjectModel {
    /// How a photo is given to the model, in the keys of the masks cached from its maps: a new
    /// rule makes every mask again (2: the photo scaled to its brightest value, so an
    /// underexposed photo's subject is found; its mask cached before was a patch of it. 3: a
    /// map with under 8 % subject looked at again, so a hazy cat is not lifted as its eyes).
    static let mapRule = "3"

    /// The cache key of this model's refined masks (see ``cachedMask(of:photo:in:refine:)``).
    package var maskKey: String { Self.maskKey(modelSHA256: sha256) }

    /// The cache key of the masks, refined (r) or plain (b), of the model whose file has the
    /// SHA-256 `modelSHA256`.
    package static func maskKey(modelSHA256: String, refined: Bool = true) -> String {
        "\(modelSHA256.prefix(12))\(mapRule)-\(refined ? "r" : "b")"
    }

    /// Whether `photo`'s subjects are ready to lift with this model: its mask cached and its
    /// largest subjects made ahead (the map of where they lie is written last). A photo analysed
    /// before stickers were made ahead is pending again; its next analysis reads the cached mask.
    public func readiness(of photo: PhotoRecord, in library: Library) -> SubjectReadiness {
        if FileManager.default.fileExists(atPath: placesFile(photoID: photo.id, in: library).path) {
            return .ready
        }
        if case .noSubject? = cachedFocus(of: photo, in: library) { return .noSubject }
        return .pending
    }

    /// Finds `photo`'s subjects ahead of a lift and caches its mask (or that it has none), so
    /// "Lift subject" answers without running the model, makes the plain stickers of its
    /// largest subjects ahead, so that lifting one of them only copies a file, and keeps its
    /// focal point for smart crops.
    /// - Parameter isCancelled: asked between the stages (decode, model, stickers made ahead);
    ///   once it answers `true` the analysis stops where it is (a server shutting down waits for
    ///   one stage, not the whole photo). What was cached before stays; the photo is analysed
    ///   again later.
    /// - Returns: the photo's readiness afterwards.
    /// - Throws: ``StickerError`` when the photo cannot be read or the model fails, and
    ///   `.image(.cancelled)` when stopped.
    @discardableResult
    public func analyse(
        _ photo: PhotoRecord, in library: Library, isCancelled: () -> Bool = { false }
    ) throws(StickerError) -> SubjectReadiness {
        let current = readiness(of: photo, in: library)
        guard needsAnalysis(photo, in: library) else { return current }
        let image: Bitmap
        do throws(RenderError) {
            image = try Bitmap.read(library.originalFile(of: photo))
        } catch {
            throw .image(error)
        }
        if isCancelled() { throw .image(.cancelled) }
        do throws(StickerError) {
            let mask = try cachedMask(of: image, photo: photo, in: library, refine: true)
            if isCancelled() { throw .image(.cancelled) }
            // A photo lifted before has its mask and plain stickers: only its focus is missing.
            if current == .pending { prepareLifts(of: image, mask: mask, photo: photo, in: library) }
            // The focal point too, while the mask is at hand: a collage of photos just analysed
            // is then cropped around their subjects without running the model again.
            if cachedFocus(of: photo, in: library) == nil, let centre = mask.cropFocus {
                try? library.storeFocus(.subject(centre), photoID: photo.id, model: focusKey)
            }
            return .ready
        } catch {
            guard case .noSubject = error else { throw error }
            // Remembered, so the photo is not analysed again on every start.
            try? library.storeFocus(.noSubject, photoID: photo.id, model: focusKey)
            return .noSubject
        }
    }

    /// The library's photos not yet analysed with this model, oldest first.
    public func pendingPhotos(in library: Library) -> [PhotoRecord] {
        let photos = (try? library.photos()) ?? []
        return photos.filter { needsAnalysis($0, in: library) }.sorted { $0.importedAt < $1.importedAt }
    }

    /// Whether ``analyse(_:in:)`` has work to do for `photo`: its subjects are not found yet, or
    /// its focal point is not kept (a photo lifted, or analysed by an older Collage, before
    /// focal points were kept with the mask), which smart crops wait for.
    public func needsAnalysis(_ photo: PhotoRecord, in library: Library) -> Bool {
        switch readiness(of: photo, in: library) {
        case .pending: true
        case .ready: cachedFocus(of: photo, in: library) == nil
        case .noSubject: false
        }
    }
}
