import CollageCore
import CollageLibrary
import Dispatch
import Foundation
import Synchronization

/// Importing many photos at once, for both faces: the command line's `collage import` and the
/// API's upload. Files are imported in parallel, one per core; one that fails does not stop the
/// others, and every outcome comes back in the order the files were given.
public enum PhotoImport {
    /// One file's outcome.
    public enum Outcome: Sendable {
        /// The photo is in the library (new, or already there).
        case imported(ImportResult)
        /// The file could not be imported, and why.
        case failed(Failure)
    }

    /// Imports `files` into `library`.
    /// - Parameters:
    ///   - makingPreviews: whether each photo's preview is made now, or left to be made when it
    ///     is first asked for (see ``Library/importPhoto(from:makingPreview:)``).
    ///   - progress: called once per file as it finishes, from any thread.
    public static func importAll(
        _ files: [URL], into library: Library, makingPreviews: Bool = true, progress: @Sendable () -> Void = {}
    ) -> [Outcome] {
        let slots = Mutex([Outcome?](repeating: nil, count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let outcome: Outcome
            do throws(LibraryError) {
                outcome = .imported(try library.importPhoto(from: files[index], makingPreview: makingPreviews))
            } catch {
                outcome = .failed(error.failure)
            }
            slots.withLock { $0[index] = outcome }
            progress()
        }
        return slots.withLock { outcomes in
            outcomes.map { $0 ?? .failed(Failure(.failed, "not imported")) }
        }
    }
}

extension RecordJSON {
    /// A photo as an import left it: ``photo(_:)`` and `new`, `false` when the same bytes were
    /// already in the library.
    public static func imported(_ result: ImportResult) -> JSONValue {
        adding(["new": .bool(result.isNew)], to: photo(result.photo))
    }
}
