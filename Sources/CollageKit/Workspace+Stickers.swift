import CollageCore
import CollageLibrary
import Foundation
import Stickers

/// A sticker in the library: a subject lifted out of a photo, as a transparent PNG.
public typealias StickerRecord = CollageLibrary.StickerRecord

/// The sticker use cases: lifting, listing, and the pictures.
extension Workspace {
    /// Every sticker, newest first.
    public func stickers() throws(Failure) -> [StickerRecord] {
        try reading { () throws(LibraryError) in try library.stickers() }
    }

    /// One sticker, by id or unique id prefix.
    /// - Throws: ``Failure`` `notFound` for an unknown id.
    public func sticker(_ id: String) throws(Failure) -> StickerRecord {
        try reading { () throws(LibraryError) in try library.sticker(id) }
    }

    /// The sticker's PNG.
    public func stickerImage(of sticker: StickerRecord) -> URL { library.stickerFile(of: sticker) }

    /// Lifts the sticker `request` asks for out of a library photo and stores it.
    /// - Parameter isCancelled: asked between the lift's stages; once `true` the lift stops and
    ///   stores nothing.
    /// - Throws: ``Failure``: `notFound`, `noSubject`, `unavailable` without a model.
    public func lift(
        _ request: StickerRequest, photo id: String, refine: Bool = true, isCancelled: () -> Bool = { false }
    ) throws(Failure) -> StickerRecord {
        try request.lift(photo: id, in: library, model: model, refine: refine, isCancelled: isCancelled)
    }
}
