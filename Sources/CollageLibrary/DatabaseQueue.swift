import Foundation
import Synchronization

/// The library's SQLite connections. Callers get a connection only inside a closure: `write`
/// for a transaction that commits when the closure returns and rolls back when it throws, on
/// the one writing connection; `read` for queries, on one of a few reading connections, so
/// reads (a document's photos, an answer's media, every GET) go on beside a write instead of
/// queueing behind it. WAL mode gives each read one committed state.
final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: the connection (opened without SQLite's own mutex) is only touched while
    // `lock` is held. A `Mutex<Connection>` would say the same, but it cannot lend the
    // connection to the caller's closure: the compiler cannot see that the closure does not
    // keep it.
    private let connection: Connection
    private let lock = Mutex(())
    private let readers: [Reader]
    private let checkpointer: Checkpointer
    let path: String

    /// How many reading connections a library opens at most (each when first needed).
    static let readerCount = 4

    init(path: String) throws(LibraryError) {
        connection = try Connection(path: path)
        self.path = path
        readers = (0..<Self.readerCount).map { _ in Reader(path: path) }
        checkpointer = Checkpointer(path: path)
    }

    /// A read on whichever reading connection is free; when all are busy (or one cannot be
    /// opened), on the writing connection, in turn with the writes.
    func read<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        for reader in readers {
            if let result = reader.readIfFree(body) { return try result.get() }
        }
        return try lock.withLock { _ throws(LibraryError) in try Self.inTransaction(connection, body) }
    }

    /// `body` in one transaction on `connection`, committed when it returns and rolled back
    /// when it throws. A read in one sees one committed state (a collage and its items), never
    /// half of a write that lands between two of its queries.
    fileprivate static func inTransaction<T>(
        _ connection: Connection, beginning begin: String = "BEGIN", _ body: (Connection) throws(LibraryError) -> T
    ) throws(LibraryError) -> T {
        // Prepared once and kept, as every other statement: parsing these two again on each
        // transaction was a measurable part of an edit.
        try connection.run(begin)
        let result: T
        do throws(LibraryError) {
            result = try body(connection)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        do throws(LibraryError) {
            try connection.run("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// The writing connection with no transaction around `body`: for the pragmas that set the
    /// connection up (WAL mode cannot be switched on inside a transaction).
    func exclusive<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        try lock.withLock { _ throws(LibraryError) in try body(connection) }
    }

    /// A write transaction. `BEGIN IMMEDIATE` takes the write lock up front, so two processes
    /// never both read a version and then both write.
    @discardableResult
    func write<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        let result = try lock.withLock { _ throws(LibraryError) in
            try Self.inTransaction(connection, beginning: "BEGIN IMMEDIATE", body)
        }
        checkpointer.noteWrite()
        return result
    }

    func close() {
        lock.withLock { _ in connection.close() }
        for reader in readers { reader.close() }
        checkpointer.close()
    }
}

/// One reading connection, opened when first used and refusing writes (`query_only`).
private final class Reader: @unchecked Sendable {
    // @unchecked: as with the queue's own connection, `state` is only touched while `lock`
    // is held.
    private let lock = Mutex(())
    private var state = State.unopened
    private let path: String

    private enum State {
        case unopened
        case open(Connection)
        /// Closed with the library.
        case unusable
    }

    init(path: String) { self.path = path }

    /// `body`'s result on this connection, or `nil` when another read holds it.
    func readIfFree<T>(_ body: (Connection) throws(LibraryError) -> T) -> Result<T, LibraryError>? {
        lock.withLockIfAvailable { _ -> Result<T, LibraryError>? in
            guard let connection = opened() else { return nil }
            do throws(LibraryError) {
                return .success(try DatabaseQueue.inTransaction(connection, body))
            } catch {
                // A transaction left open would hold an old snapshot for every later read:
                // this connection is closed and the next read opens another.
                if connection.isInTransaction {
                    connection.close()
                    state = .unopened
                }
                return .failure(error)
            }
        } ?? nil
    }

    /// The connection, opened now if it is the first read. One that cannot be opened (too
    /// many open files, say) is tried again at a later read; meanwhile reads go to the
    /// writing connection.
    private func opened() -> Connection? {
        if case .unopened = state {
            if let connection = try? Connection(path: path, creating: false),
                (try? connection.execute("PRAGMA query_only = 1")) != nil
            {
                state = .open(connection)
            } else {
                return nil
            }
        }
        guard case .open(let connection) = state else { return nil }
        return connection
    }

    func close() {
        lock.withLock { _ in
            if case .open(let connection) = state { connection.close() }
            state = .unusable
        }
    }
}

/// Copies the WAL back into the database on a connection of its own, in the background, every
/// few writes. Left to SQLite, the commit that finds the WAL grown past 1,000 pages does it,
/// while it holds the write lock, and every write waits for its copy and its `fdatasync` (tens
/// of milliseconds on some disks): the slowest edits of a busy server. A passive checkpoint
/// needs no write lock, so writes go on beside it, and the WAL seldom reaches SQLite's own
/// threshold, which stays as the backstop (and what short-lived processes use).
private final class Checkpointer: @unchecked Sendable {
    // @unchecked: `connection` and `isClosed` are only touched while `lock` is held.
    private let lock = Mutex(())
    private var connection: Connection?
    private var isClosed = false
    private let schedule = Mutex(Schedule())
    private let path: String

    private struct Schedule {
        var writes = 0
        var isRunning = false
    }

    /// Writes between two checkpoints: an edit adds about ten pages to the WAL.
    static let interval = 32

    init(path: String) { self.path = path }

    func noteWrite() {
        let due = schedule.withLock { schedule in
            schedule.writes += 1
            guard schedule.writes >= Self.interval, !schedule.isRunning else { return false }
            schedule.writes = 0
            schedule.isRunning = true
            return true
        }
        guard due else { return }
        DispatchQueue.global(qos: .utility).async { self.run() }
    }

    /// A checkpoint, and another shortly after while writes keep coming: the WAL starts again
    /// from its beginning only once a checkpoint has copied every frame, so the writes that
    /// landed during one (the end of a burst of edits) need one more.
    private func run() {
        checkpoint()
        let again = schedule.withLock { schedule in
            guard schedule.writes > 0 else {
                schedule.isRunning = false
                return false
            }
            schedule.writes = 0
            return true
        }
        guard again else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.followUpDelay) { self.run() }
    }

    /// How long after a checkpoint the next one runs while writes go on.
    static let followUpDelay = DispatchTimeInterval.milliseconds(50)

    /// One passive checkpoint. A failure (the file gone, say) is left for the next, or for
    /// SQLite's own: nothing is lost by a checkpoint not run.
    private func checkpoint() {
        lock.withLock { _ in
            guard !isClosed else { return }
            if connection == nil { connection = try? Connection(path: path, creating: false) }
            guard let connection else { return }
            do throws(LibraryError) {
                try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            } catch {
                connection.close()
                self.connection = nil
            }
        }
    }

    /// Waits for a running checkpoint and closes the connection; none runs after.
    func close() {
        lock.withLock { _ in
            connection?.close()
            connection = nil
            isClosed = true
        }
    }
}
