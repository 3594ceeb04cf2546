import CollageCore
import CollageRender
import Foundation

@testable import CollageLibrary

/// A temporary library folder with generated photos, removed when the test ends.
final class LibraryFixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("collage library tëst \(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

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
        let file = directory.appendingPathComponent(name)
        try Bitmap(width: width, height: height, color: color).write(to: file, format: format)
        return file
    }

    var databaseFile: URL { libraryRoot.appendingPathComponent(Library.databaseName) }
}
