import CollageCore
import CollageLibrary
import CollageRender
import Foundation
import Stickers

/// A collage as the library keeps it: the document and its version.
public typealias StoredCollage = CollageLibrary.StoredCollage
/// One line of the library's list of collages.
public typealias CollageSummary = CollageLibrary.CollageSummary
/// Whether a collage's history has a step to undo or redo.
public typealias HistoryState = CollageLibrary.HistoryState

/// The collage use cases: reading, making, changing, copying and deleting collages.
extension Workspace {
    /// Every collage, most recently changed first.
    public func collages() throws(Failure) -> [CollageSummary] {
        try reading { () throws(LibraryError) in try library.collages() }
    }

    /// One collage, by id or unique id prefix.
    /// - Throws: ``Failure`` `notFound` for an unknown id.
    public func collage(_ id: String) throws(Failure) -> StoredCollage {
        try reading { () throws(LibraryError) in try library.collage(id) }
    }

    /// Whether the collage has a step to undo, and one to redo.
    public func history(of id: String) throws(Failure) -> HistoryState {
        try reading { () throws(LibraryError) in try library.historyState(of: id) }
    }

    /// Makes a collage, laid out for its photos' shapes when `request` names no template.
    /// - Throws: ``Failure``: `locked` for a premium layout without Collage Premium, `notFound`
    ///   for an unknown photo.
    public func create(
        _ request: NewCollageRequest, arranging arrangement: ArrangeRequest? = nil
    ) throws(Failure)
        -> StoredCollage
    {
        try request.create(in: library, access: access, arranging: arrangement)
    }

    /// Applies edits to a collage at the version they were made against; premium edits need
    /// Collage Premium.
    public func apply(_ request: EditRequest, to id: String) throws(Failure) -> StoredCollage {
        try request.apply(to: id, in: library, access: access)
    }

    /// The collage as `request`'s edits would leave it, stored nowhere (a premium layout may be
    /// tried this way while locked).
    public func preview(_ request: EditRequest, of id: String) throws(Failure) -> StoredCollage {
        try request.preview(of: id, in: library)
    }

    /// Lays the collage's photos out for their shapes (a smart layout).
    public func arrange(_ request: ArrangeRequest, _ id: String) throws(Failure) -> StoredCollage {
        try request.apply(to: id, in: library)
    }

    /// Replaces the whole document at `expectedVersion` (the editor's undo and redo of its own
    /// steps). A replacement that brings in a premium layout needs Collage Premium, as editing
    /// it in would.
    /// - Throws: ``Failure``: `conflict` for a stale version, `locked`, `invalidInput`.
    public func replace(
        _ id: String, with replacement: Collage, expectedVersion: Int
    ) throws(Failure)
        -> StoredCollage
    {
        let access = access
        if !access.isUnlocked {
            try access.check(replacing: try collage(id).collage, with: replacement)
        }
        return try reading { () throws(LibraryError) in
            try library.replace(id, with: replacement, expectedVersion: expectedVersion)
        }
    }

    /// Brings back the collage as it was before its last change (`undo`), or the change the
    /// last undo took away; the library keeps the history.
    /// - Throws: ``Failure``: `conflict` for a stale version, `invalidInput` when there is
    ///   nothing to bring back.
    public func step(_ id: String, undo: Bool, expectedVersion: Int? = nil) throws(Failure) -> StoredCollage {
        try reading { () throws(LibraryError) in
            undo
                ? try library.undo(id, expectedVersion: expectedVersion)
                : try library.redo(id, expectedVersion: expectedVersion)
        }
    }

    /// Renames a collage (the title is checked as the rename edit checks it).
    public func rename(_ id: String, to title: String, expectedVersion: Int? = nil) throws(Failure) -> StoredCollage {
        try reading { () throws(LibraryError) in try library.rename(id, to: title, expectedVersion: expectedVersion) }
    }

    /// Copies a collage under a new id, its title marked as a copy.
    public func duplicate(_ id: String) throws(Failure) -> StoredCollage {
        try reading { () throws(LibraryError) in try library.duplicate(id) }
    }

    /// Deletes a collage and its history; its photos and stickers stay in the library.
    public func delete(_ id: String) throws(Failure) {
        try reading { () throws(LibraryError) in try library.deleteCollage(id) }
    }
}

