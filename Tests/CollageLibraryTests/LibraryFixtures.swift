import CollageCore
import CollageRender
import CollageTestSupport
import Foundation

@testable import CollageLibrary

/// A temporary library folder with generated photos, removed when the test ends.
final class LibraryFixtures {
    private let folder: TemporaryFolder
    var directory: URL { folder.url }

    init() throws {
        // A space and an accent, so paths like a person's are exercised.
        folder = try TemporaryFolder("collage library tëst")
    }

    var libraryRoot: URL { directory.appendingPathComponent("Bibliothèque") }

    func open(now: @escaping @Sendable () -> Date = { Date() }) throws -> Library {
        try Library(root: libraryRoot, now: now)
    }

    /// A one-colour photo file; different colours give different bytes.
    @discardableResult
    func photo(
        _ name: String, _ color: [UInt8], width: Int = 300, height: Int = 200, format: OutputFormat = .png
    )
        throws -> URL
    {
        try TestPhotos.solid(color, width: width, height: height, format: format, to: folder.file(name))
    }

    var databaseFile: URL { libraryRoot.appendingPathComponent(Library.databaseName) }
}
