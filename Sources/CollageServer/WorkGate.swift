import Foundation
import Synchronization

/// Bounds how many expensive jobs (exports, thumbnails, sticker lifts) run at once: up to
/// `running` at a time, up to `waiting` more queue for a turn, and past that a request is
/// refused at once with 503 and `Retry-After`, so a burst cannot take the machine's memory.
final class WorkGate: Sendable {
    private struct State {
        var running = 0
        var waiting = 0
        var closed = false
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
    /// - Throws: 503 with `Retry-After` when the queue is full, no turn came in time or the
    ///   server is stopping; the job's own error otherwise.
    func run<T>(_ job: () throws(HTTPError) -> T) throws(HTTPError) -> T {
        let admitted = state.withLock { state -> Bool? in
            guard !state.closed else { return nil }
            guard state.running + state.waiting < maximumRunning + maximumWaiting else { return false }
            state.waiting += 1
            return true
        }
        guard let admitted else { throw stopping }
        guard admitted else { throw busy("\(maximumRunning) are running and \(maximumWaiting) are waiting") }
        let seconds = Double(patience.components.seconds)
        let deadline = DispatchTime.now() + seconds
        var gotTurn = false
        // Waits in short steps, so that a queued job gives up as soon as the server stops rather
        // than keeping Ctrl-C waiting for the work queued before it.
        while !gotTurn, !isClosed, DispatchTime.now() < deadline {
            gotTurn = turns.wait(timeout: min(deadline, .now() + Self.step)) == .success
        }
        let closed = state.withLock { state in
            state.waiting -= 1
            if gotTurn, !state.closed { state.running += 1 }
            return state.closed
        }
        if closed {
            if gotTurn { turns.signal() }
            throw stopping
        }
        guard gotTurn else { throw busy("none finished within \(Int(seconds)) seconds") }
        defer {
            state.withLock { $0.running -= 1 }
            turns.signal()
        }
        return try job()
    }

    /// Refuses new and queued jobs from now on (the server is stopping); running ones finish.
    func close() { state.withLock { $0.closed = true } }

    private var isClosed: Bool { state.withLock { $0.closed } }

    /// How often a queued job looks whether the server is stopping.
    private static let step = 0.2

    /// How many jobs run now (for tests and diagnostics).
    var runningNow: Int { state.withLock { $0.running } }
    /// How many jobs wait for a turn now (for tests and diagnostics).
    var waitingNow: Int { state.withLock { $0.waiting } }

    private var stopping: HTTPError {
        var error = HTTPError(.unavailable, "the editor is stopping; start it again and retry")
        error.headers["Retry-After"] = "5"
        return error
    }

    private func busy(_ reason: String) -> HTTPError {
        var error = HTTPError(.unavailable, "too many \(name) at once (\(reason)); try again in a few seconds")
        error.headers["Retry-After"] = "5"
        return error
    }
}
