import Foundation

/// Where this user's licence is kept: one file, `licence.key`, in `$XDG_CONFIG_HOME/collage/`
/// (else `~/.config/collage/`), so every library on the machine is unlocked by it, and copying
/// the file to another machine unlocks that one too: an offline app's "restore purchases".
public struct LicenceStore: Sendable {
    /// The licence file.
    public let file: URL
    /// The keys whose licences this store accepts.
    public let trustedKeys: [TrustedKey]

    /// A store in `folder`.
    public init(folder: URL, trusting trustedKeys: [TrustedKey] = TrustedKey.builtIn) {
        file = folder.appendingPathComponent("licence.key")
        self.trustedKeys = trustedKeys
    }

    /// The user's store: in `$XDG_CONFIG_HOME/collage`, else `~/.config/collage`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> LicenceStore {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return LicenceStore(folder: URL(fileURLWithPath: config).appendingPathComponent("collage"))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return LicenceStore(folder: URL(fileURLWithPath: home).appendingPathComponent(".config/collage"))
    }

    /// What the store holds now, read afresh each time (another process may have added a key).
    public func current() -> LicenceState {
        // The file is a key and nothing else: a regular file of a few hundred bytes. Anything
        // else (a huge file, a pipe that never ends) is refused before it is read.
        var status = stat()
        guard stat(file.path, &status) == 0 else {
            return errno == ENOENT
                ? .none : .invalid(.unreadable(path: file.path, reason: String(cString: strerror(errno))))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 4096 else {
            return .invalid(
                .unreadable(path: file.path, reason: "it is not a licence key file (\(status.st_size) bytes)"))
        }
        let text: String
        do {
            text = try String(contentsOf: file, encoding: .utf8)
        } catch {
            return .invalid(.unreadable(path: file.path, reason: Self.reason(error)))
        }
        do {
            return .valid(try Licence(key: text, trusting: trustedKeys))
        } catch {
            return .invalid(error)
        }
    }

    /// The valid licence, if there is one.
    public var licence: Licence? {
        if case .valid(let licence) = current() { return licence }
        return nil
    }

    /// Verifies `key` and keeps it, replacing any licence stored before. A refused key changes
    /// nothing: the licence stored before (if any) stays.
    /// - Throws: ``LicenceError`` for a bad key, or when the file cannot be written.
    @discardableResult
    public func add(_ key: String) throws(LicenceError) -> Licence {
        guard key.utf8.count <= 4096 else {
            throw .malformed("it is \(key.utf8.count) characters, far longer than a key")
        }
        let licence = try Licence(key: key, trusting: trustedKeys)
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".licence-\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Written whole and flushed under another name, then renamed: a crash or a power cut
            // leaves the old licence or the new, never half of one.
            try Self.writeDurably(Data((licence.key + "\n").utf8), to: temporary)
            guard rename(temporary.path, file.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            Self.flushFolder(folder)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(path: file.path, reason: Self.reason(error))
        }
        return licence
    }

    /// Removes the stored licence; `false` when there was none. Only ever a regular file of a
    /// key's size, as ``add(_:)`` writes it: a folder, a link or a large file at that path is not
    /// Collage's to delete, and is left as it is.
    /// - Throws: ``LicenceError/cannotWrite(path:reason:)`` when the file cannot be removed, or
    ///   is not a licence key file.
    @discardableResult
    public func remove() throws(LicenceError) -> Bool {
        var status = stat()
        guard lstat(file.path, &status) == 0 else {
            if errno == ENOENT { return false }
            throw .cannotWrite(path: file.path, reason: String(cString: strerror(errno)))
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG, status.st_size <= 4096 else {
            let what =
                kind == S_IFDIR
                ? "a folder" : kind == S_IFLNK ? "a link" : kind == S_IFREG ? "a large file" : "not a file"
            throw .cannotWrite(
                path: file.path,
                reason: "it is \(what), not a licence key file Collage wrote; nothing was removed")
        }
        // unlink, never a recursive removal: whatever happens meanwhile, at most this one entry goes.
        guard unlink(file.path) == 0 else {
            throw .cannotWrite(path: file.path, reason: String(cString: strerror(errno)))
        }
        return true
    }

    /// Creates `url` (only if it does not exist) readable by its owner alone, writes `data` and
    /// flushes it to the disk.
    public static func writeDurably(_ data: Data, to url: URL) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: data)
        try handle.synchronize()
    }

    /// Flushes a folder's entries, so a rename in it survives a power cut.
    private static func flushFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? POSIXError { return String(cString: strerror(error.code.rawValue)) }
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}

/// What a ``LicenceStore`` holds.
public enum LicenceState: Hashable, Sendable {
    /// No licence file.
    case none
    /// A licence that verifies.
    case valid(Licence)
    /// A licence file that cannot be read or does not verify (say one copied from a build that
    /// trusts other keys); premium stays locked and the error says why.
    case invalid(LicenceError)
}
