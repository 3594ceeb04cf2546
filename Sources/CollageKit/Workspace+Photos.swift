import CollageCore
import CollageLibrary
import Foundation
import Stickers

/// A photo in the library: its id (the hash of its bytes), name and pixel size.
public typealias PhotoRecord = CollageLibrary.PhotoRecord
/// A photo as an import left it, and whether it was new.
public typealias ImportResult = CollageLibrary.ImportResult
/// Whether a lift of a photo's subject would answer at once.
public typealias SubjectReadiness = Stickers.SubjectReadiness

/// The photo use cases: listing, importing and the images the editor shows.
extension Workspace {
    /// Every photo, in the order they were imported.
    public func photos() throws(Failure) -> [PhotoRecord] {
        try reading { () throws(LibraryError) in try library.photos() }
    }

    /// One photo, by id or unique id prefix.
    /// - Throws: ``Failure`` `notFound` for an unknown id.
    public func photo(_ id: String) throws(Failure) -> PhotoRecord {
        try reading { () throws(LibraryError) in try library.photo(id) }
    }

    /// Imports `files` in parallel; see ``PhotoImport``. Without `makingPreviews`, each
    /// photo's preview is made when it is first asked for (``makePreviews(of:)`` makes them ahead).
    public func importPhotos(
        _ files: [URL], makingPreviews: Bool = true, progress: @Sendable () -> Void = {}
    ) -> [PhotoImport.Outcome] {
        PhotoImport.importAll(files, into: library, makingPreviews: makingPreviews, progress: progress)
    }

    /// Makes the previews of `photos` that are missing, one after another, until `stopping` says
    /// so; a photo whose preview cannot be made is left for the request that asks for it to report.
    public func makePreviews(of photos: [PhotoRecord], stopping: () -> Bool = { false }) {
        for photo in photos where !stopping() { _ = try? library.previewFile(of: photo) }
    }

    /// The longer side, in pixels, of a photo's preview (`preview`) or thumbnail.
    public static func photoImageSide(preview: Bool) -> Int { preview ? Library.previewSize : Library.thumbnailSize }

    /// The format of a photo's preview and thumbnail: `jpg`, or `webp` for a photo whose format
    /// may be see-through (its transparency kept).
    public static func photoImageFormat(of photo: PhotoRecord) -> String { Library.derivedExtension(of: photo) }

    /// The picture of a photo's preview (`preview`) or thumbnail (see ``photoImageFormat(of:)``),
    /// made again if it went missing.
    public func photoImage(of photo: PhotoRecord, preview: Bool) throws(Failure) -> URL {
        try reading { () throws(LibraryError) in
            preview ? try library.previewFile(of: photo) : try library.thumbnailFile(of: photo)
        }
    }

    /// Whether a lift of `photo` answers at once (`ready`), finds nothing (`none`), or waits for
    /// the model (`pending`); `nil` without a model.
    public func subjectReadiness(of photo: PhotoRecord) -> SubjectReadiness? {
        model?.readiness(of: photo, in: library)
    }
}

extension Workspace {
    /// Imports one photo file; the same bytes imported again are the same photo (`isNew` false).
    /// - Throws: ``Failure``: `notFound` for a missing file, `invalidInput` for one that is not
    ///   an image Collage reads.
    public func importPhoto(_ file: URL) throws(Failure) -> ImportResult {
        try reading { () throws(LibraryError) in try library.importPhoto(from: file) }
    }
}

extension Workspace {
    /// The photo's original file, as imported.
    public func originalFile(of photo: PhotoRecord) -> URL { library.originalFile(of: photo) }

    /// Whether a lift of the photo answers at once: `true` when its subjects were found ahead
    /// of time, `false` when none was found, `nil` while it waits its turn.
    public func subjectsFound(photoID: String) -> Bool? {
        // The installed model is the one Collage is built for (it is checked as it loads), so its
        // keys are known without loading it.
        let sha256 = model?.sha256 ?? SubjectModel.expectedSHA256
        return library.subjectsFound(
            photoID: photoID, maskKey: SubjectModel.maskKey(modelSHA256: sha256),
            focusKey: SubjectModel.focusKey(modelSHA256: sha256))
    }

    /// Finds the subjects of those of `photos` not analysed yet with the installed model, if
    /// there is one, so lifts answer at once; a photo that cannot be analysed is left for a
    /// lift to report.
    /// - Parameters:
    ///   - starting: called once, with how many photos will be analysed, before the first.
    ///   - progress: called as each is done.
    public func findSubjects(
        of photos: [PhotoRecord], starting: (Int) -> Void = { _ in }, progress: () -> Void = {}
    ) {
        guard !photos.isEmpty, let model = model ?? (try? Workspace.loadModel()) else { return }
        let pending = photos.filter { model.readiness(of: $0, in: library) == .pending }
        guard !pending.isEmpty else { return }
        starting(pending.count)
        for photo in pending {
            _ = try? model.analyse(photo, in: library)
            progress()
        }
    }
}
