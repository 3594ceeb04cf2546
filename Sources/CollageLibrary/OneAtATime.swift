import Foundation
import Synchronization

/// Runs the work for a key once at a time: a caller that comes while another is doing the same
/// key's work waits for it to finish, then runs its own (which then finds the work done, and
/// returns at once). Different keys run side by side.
final class OneAtATime: Sendable {
    private final class KeyLock: Sendable {
        let lock = NSLock()
        /// How many callers hold or wait for this key; the entry goes when none is left.
        let users = Mutex(0)
    }

    private let locks = Mutex<[String: KeyLock]>([:])

    /// Runs `work` for `key`, after any other caller's work for the same key.
    func one<Value, Failure: Error>(_ key: String, _ work: () throws(Failure) -> Value) throws(Failure) -> Value {
        let keyLock = locks.withLock { locks in
            let keyLock = locks[key] ?? KeyLock()
            locks[key] = keyLock
            keyLock.users.withLock { $0 += 1 }
            return keyLock
        }
        defer {
            locks.withLock { locks in
                let left = keyLock.users.withLock { users in
                    users -= 1
                    return users
                }
                if left == 0 { locks[key] = nil }
            }
        }
        keyLock.lock.lock()
        defer { keyLock.lock.unlock() }
        return try work()
    }
}
