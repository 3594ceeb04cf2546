import CollageCore
import CollageLibrary
import CollageRender
import Foundation

/// Subject-aware cropping: a photo source whose photos are cropped around their subject instead
/// of their centre, so a frame of a different shape does not cut the subject off.
public struct SubjectFocusSource<Base: PhotoSource>: PhotoSource {
    let base: Base
    let model: SubjectModel
    let cache: FocusCache?

    /// Wraps `base`, finding each photo's subject with `model`, and keeping what it finds in
    /// `cache` (when given) so the same photo costs no inference next time.
    public init(_ base: Base, model: SubjectModel, cache: FocusCache? = nil) {
        self.base = base
        self.model = model
        self.cache = cache
    }

    /// The file, as the base source resolves it.
    public func file(for content: ItemContent) throws(RenderError) -> URL { try base.file(for: content) }

    /// The subject's centre of mass, when the photo has a subject; else the base source's answer.
    public func automaticFocus(for content: ItemContent, file: URL) -> Point? {
        guard let cache, let data = try? Data(contentsOf: file, options: .mappedIfSafe) else {
            return model.focusPoint(ofFile: file) ?? base.automaticFocus(for: content, file: file)
        }
        if let known = cache.focus(ofPhoto: data, model: model.focusKey) {
            return known ?? base.automaticFocus(for: content, file: file)
        }
        let found = model.focusPoint(ofFile: file)
        cache.store(found, ofPhoto: data, model: model.focusKey)
        return found ?? base.automaticFocus(for: content, file: file)
    }
}

extension SubjectModel {
    /// The longer side a photo is shrunk to before finding its subject: the model sees 320 px.
    public static let focusDecodeSide = 640

    /// Where a smart crop of a photo centres, in unit coordinates (see
    /// ``CropMath/focus(centreOfMass:bounds:)``), or `nil` when it has no subject or cannot be read.
    public func focusPoint(ofFile file: URL) -> Point? {
        guard let image = try? Bitmap.read(file, maxSide: Self.focusDecodeSide),
            let subject = try? focus(of: image, path: file.path)
        else { return nil }
        return CropMath.focus(centreOfMass: subject.center, bounds: subject.bounds)
    }

    /// What the focal points kept for photos are filed under: the model, how a photo is given to
    /// it (``mapRule``) and the rule that makes a point from its mask, so points made by an
    /// earlier rule are made again, and so is "no subject": a subject too small, too hazy or too
    /// dark for an earlier rule may be found now.
    public var focusKey: String { Self.focusKey(modelSHA256: sha256) }

    /// The ``focusKey`` of the model whose file has the SHA-256 `modelSHA256`.
    package static func focusKey(modelSHA256: String) -> String { "\(modelSHA256)/top35/m\(mapRule)" }

    /// The focal point kept for `photo` (see ``focusKey``), or whether it has no subject.
    public func cachedFocus(of photo: PhotoRecord, in library: Library) -> CachedFocus? {
        try? library.cachedFocus(photoID: photo.id, model: focusKey)
    }
}
