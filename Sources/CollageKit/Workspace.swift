import CollageCore
import CollageLibrary
import CollageLicence
import CollageRender
import Foundation
import Stickers

/// What every use case works on: the library, the subject model (when installed) and this
/// user's licence. Both faces hold one and call its use cases, each of which throws only a
/// ``Failure``; neither face reaches past it into the library, the model or the print code.
///
/// The use cases are grouped by what they are about, one file each: collages
/// (`Workspace+Collages.swift`), rendering, photos, stickers, sheets and the licence.
public struct Workspace: Sendable {
    /// The library the use cases read and change.
    let library: Library
    /// The subject model, or `nil` when it is not installed (no stickers, centred crops).
    let model: SubjectModel?
    /// Where this user's licence is kept; read afresh by every use case that asks.
    let licences: LicenceStore

    /// A workspace over an open library.
    /// - Parameters:
    ///   - model: the subject model for stickers and smart crops; `nil` turns both off.
    ///   - licences: where the user's licence is kept (``LicenceStore/standard(environment:)`` by default).
    public init(library: Library, model: SubjectModel?, licences: LicenceStore = .standard()) {
        self.library = library
        self.model = model
        self.licences = licences
    }

    /// Opens (or makes) the library in `folder`, or the default one (`$COLLAGE_LIBRARY`, else
    /// `$XDG_DATA_HOME/collage`) when `folder` is `nil`.
    /// - Throws: ``Failure``: `invalidInput` for a folder that is not a library or one made by
    ///   a newer Collage, `cannotWrite` when it cannot be made.
    public static func open(
        folder: URL?, model: SubjectModel? = nil, licences: LicenceStore = .standard()
    ) throws(Failure) -> Workspace {
        let root = folder ?? Library.defaultRoot()
        do {
            return Workspace(library: try Library(root: root), model: model, licences: licences)
        } catch {
            throw error.failure
        }
    }

    /// The file a library's collages and records live in, in its folder.
    public static let databaseFileName = Library.databaseName

    /// Whether `folder` holds a library: its database, or its photos and their previews (a
    /// library whose damaged database was set aside for `doctor --repair`; a folder that only
    /// happens to have a `photos` folder in it, such as a home folder, is none).
    public static func holdsLibrary(_ folder: URL) -> Bool {
        let exists = { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        return exists(Library.databaseName) || (exists("photos") && exists("derived"))
    }

    /// The same library and licence with another model (or none).
    public func with(model: SubjectModel?) -> Workspace {
        Workspace(library: library, model: model, licences: licences)
    }

    /// The library's folder.
    public var folder: URL { library.root }

    /// Whether a subject model is installed, so stickers can be lifted.
    public var hasModel: Bool { model != nil }

    /// What the stored licence allows now.
    public var access: PremiumAccess { PremiumAccess(store: licences) }

    /// How the editor's renders crop photos: around subjects already found, never waiting for
    /// the model (a photo not analysed yet is centred until the background analysis finds it).
    public var editorPhotos: some PhotoSource {
        LibrarySubjectFocusSource(library: library, model: model, findsMissing: false)
    }

    /// How the command line's renders crop photos: around their subjects, found now if need be.
    public var commandLinePhotos: some PhotoSource {
        LibrarySubjectFocusSource(library: library, model: model, findsMissing: true)
    }

    /// Runs library work, its error becoming the one ``Failure`` table's.
    func reading<T>(_ body: () throws(LibraryError) -> T) throws(Failure) -> T {
        do {
            return try body()
        } catch {
            throw error.failure
        }
    }
}

/// The subject model: U²-Net-p, run by OpenCV, for stickers and smart crops.
public typealias SubjectModel = Stickers.SubjectModel

extension Workspace {
    /// Where the model is looked for when no path is given (`$COLLAGE_MODEL`, else the
    /// project's or the package's copy).
    public static func defaultModelPath() -> URL { SubjectModel.defaultPath() }

    /// Loads the subject model at `path` (the default one when `nil`).
    /// - Throws: ``Failure`` `unavailable` naming what is missing or wrong (the file, its
    ///   checksum, the OpenCV engine) and how to get it.
    public static func loadModel(at path: URL? = nil) throws(Failure) -> SubjectModel {
        do {
            return try SubjectModel(path: path ?? SubjectModel.defaultPath())
        } catch {
            throw error.failure
        }
    }

    /// Closes the library's database; the workspace is not used after this.
    public func close() { library.close() }
}

extension Workspace {
    /// Photos read from files rather than the library (`collage render`, `collage make`),
    /// cropped around their subjects with `model`; each photo's subject is kept in the user's
    /// focus cache, so it is found once.
    public static func subjectCropped(_ photos: some PhotoSource, model: SubjectModel) -> some PhotoSource {
        SubjectFocusSource(photos, model: model, cache: .standard())
    }

    /// Sets what the model needs of the process while it has one thread (call first in `main`);
    /// returns a warning when a setting of the model's kernels is misspelt.
    public static func prepareCommandLineProcess() -> String? {
        SubjectModel.prepareCommandLineProcess()
        return SubjectModel.Kernels.settingProblem()
    }
}
