import CollageCore
import CollageRender
import Foundation

/// The on-disk library: `library.sqlite` (collages, items, photo records), `photos/` (imported
/// originals named by content hash, never rewritten) and `derived/` (thumbnails, previews and
/// anything else that can be rebuilt).
///
/// Every change is one SQLite transaction; files are written to a temporary name and renamed
/// before the row that points at them is committed, so a crash at any moment leaves a library
/// that opens with everything committed intact. Safe to use from several threads and processes.
public final class Library: Sendable {
    /// The library folder.
    public let root: URL
    let database: DatabaseQueue
    /// The collages this process last saved or read for a change, which the next change to one
    /// starts from without reading its rows.
    let recentCollages = RecentCollages()
    /// The derived files (previews, thumbnails) this process is making now.
    let derivedFilesInMaking = OneAtATime()
    let now: @Sendable () -> Date
    /// The most bytes of earlier documents a collage's undo and redo history keeps.
    public let historyByteLimit: Int

    /// The file name of the database inside the library folder.
    public static let databaseName = "library.sqlite"
    /// `PRAGMA application_id` of a Collage library ("CLLG"), so a foreign SQLite file is recognised.
    static let applicationID: Int32 = 0x434C_4C47

    /// The folder used when none is given: `$COLLAGE_LIBRARY`, else `$XDG_DATA_HOME/collage`,
    /// else `~/.local/share/collage`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["COLLAGE_LIBRARY"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("collage")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/collage")
    }

    /// Opens the library at `root`, creating it (and running schema migrations) as needed.
    /// - Parameter now: the clock for import and edit dates; tests pass a fixed one.
    /// - Throws: ``LibraryError`` naming the path and what to do when the folder is not writable,
    ///   `library.sqlite` is not a Collage library, or it comes from a newer Collage. Nothing is
    ///   overwritten or deleted in those cases.
    /// - Parameter historyByteLimit: the most bytes of earlier documents each collage's undo and
    ///   redo history keeps (``defaultHistoryByteLimit``; tests pass a small one).
    public init(
        root: URL, now: @escaping @Sendable () -> Date = { Date() },
        historyByteLimit: Int = Library.defaultHistoryByteLimit
    ) throws(LibraryError) {
        self.root = root.standardizedFileURL
        self.now = now
        self.historyByteLimit = max(1, historyByteLimit)
        let databasePath = self.root.appendingPathComponent(Self.databaseName).path
        try Self.prepareFolders(self.root)
        try Self.checkHeader(databasePath)
        do {
            database = try DatabaseQueue(path: databasePath)
        } catch {
            throw Self.openingError(error, path: databasePath)
        }
        try migrate()
    }

    /// Closes the database; the library must not be used afterwards.
    public func close() { database.close() }

    // MARK: - Layout on disk

    /// Where imported originals live.
    public var photosFolder: URL { root.appendingPathComponent("photos") }
    /// Where rebuildable files live.
    public var derivedFolder: URL { root.appendingPathComponent("derived") }
    /// Where files are made before the transaction that records them moves them into place.
    public var stagingFolder: URL { root.appendingPathComponent("staging") }

    private static func prepareFolders(_ root: URL) throws(LibraryError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: root.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw .unwritable(path: root.path, reason: "it is a file, not a folder")
        }
        for folder in [root, root.appendingPathComponent("photos"), root.appendingPathComponent("derived")] {
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw .unwritable(path: folder.path, reason: Self.reason(error))
            }
        }
        guard manager.isWritableFile(atPath: root.path) else {
            throw .unwritable(path: root.path, reason: "the folder is read-only")
        }
    }

    /// A file that exists but does not start like SQLite is someone else's: refuse before SQLite
    /// sees it, so nothing can be written over it.
    private static func checkHeader(_ path: String) throws(LibraryError) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        guard !head.isEmpty else { return }
        guard head == Data("SQLite format 3\0".utf8) else {
            throw .notALibrary(path: path, reason: "the file is not an SQLite database")
        }
    }

    /// What a failure while opening means to a person: a damaged file, or one they cannot write.
    private static func openingError(_ error: LibraryError, path: String) -> LibraryError {
        guard case .database(_, let info) = error else { return error }
        return switch info.code {
        case SQLiteError.notADatabase, SQLiteError.corrupt:
            .notALibrary(path: path, reason: "the database is damaged: \(info.message)")
        case SQLiteError.readOnly, SQLiteError.cannotOpen:
            .unwritable(path: path, reason: info.message)
        default: error
        }
    }

    private func migrate() throws(LibraryError) {
        let path = database.path
        let (version, application, tables) = try Self.retryingWhileBusy { () throws(LibraryError) in
            try opening(path: path)
        }
        if application != 0, application != Self.applicationID {
            throw .notALibrary(path: path, reason: "it belongs to another application (id \(application))")
        }
        if application == 0, !tables.isEmpty {
            throw .notALibrary(
                path: path, reason: "it holds tables Collage did not create: \(tables.sorted().joined(separator: ", "))"
            )
        }
        if version > Schema.currentVersion {
            throw .newerSchema(path: path, found: version, supported: Schema.currentVersion)
        }
        for (index, migration) in Schema.migrations.enumerated() where index >= version {
            try database.write { connection throws(LibraryError) in
                // Re-read inside the lock: another process may have migrated meanwhile.
                guard case .integer(let current) = try connection.scalar("PRAGMA user_version"), current == index
                else { return }
                try connection.execute(migration.sql)
                try connection.execute("PRAGMA user_version = \(index + 1)")
                try connection.execute("PRAGMA application_id = \(Self.applicationID)")
                if try connection.exists("PRAGMA foreign_key_check") {
                    throw connection.failure(
                        SQLiteError(
                            code: SQLiteError.constraint, message: "\(migration.name) left broken references", sql: nil)
                    )
                }
            }
        }
    }

    /// The first reads on a new connection: WAL mode, and what the file holds.
    private func opening(path: String) throws(LibraryError) -> (version: Int, application: Int32, tables: [String]) {
        try database.exclusive { connection throws(LibraryError) in
            do throws(LibraryError) {
                try connection.execute("PRAGMA foreign_keys = ON")
                let mode = try connection.scalar("PRAGMA journal_mode = WAL")
                guard mode == .text("wal") else {
                    throw LibraryError.unwritable(path: path, reason: "SQLite could not switch to WAL mode")
                }
                try connection.execute("PRAGMA synchronous = NORMAL")
                // The three in one read transaction, so they come from one moment: read one at a
                // time, a library another process was creating showed its tables before its
                // application id, and was refused as someone else's database.
                try connection.run("BEGIN")
                let version: SQLValue?, application: SQLValue?, tables: [String]
                do throws(LibraryError) {
                    version = try connection.scalar("PRAGMA user_version")
                    application = try connection.scalar("PRAGMA application_id")
                    tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") {
                        row throws(LibraryError) in try row.text("name")
                    }
                    try connection.run("COMMIT")
                } catch {
                    try? connection.execute("ROLLBACK")
                    throw error
                }
                if case .integer(let version) = version, case .integer(let application) = application {
                    return (Int(version), Int32(truncatingIfNeeded: application), tables)
                }
                return (0, 0, tables)
            } catch {
                throw Self.openingError(error, path: path)
            }
        }
    }

    /// Runs `body` again while SQLite answers "busy" without waiting: while another process
    /// checkpoints or recovers the WAL, switching to WAL mode and reading the schema can be
    /// refused at once, before the busy timeout applies. Bounded: about ten seconds in all.
    static func retryingWhileBusy<T>(_ body: () throws(LibraryError) -> T) throws(LibraryError) -> T {
        var attempt = 0
        while true {
            do throws(LibraryError) {
                return try body()
            } catch {
                guard case .database(_, let info) = error, info.code == SQLiteError.busy, attempt < 100 else {
                    throw error
                }
                attempt += 1
                usleep(UInt32(min(attempt, 20)) * 5_000)
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.underlying as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return (error as NSError).localizedDescription
    }
}

extension CocoaError {
    fileprivate var underlying: (any Error)? { userInfo[NSUnderlyingErrorKey] as? any Error }
}
