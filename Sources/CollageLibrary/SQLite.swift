import CSQLite
import Foundation

/// An error from SQLite: its result code, its message, and the statement that failed.
struct SQLiteError: Error, CustomStringConvertible {
    /// SQLite's primary result code, e.g. 5 (SQLITE_BUSY) or 26 (SQLITE_NOTADB).
    let code: Int32
    let message: String
    let sql: String?

    static let busy: Int32 = SQLITE_BUSY
    static let notADatabase: Int32 = SQLITE_NOTADB
    static let corrupt: Int32 = SQLITE_CORRUPT
    static let readOnly: Int32 = SQLITE_READONLY
    static let cannotOpen: Int32 = SQLITE_CANTOPEN
    static let constraint: Int32 = SQLITE_CONSTRAINT

    var description: String {
        "SQLite error \(code): \(message)" + (sql.map { " (in \($0.prefix(80)))" } ?? "")
    }
}

/// A value bound to a statement parameter or read from a column.
enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// Conversions into statement parameters.
protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { var sqlValue: SQLValue { .text(self) } }
extension Int: SQLBindable { var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { var sqlValue: SQLValue { .real(self) } }
extension Bool: SQLBindable { var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One open SQLite connection. Not thread-safe: ``DatabaseQueue`` serialises access to it.
final class Connection {
    private let handle: OpaquePointer
    let path: String
    private var isClosed = false
    /// Prepared statements by SQL text: the same few statements run for every edit, and
    /// preparing costs more than running them.
    private var statements: [String: Statement] = [:]

    /// - Parameter creating: whether a missing file becomes an empty database (the library's
    ///   writing connection) or is an error (its reading connections, which open a file the
    ///   writing one made).
    init(path: String, readOnly: Bool = false, creating: Bool = true) throws(LibraryError) {
        var handle: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0))
            | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw .database(path: path, SQLiteError(code: status, message: message, sql: nil))
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 0)
        // Another process may hold the write lock briefly; wait for it rather than failing.
        sqlite3_busy_timeout(handle, 10_000)
        // Many short-lived `collage` processes open one library. By default the last to close
        // checkpoints the WAL and deletes it under an exclusive lock, and a process opening in
        // that moment can be refused with "database is locked" before its busy timeout applies
        // (seen with `gc` looping beside an import). Checkpoints still run as the WAL grows.
        _ = CSQLite_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
    }

    deinit {
        if !isClosed { sqlite3_close_v2(handle) }
    }

    /// Whether a transaction is open (one a failed `ROLLBACK` left behind, say).
    var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    func close() {
        guard !isClosed else { return }
        statements.removeAll()
        sqlite3_close_v2(handle)
        isClosed = true
    }

    /// A prepared statement for `sql`, reset and ready to bind.
    private func prepared(_ sql: String) throws(LibraryError) -> Statement {
        try checkOpen(sql)
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        if statements.count < 64 { statements[sql] = statement }
        return statement
    }

    /// Runs statements that take no parameters and return no rows (schema, pragmas).
    func execute(_ sql: String) throws(LibraryError) {
        try checkOpen(sql)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard status == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? lastMessage
            sqlite3_free(errorMessage)
            throw failure(SQLiteError(code: status & 0xFF, message: message, sql: sql))
        }
    }

    /// Runs one statement with bound parameters; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [any SQLBindable] = []) throws(LibraryError) -> Int {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// Runs a query and maps each row.
    func query<T>(
        _ sql: String, _ arguments: [any SQLBindable] = [], row map: (Row) throws(LibraryError) -> T
    )
        throws(LibraryError) -> [T]
    {
        let statement = try prepared(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        var results: [T] = []
        while try statement.step() { results.append(try map(Row(statement: statement))) }
        return results
    }

    /// The first column of the first row, if any.
    func scalar(_ sql: String, _ arguments: [any SQLBindable] = []) throws(LibraryError) -> SQLValue? {
        try query(sql, arguments) { row throws(LibraryError) in row.value(at: 0) }.first
    }

    /// Whether a query returns at least one row.
    func exists(_ sql: String, _ arguments: [any SQLBindable] = []) throws(LibraryError) -> Bool {
        try !query(sql, arguments) { _ throws(LibraryError) in () }.isEmpty
    }

    var lastMessage: String { isClosed ? "the library was closed" : String(cString: sqlite3_errmsg(handle)) }

    /// The one place an SQLite failure becomes the library's error, naming this database.
    func failure(_ error: SQLiteError) -> LibraryError { .database(path: path, error) }

    /// A closed connection's handle is freed: work that still arrives (a background job
    /// finishing as the library closes) gets an error instead of touching freed memory.
    private func checkOpen(_ sql: String) throws(LibraryError) {
        guard !isClosed else {
            throw failure(SQLiteError(code: SQLITE_MISUSE, message: "the library was closed", sql: sql))
        }
    }

    fileprivate var rawHandle: OpaquePointer { handle }
}

