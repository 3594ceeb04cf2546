import Foundation
import Synchronization
import Testing

@testable import CollageLibrary

/// Writes that arrive while another is being written are committed together, each in a
/// savepoint of its own: every caller gets its own result or error, and one write's failure
/// never takes another's rows with it.
struct GroupCommitTests {
    /// A queue on a fresh file with one table, `t(x PRIMARY KEY, v NOT NULL)`.
    static func queue(in fixtures: LibraryFixtures) throws -> DatabaseQueue {
        try FileManager.default.createDirectory(at: fixtures.directory, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: fixtures.directory.appendingPathComponent("group.sqlite").path)
        try queue.exclusive { connection throws(LibraryError) in
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.execute("CREATE TABLE t (x INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        }
        return queue
    }

    static func rows(_ queue: DatabaseQueue) throws -> [Int64] {
        try queue.read { connection throws(LibraryError) in
            try connection.query("SELECT x FROM t ORDER BY x") { row throws(LibraryError) in
                guard case .integer(let x) = try row.value("x") else { return -1 }
                return x
            }
        }
    }

    @Test func writesWaitingForAnotherAreCommittedTogetherEachWithItsOwnOutcome() throws {
        let fixtures = try LibraryFixtures()
        let queue = try Self.queue(in: fixtures)
        defer { queue.close() }
        let followers = 12
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[Int: String]>([:])
        let group = DispatchGroup()
        // The first write holds the transaction open until every other has queued behind it.
        group.enter()
        Thread {
            let result = Result { () throws(LibraryError) -> Int in
                try queue.write { connection throws(LibraryError) in
                    try connection.run("INSERT INTO t (x, v) VALUES (0, 'first')")
                    started.signal()
                    release.wait()
                    return 0
                }
            }
            outcomes.withLock { $0[0] = (try? result.get()).map { "kept \($0)" } ?? "failed" }
            group.leave()
        }.start()
        started.wait()
        for index in 1...followers {
            group.enter()
            Thread {
                let result = Result { () throws(LibraryError) -> Int in
                    try queue.write { connection throws(LibraryError) in
                        try connection.run("INSERT INTO t (x, v) VALUES (?, 'row')", [index])
                        switch index % 4 {
                        // Its body refuses after writing: its row must not stay.
                        case 1: throw LibraryError.invalid("refused \(index)")
                        // A statement SQLite refuses (NOT NULL): the others are not touched.
                        case 2: try connection.run("INSERT INTO t (x, v) VALUES (?, NULL)", [index + 1000])
                        default: break
                        }
                        return index
                    }
                }
                let text: String
                switch result {
                case .success(let value): text = "kept \(value)"
                case .failure(let error): text = "failed: \(error)"
                }
                outcomes.withLock { $0[index] = text }
                group.leave()
            }.start()
        }
        // Bounded: a queue that never grew would fail below rather than hang here.
        for _ in 0..<20_000 where queue.waitingWrites < followers { usleep(500) }
        #expect(queue.waitingWrites == followers)
        release.signal()
        group.wait()

        let kept = (0...followers).filter { $0 % 4 == 0 || $0 % 4 == 3 }
        #expect(try Self.rows(queue) == kept.map(Int64.init))
        for index in 0...followers {
            let outcome = outcomes.withLock { $0[index] } ?? "none"
            if kept.contains(index) {
                #expect(outcome == "kept \(index)")
            } else {
                #expect(outcome.hasPrefix("failed"), "\(index): \(outcome)")
            }
        }
        #expect(outcomes.withLock { $0[1] }?.contains("refused 1") == true)
        #expect(outcomes.withLock { $0[2] }?.contains("NOT NULL") == true)
        // The first write's transaction, then one for all twelve that queued behind it.
        #expect(queue.committedTransactions == 2)
        // And the queue goes on: a write after the group is its own transaction.
        try queue.write { connection throws(LibraryError) in
            try connection.run("INSERT INTO t (x, v) VALUES (99, 'later')")
        }
        #expect(queue.committedTransactions == 3)
        #expect(try Self.rows(queue).last == 99)
    }
}
