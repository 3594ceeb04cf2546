import Foundation
import Synchronization

/// Serialises every use of one SQLite connection. Callers get the connection only inside a
/// closure: `read` for queries, `write` for a transaction that commits when the closure returns
/// and rolls back when it throws.
final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: the connection (opened without SQLite's own mutex) is only touched while
    // `lock` is held. A `Mutex<Connection>` would say the same, but it cannot lend the
    // connection to the caller's closure: the compiler cannot see that the closure does not
    // keep it.
    private let connection: Connection
    private let lock = Mutex(())
    let path: String

    init(path: String) throws(LibraryError) {
        connection = try Connection(path: path)
        self.path = path
    }

    func read<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        try lock.withLock { _ throws(LibraryError) in try body(connection) }
    }

    /// A write transaction. `BEGIN IMMEDIATE` takes the write lock up front, so two processes
    /// never both read a version and then both write.
    @discardableResult
    func write<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        try lock.withLock { _ throws(LibraryError) in
            try connection.execute("BEGIN IMMEDIATE")
            let result: T
            do throws(LibraryError) {
                result = try body(connection)
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            do throws(LibraryError) {
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
            return result
        }
    }

    func close() {
        lock.withLock { _ in connection.close() }
    }
}
