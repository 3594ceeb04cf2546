import Foundation

/// Waits on a condition rather than for a guessed time: a test goes on as soon as what it
/// waits for is true, and on a slow machine it waits longer instead of failing.
public enum Waiting {
    /// Whether `condition` became true within `seconds`, asking every few milliseconds.
    @discardableResult
    public static func until(seconds: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return try condition()
    }
}
