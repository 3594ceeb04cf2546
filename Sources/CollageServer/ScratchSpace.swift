import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where this server process keeps request bodies and exports while it works on them: a folder
/// of its own in the system's temporary folder, held with an advisory lock for as long as the
/// process lives. A killed server cannot clean up after itself, so each new one removes the
/// folders whose lock nobody holds any more.
enum ScratchSpace {
    /// This process's folder, made (and the leftovers of dead servers removed) on first use.
    static let folder: URL = {
        let base = FileManager.default.temporaryDirectory
        removeLeftovers(in: base)
        let folder = base.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let descriptor = open(folder.appendingPathComponent(lockName).path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        // The descriptor stays open (and locked) until the process ends, on purpose.
        if descriptor >= 0 { _ = flock(descriptor, LOCK_EX | LOCK_NB) }
        return folder
    }()

    static let prefix = "collage-serve-"
    static let lockName = ".lock"

    /// A new, unused path inside ``folder``.
    static func file(_ kind: String) -> URL {
        folder.appendingPathComponent("\(kind)-\(UUID().uuidString)")
    }

    /// Removes the scratch folders of servers that are no longer running, and loose files that
    /// older versions left directly in the temporary folder.
    static func removeLeftovers(in base: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        let legacyCutoff = Date().addingTimeInterval(-3600)
        for name in names {
            let path = base.appendingPathComponent(name)
            if name.hasPrefix(prefix) {
                let descriptor = open(path.appendingPathComponent(lockName).path, O_RDWR | O_CLOEXEC)
                if descriptor < 0 {
                    try? FileManager.default.removeItem(at: path)
                    continue
                }
                defer { close(descriptor) }
                // Taking the lock means its owner is gone.
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { try? FileManager.default.removeItem(at: path) }
            } else if ["collage-upload-", "collage-parts-", "collage-export-"].contains(where: name.hasPrefix) {
                let modified =
                    (try? FileManager.default.attributesOfItem(atPath: path.path)[.modificationDate] as? Date)
                    ?? .distantFuture
                if modified < legacyCutoff { try? FileManager.default.removeItem(at: path) }
            }
        }
    }
}
