import Foundation

/// A fresh folder under the system's temporary directory, removed when the value is released.
/// Names carry a prefix (to tell which suite left something behind) and may carry spaces and
/// non-ASCII letters, so paths like a person's are exercised.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Makes the folder.
    /// - Parameter prefix: the start of its name, e.g. `collage-render`.
    public init(_ prefix: String = "collage-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the folder (nothing is created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A fresh folder that the caller removes (for tests that keep it in a `defer`).
    public static func make(_ prefix: String = "collage-tests") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