/// What a collage's items show, as the editor draws them: each photo's and sticker's pixel
/// size, and for photos where the renderer crops one that has no crop of its own.
public struct CollageMedia: Sendable {
    /// A photo or a sticker an item shows.
    public struct Medium: Sendable {
        /// Whether it is a photo or a sticker.
        public enum Kind: Sendable {
            /// A photo of the library.
            case photo
            /// A sticker of the library.
            case sticker
        }

        /// The kind.
        public let kind: Kind
        /// The photo's or sticker's id.
        public let id: String
        /// Its width in pixels.
        public let width: Int
        /// Its height in pixels.
        public let height: Int
        /// Where the renderer centres a photo without a crop of its own (its subject), in unit
        /// coordinates; `nil` centres it.
        public let focus: Point?
        /// The subject is still being found in the background: asked again, the focus may move.
        public let focusPending: Bool
        /// The format of a photo's thumbnail and preview (see ``Workspace/photoImageFormat(of:)``),
        /// `png` for a sticker.
        public var imageFormat = "jpg"
    }

    /// By the reference the collage's items use.
    public let media: [String: Medium]

    /// How the renderer resolves each photo item's crop: the rectangle of the photo's pixels
    /// that fills its frame, for every photo item in `collage`.
    public func photoSource(of item: CollageItem) -> Rect? {
        guard case .photo(let reference) = item.content, let photo = media[reference] else { return nil }
        let size = Size(width: Double(photo.width), height: Double(photo.height))
        let crop = item.crop ?? photo.focus.map { Crop(focus: $0) } ?? .centered
        return CropMath.sourceRect(imageSize: size, frameSize: item.frame.size, crop: crop)
    }
}

extension Workspace {
    /// What the collage's items show, as ``CollageMedia``; references the library no longer
    /// holds are left out. Never waits for the model: a subject not found yet is `focusPending`
    /// when `analysing` (the background analysis will find it).
    public func media(of collage: Collage, analysing: Bool) -> CollageMedia {
        var media: [String: CollageMedia.Medium] = [:]
        let photos =
            (try? library.photos(
                exactly: Set(
                    collage.items.compactMap { item in if case .photo(let id) = item.content { id } else { nil } })))
            ?? [:]
        for item in collage.items {
            guard let reference = item.content.reference, media[reference] == nil else { continue }
            switch item.content {
            case .photo(let reference):
                guard let photo = photos[reference] ?? (try? library.photo(reference)) else { continue }
                // One look at the cache: the focus the renderer crops around, or that there is
                // none yet (centred now; found soon when the background analysis runs).
                var focus: Point?
                var pending = false
                if let model {
                    switch model.cachedFocus(of: photo, in: library) {
                    case .subject(let point)?: focus = point
                    case .noSubject?: break
                    case nil: pending = analysing
                    }
                }
                media[reference] = CollageMedia.Medium(
                    kind: .photo, id: photo.id, width: photo.width, height: photo.height, focus: focus,
                    focusPending: pending, imageFormat: Workspace.photoImageFormat(of: photo))
            case .sticker(let reference):
                guard let sticker = try? library.sticker(reference) else { continue }
                media[reference] = CollageMedia.Medium(
                    kind: .sticker, id: sticker.id, width: sticker.width, height: sticker.height, focus: nil,
                    focusPending: false)
            case .text:
                continue
            }
        }
        return CollageMedia(media: media)
    }

    /// How many of the collage's photos still wait for their subject to be found: a render
    /// made now centres them, and one made later crops them around it.
    public func photosAwaitingSubject(in collage: Collage) -> Int {
        let source = LibrarySubjectFocusSource(library: library, model: model, findsMissing: false)
        return collage.items.filter { item in
            guard case .photo(let reference) = item.content, let photo = try? library.photo(reference) else {
                return false
            }
            return source.focusIsPending(photo)
        }.count
    }

    /// Where the collage's small preview made at `key` is kept (made by the caller when missing).
    public func collageThumbnailFile(key: String) -> URL {
        library.derivedFolder.appendingPathComponent("collage-thumbnails").appendingPathComponent("\(key).jpg")
    }

    /// Removes the collage's small previews of the versions before `version`, once that
    /// version's is made: the page never asks for them again.
    public func removeCollageThumbnails(of id: String, before version: Int) {
        library.removeCollageThumbnails(of: id, before: version)
    }
}