/// A prepared statement; finalized when released.
final class Statement {
    private let handle: OpaquePointer
    private let connection: Connection
    let sql: String
    /// Result columns by name, as the query spells them (`AS` names included).
    let columns: [String: Int32]

    init(connection: Connection, sql: String) throws(LibraryError) {
        var handle: OpaquePointer?
        let status = sqlite3_prepare_v2(connection.rawHandle, sql, -1, &handle, nil)
        guard status == SQLITE_OK, let handle else {
            throw connection.failure(SQLiteError(code: status & 0xFF, message: connection.lastMessage, sql: sql))
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
        var columns: [String: Int32] = [:]
        for index in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, index) { columns[String(cString: name)] = index }
        }
        self.columns = columns
    }

    deinit { sqlite3_finalize(handle) }

    /// Ready to run again: rewound, and its bindings cleared.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ arguments: [any SQLBindable]) throws(LibraryError) {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32 =
                switch argument.sqlValue {
                case .null: sqlite3_bind_null(handle, index)
                case .integer(let value): sqlite3_bind_int64(handle, index, value)
                case .real(let value): sqlite3_bind_double(handle, index, value)
                // With its byte count, not up to a NUL: a U+0000 inside a title is stored, not
                // where the title silently ends.
                case .text(let value):
                    sqlite3_bind_text(handle, index, value, Int32(clamping: value.utf8.count), CSQLite_transient())
                }
            guard status == SQLITE_OK else { throw failure(status) }
        }
    }

    /// Advances to the next row; `false` when the statement is done.
    func step() throws(LibraryError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(status & 0xFF)
        }
    }

    func failure(_ code: Int32, _ message: String? = nil) -> LibraryError {
        connection.failure(SQLiteError(code: code, message: message ?? connection.lastMessage, sql: sql))
    }

    fileprivate var rawHandle: OpaquePointer { handle }
}

/// The current row of a statement, read by column name: a query that gains or reorders a
/// column cannot shift what another column reads.
struct Row {
    fileprivate let statement: Statement

    func value(at column: Int32) -> SQLValue {
        let handle = statement.rawHandle
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return .null }
            let count = Int(sqlite3_column_bytes(handle, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        default: return .null
        }
    }

    /// The value of the column `name`; a name the query does not return is a programming
    /// error reported as a database error, never a trap.
    func value(_ name: String) throws(LibraryError) -> SQLValue {
        guard let index = statement.columns[name] else {
            throw statement.failure(SQLITE_ERROR, "the query returns no column \(name)")
        }
        return value(at: index)
    }

    /// Text, or a typed error naming the column when it holds something else.
    func text(_ name: String) throws(LibraryError) -> String {
        guard case .text(let text) = try value(name) else { throw mismatch(name, "text") }
        return text
    }

    func optionalText(_ name: String) throws(LibraryError) -> String? {
        if case .text(let text) = try value(name) { text } else { nil }
    }

    func int(_ name: String) throws(LibraryError) -> Int {
        guard case .integer(let value) = try value(name) else { throw mismatch(name, "an integer") }
        return Int(value)
    }

    func optionalInt(_ name: String) throws(LibraryError) -> Int? {
        if case .integer(let value) = try value(name) { Int(value) } else { nil }
    }

    func double(_ name: String) throws(LibraryError) -> Double {
        switch try value(name) {
        case .real(let value): return value
        case .integer(let value): return Double(value)
        default: throw mismatch(name, "a number")
        }
    }

    func optionalDouble(_ name: String) throws(LibraryError) -> Double? {
        switch try value(name) {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// A date stored as seconds since 1970.
    func date(_ name: String) throws(LibraryError) -> Date { Date(timeIntervalSince1970: try double(name)) }

    /// A whole number within `range`, or a typed error naming the column and row: a damaged
    /// cell (2⁶³−1 for a width) never reaches the arithmetic that would trap on it.
    func int(_ name: String, in range: ClosedRange<Int64>) throws(LibraryError) -> Int {
        guard case .integer(let value) = try value(name), range.contains(value) else {
            throw mismatch(name, "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(value)
    }

    private func mismatch(_ name: String, _ expected: String) -> LibraryError {
        // The row is named by whichever key columns the query returns, so the message leads to it.
        let keys = ["collage_id", "id", "photo_id", "stack", "position", "key"].compactMap { key -> String? in
            guard statement.columns[key] != nil else { return nil }
            switch value(at: statement.columns[key] ?? 0) {
            case .text(let text):
                // Shown, never obeyed: a control character in a damaged key is written as "?".
                let shown = String(
                    String.UnicodeScalarView(
                        text.unicodeScalars.prefix(64).map {
                            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0
                        }))
                return "\(key) \"\(shown)\""
            case .integer(let number): return "\(key) \(number)"
            default: return nil
            }
        }
        let row = keys.isEmpty ? "" : " of the row with \(keys.joined(separator: ", "))"
        return statement.failure(
            SQLITE_MISMATCH,
            "column \(name)\(row) should hold \(expected); 'collage doctor' lists every damaged cell, "
                + "'collage doctor --repair' sets them aside")
    }
}
