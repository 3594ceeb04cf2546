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
    private let pendingWrites = PendingWrites()
    private let commits = Atomic<Int>(0)

    /// How many write transactions have committed (each a group of writes).
    var committedTransactions: Int { commits.load(ordering: .relaxed) }
    /// How many writes wait for the group being written to finish.
    var waitingWrites: Int { pendingWrites.count }
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

    /// A read: `body` in one transaction on `connection`, ended when it returns or throws. A
    /// read in one sees one committed state (a collage and its items), never half of a write
    /// that lands between two of its queries.
    fileprivate static func inTransaction<T>(
        _ connection: Connection, _ body: (Connection) throws(LibraryError) -> T
    ) throws(LibraryError) -> T {
        // Prepared once and kept, as every other statement: parsing these two again on each
        // transaction was a measurable part of an edit.
        try connection.run("BEGIN")
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

    /// A write, committed before this returns and rolled back (alone) when `body` throws.
    /// `BEGIN IMMEDIATE` takes the write lock up front, so two processes never both read a
    /// version and then both write.
    ///
    /// Writes that arrive while another is being written are written together: the first to
    /// find none running writes every waiting one in one transaction, each inside a savepoint
    /// of its own, and commits once (a group commit). Fifty editors at once then share commits
    /// and the pages they touch in common instead of queueing one commit each. Each caller
    /// still gets its own result or error, and a write that fails leaves the others' in place.
    @discardableResult
    func write<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        var outcome: Result<T, LibraryError>?
        let failure = withoutActuallyEscaping(body) { body -> LibraryError? in
            // The caller waits here until its write is done, so `body` (and what it captures)
            // outlives its run on whichever thread writes the group.
            let write = PendingWrite { connection in
                do throws(LibraryError) {
                    outcome = .success(try body(connection))
                    return nil
                } catch {
                    outcome = .failure(error)
                    return error
                }
            }
            if !pendingWrites.enqueue(write) {
                write.waitForTurn()
            }
            if !write.isDone { writeGroup(leadBy: write) }
            return write.failure
        }
        if let failure { throw failure }
        guard let outcome else { throw LibraryError.invalid("a write was never run (a bug in Collage)") }
        if case .success = outcome { checkpointer.noteWrite() }
        return try outcome.get()
    }

    /// The most writes one transaction groups: the first of them waits for all of them.
    static let groupLimit = 64

    /// Writes the waiting writes, `leader`'s first, as one transaction, tells each its outcome,
    /// and hands the next group to the first write still waiting.
    private func writeGroup(leadBy leader: PendingWrite) {
        let group = pendingWrites.takeGroup(limit: Self.groupLimit)
        let committed = lock.withLock { _ in Self.write(group, on: connection) }
        if committed { commits.add(1, ordering: .relaxed) }
        for write in group where write !== leader { write.wake() }
        pendingWrites.nextLeader()?.wake()
    }

    /// Writes `group` in one transaction (or more, when SQLite rolls one back); whether the
    /// last committed.
    private static func write(_ group: [PendingWrite], on connection: Connection) -> Bool {
        var written: [PendingWrite] = []
        var isOpen = false
        for write in group {
            if !isOpen {
                do throws(LibraryError) {
                    try connection.run("BEGIN IMMEDIATE")
                    isOpen = true
                } catch {
                    write.finish(failure: error)
                    continue
                }
            }
            // The body's own error is its caller's answer already; a savepoint's is not.
            var failed: LibraryError?
            do throws(LibraryError) {
                try connection.run("SAVEPOINT pending_write")
                failed = write.perform(on: connection)
                if failed == nil {
                    try connection.run("RELEASE pending_write")
                    written.append(write)
                } else {
                    write.finish(failure: nil)
                }
            } catch {
                failed = error
                write.finish(failure: error)
            }
            if failed != nil {
                try? connection.execute("ROLLBACK TO pending_write")
                try? connection.execute("RELEASE pending_write")
            }
            // Some failures (a full disk, an I/O error) make SQLite roll back the whole
            // transaction: the writes grouped before this one are lost with it, and say so.
            if isOpen, !connection.isInTransaction {
                isOpen = false
                for lost in written { lost.finish(failure: failed ?? .invalid("the write was rolled back")) }
                written = []
            }
        }
        guard isOpen else { return false }
        do throws(LibraryError) {
            try connection.run("COMMIT")
            for done in written { done.finish(failure: nil) }
            return true
        } catch {
            try? connection.execute("ROLLBACK")
            for lost in written { lost.finish(failure: error) }
            return false
        }
    }

    func close() {
        lock.withLock { _ in connection.close() }
        for reader in readers { reader.close() }
        checkpointer.close()
    }
}

/// One caller's write, waiting to be written in a group.
private final class PendingWrite: @unchecked Sendable {
    // @unchecked: `run`, `isDone` and `failure` are set by the one thread writing the group
    // (under the queue's lock) before it wakes the caller, which reads them only after.
    private var run: ((Connection) -> LibraryError?)?
    private(set) var isDone = false
    /// Why the write was not kept though its body succeeded (the commit failed), or why it
    /// never ran.
    private(set) var failure: LibraryError?
    private let turn = DispatchSemaphore(value: 0)

    init(_ run: @escaping (Connection) -> LibraryError?) { self.run = run }

    /// Runs the body; the error it threw, if it did.
    func perform(on connection: Connection) -> LibraryError? {
        defer { run = nil }
        return run?(connection)
    }

    /// Done: kept, refused by its body (`failure` nil: the body's own error is the answer),
    /// or lost with the transaction.
    func finish(failure: LibraryError?) {
        run = nil
        if let failure { self.failure = failure }
        isDone = true
    }

    /// Wakes the caller: to its outcome when done, else to write the next group.
    func wake() { turn.signal() }
    func waitForTurn() { turn.wait() }
}

/// The writes waiting to be written, and whether a group is being written.
private final class PendingWrites: Sendable {
    private let state = Mutex(State())

    private struct State {
        var waiting: [PendingWrite] = []
        var isWriting = false
    }

    /// Adds `write`; `true` when no group is being written, so its caller writes the next.
    func enqueue(_ write: PendingWrite) -> Bool {
        state.withLock { state in
            state.waiting.append(write)
            guard !state.isWriting else { return false }
            state.isWriting = true
            return true
        }
    }

    /// How many writes are waiting.
    var count: Int { state.withLock { $0.waiting.count } }

    /// The next group: the longest-waiting writes, at most `limit`.
    func takeGroup(limit: Int) -> [PendingWrite] {
        state.withLock { state in
            let group = Array(state.waiting.prefix(limit))
            state.waiting.removeFirst(group.count)
            return group
        }
    }

    /// After a group: the write that writes the next one, or `nil` when none is waiting.
    func nextLeader() -> PendingWrite? {
        state.withLock { state in
            guard let next = state.waiting.first else {
                state.isWriting = false
                return nil
            }
            return next
        }
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
