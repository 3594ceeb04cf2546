import Foundation
import Synchronization

/// Bounds how many expensive jobs (exports, thumbnails, sticker lifts) run at once: up to
/// `running` at a time, up to `waiting` more queue for a turn, and past that a request is
/// refused at once with 503 and `Retry-After`, so a burst cannot take the machine's memory.
final class WorkGate: Sendable {
    private struct State {
        var running = 0
        var waiting = 0
    }

    /// What the gate guards, for messages ("exports").
    let name: String
    let maximumRunning: Int
    let maximumWaiting: Int
    /// How long a queued job waits for its turn before giving up with 503.
    let patience: Duration
    private let state = Mutex(State())
    private let turns: DispatchSemaphore

    init(name: String, running: Int, waiting: Int, patience: Duration = .seconds(30)) {
        self.name = name
        self.maximumRunning = running
        self.maximumWaiting = waiting
        self.patience = patience
        turns = DispatchSemaphore(value: running)
    }

    /// Runs `job` when a turn is free.
    /// - Throws: 503 with `Retry-After` when the queue is full or no turn came in time; the job's own error otherwise.
    func run<T>(_ job: () throws(HTTPError) -> T) throws(HTTPError) -> T {
        let admitted = state.withLock { state in
            guard state.running + state.waiting < maximumRunning + maximumWaiting else { return false }
            state.waiting += 1
            return true
        }
        guard admitted else { throw busy("\(maximumRunning) are running and \(maximumWaiting) are waiting") }
        let seconds = Double(patience.components.seconds)
        let gotTurn = turns.wait(timeout: .now() + seconds) == .success
        state.withLock { $0.waiting -= 1 }
        guard gotTurn else { throw busy("none finished within \(Int(seconds)) seconds") }
        state.withLock { $0.running += 1 }
        defer {
            state.withLock { $0.running -= 1 }
            turns.signal()
        }
        return try job()
    }

    /// How many jobs run now (for tests and diagnostics).
    var runningNow: Int { state.withLock { $0.running } }
    /// How many jobs wait for a turn now (for tests and diagnostics).
    var waitingNow: Int { state.withLock { $0.waiting } }

    private func busy(_ reason: String) -> HTTPError {
        var error = HTTPError(.unavailable, "too many \(name) at once (\(reason)); try again in a few seconds")
        error.headers["Retry-After"] = "5"
        return error
    }
}
