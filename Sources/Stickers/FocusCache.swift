import CollageCore
import Foundation

/// Where `collage make` keeps the subject focus of the photo files it has cropped, so making a
/// collage of the same photos again runs no inference: one small file per photo and model,
/// named by the hash of the photo's bytes and the model's, under `$XDG_CACHE_HOME/collage/focus`
/// (else `~/.cache/collage/focus`). Bounded: past ``maximumEntries`` the oldest go.
public struct FocusCache: Sendable {
    /// The folder the entries are kept in.
    public let folder: URL

    /// The most entries kept; a photo's is a few bytes.
    public static let maximumEntries = 4_000

    /// The largest entry read: "0.123456789 0.987654321" and room to spare.
    public static let maximumEntryBytes = 256

    /// The cache under the user's cache folder, as `environment` names it.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> FocusCache {
        FocusCache(folder: SubjectModel.cacheFolder(environment: environment).appendingPathComponent("focus"))
    }

    /// A cache in `folder`.
    public init(folder: URL) {
        self.folder = folder
    }

    /// What is known of a photo's subject: `.some(point)`, `.some(nil)` when it has none, `nil`
    /// when the photo was not seen with this model.
    public func focus(ofPhoto data: Data, model: String) -> Point?? {
        // An entry is a few bytes: anything larger (or not a plain file) is not one, and is not read.
        let file = entry(data, model)
        guard let values = try? file.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey]),
            values.isRegularFile == true, (values.fileSize ?? .max) <= Self.maximumEntryBytes,
            let text = try? String(contentsOf: file, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: " ").compactMap { Double(decimal: $0) }
        if text.hasPrefix("none") { return .some(nil) }
        guard parts.count == 2, parts.allSatisfy({ (0...1).contains($0) }) else { return nil }
        return .some(Point(x: parts[0], y: parts[1]))
    }

    /// Remembers a photo's subject focus (`nil`: it has none). Failing to write only costs time later.
    public func store(_ focus: Point?, ofPhoto data: Data, model: String) {
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = focus.map { "\($0.x) \($0.y)" } ?? "none"
        try? Data(text.utf8).write(to: entry(data, model), options: .atomic)
        trim()
    }

    private func entry(_ data: Data, _ model: String) -> URL {
        folder.appendingPathComponent(SHA256.hex(of: data + Data(model.utf8)))
    }

    /// Keeps the folder within ``maximumEntries``, removing the least recently written.
    private func trim() {
        let keys: Set<URLResourceKey> = [.contentModificationDateKey]
        guard
            let files = try? FileManager.default.contentsOfDirectory(
                at: folder, includingPropertiesForKeys: Array(keys)),
            files.count > Self.maximumEntries
        else { return }
        let dated = files.map { file in
            (file, (try? file.resourceValues(forKeys: keys).contentModificationDate) ?? .distantPast)
        }
        for (file, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(files.count - Self.maximumEntries * 9 / 10) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
