import Foundation

/// Serialises every use of one SQLite connection. Callers get the connection only inside a
/// closure: `read` for queries, `write` for a transaction that commits when the closure returns
/// and rolls back when it throws.
final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: the connection is only touched while `lock` is held.
    private let connection: Connection
    private let lock = NSLock()
    let path: String

    init(path: String) throws(SQLiteError) {
        connection = try Connection(path: path)
        self.path = path
    }

    func read<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(connection)
    }

    /// A write transaction. `BEGIN IMMEDIATE` takes the write lock up front, so two processes
    /// never both read a version and then both write.
    @discardableResult
    func write<T>(_ body: (Connection) throws(LibraryError) -> T) throws(LibraryError) -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            throw LibraryError.database(path: path, error)
        }
        let result: T
        do {
            result = try body(connection)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        do {
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw LibraryError.database(path: path, error)
        }
        return result
    }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }
}

/// Runs SQLite calls, turning their errors into library errors that name the database.
@discardableResult
func sql<T>(_ path: String, _ body: () throws(SQLiteError) -> T) throws(LibraryError) -> T {
    do {
        return try body()
    } catch {
        throw LibraryError.database(path: path, error)
    }
}
