import Foundation
import Synchronization
import Testing

@testable import CollageServer

/// Stopping the server (Ctrl-C) used to wait for every export queued behind the running ones
/// (12–27 s under load in a soak, past the 20 s a stop is given). Queued and new jobs are
/// refused from then on; the running ones finish.
struct WorkGateTests {
    @Test func aClosedGateRefusesQueuedAndNewJobsAndLetsTheRunningOneFinish() throws {
        let gate = WorkGate(name: "exports", running: 1, waiting: 2)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let outcomes = Mutex<[String: String]>([:])
        let finished = DispatchGroup()

        DispatchQueue.global().async(group: finished) {
            let outcome = Result { () throws(HTTPError) in
                try gate.run { () throws(HTTPError) -> String in
                    started.signal()
                    release.wait()
                    return "finished"
                }
            }
            outcomes.withLock { $0["running"] = Self.describe(outcome) }
        }
        started.wait()
        let clock = ContinuousClock()
        DispatchQueue.global().async(group: finished) {
            let start = clock.now
            let outcome = Result { () throws(HTTPError) in try gate.run { () throws(HTTPError) in "ran" } }
            let waited = clock.now - start
            outcomes.withLock {
                $0["queued"] = Self.describe(outcome) + " after \(waited < .seconds(5) ? "moments" : "long")"
            }
        }
        while gate.waitingNow == 0 { usleep(1000) }

        gate.close()
        // The queued job gives up while the running one still runs.
        let deadline = clock.now + .seconds(10)
        while outcomes.withLock({ $0["queued"] }) == nil, clock.now < deadline { usleep(5000) }
        #expect(
            outcomes.withLock { $0["queued"] } == "503 the editor is stopping; start it again and retry after moments")
        #expect(outcomes.withLock { $0["running"] } == nil)

        let new = Result { () throws(HTTPError) in try gate.run { () throws(HTTPError) in "ran" } }
        #expect(Self.describe(new) == "503 the editor is stopping; start it again and retry")

        release.signal()
        finished.wait()
        #expect(outcomes.withLock { $0["running"] } == "finished")
        #expect(gate.runningNow == 0 && gate.waitingNow == 0)
    }

    private static func describe(_ outcome: Result<String, HTTPError>) -> String {
        switch outcome {
        case .success(let value): value
        case .failure(let error): "\(error.status.code) \(error.message)"
        }
    }
}
