import CollageLibrary
import Foundation
import Stickers
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the subjects of the library's photos in the background, one photo at a time on a
/// thread of the lowest priority, so that "Lift subject" answers at once for any photo it has
/// seen. What it has done is the masks it caches, so a restart picks up where it stopped; it
/// never holds a lock an edit or an export needs (the model's own lock is shared with lifts,
/// which wait for at most one photo).
public final class SubjectAnalyser: Sendable {
    private let library: Library
    private let model: SubjectModel
    /// Whether there may be photos to look at; set by uploads, cleared when none are left.
    private let wanted = Mutex(true)
    private let running = Mutex(true)
    private let signal = DispatchSemaphore(value: 0)
    /// The photo being analysed now, if any.
    private let current = Mutex<String?>(nil)
    /// Photos analysed by this process that are still not ready (their files could not be
    /// written: a full disk): not tried again until the next start, so the thread never spins.
    private let given = Mutex<Set<String>>([])

    /// How long the thread rests, with nothing to do, before it looks at the library again.
    static let recheck: TimeInterval = 5

    /// An analyser of the workspace's photos; `nil` without a model, which it needs.
    public init?(_ workspace: Workspace) {
        guard let model = workspace.model else { return nil }
        self.library = workspace.library
        self.model = model
    }

    /// Whether the background thread was started (and not stopped): then every photo's subject
    /// is found soon, and pages showing one not yet analysed may ask again.
    public var isStarted: Bool { started.withLock { $0 } && running.withLock { $0 } }
    private let started = Mutex(false)
    /// Signalled when the thread has left its loop: a stopping server waits for the photo under
    /// way, so the process never exits (or closes the library) in the middle of an inference.
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the background thread.
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        Thread.detachNewThread { [self] in
            // The lowest priority, for this thread alone: on Linux, who = 0 names the calling
            // thread, each thread having its own nice value.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            while running.withLock({ $0 }) {
                guard wanted.withLock({ $0 }) else {
                    // Woken by an upload here, or after a while in any case: photos imported by
                    // another process (collage import, a second server) are found too.
                    _ = signal.wait(timeout: .now() + Self.recheck)
                    wanted.withLock { $0 = true }
                    continue
                }
                let skipped = given.withLock { $0 }
                guard let photo = model.pendingPhotos(in: library).first(where: { !skipped.contains($0.id) }) else {
                    wanted.withLock { $0 = false }
                    continue
                }
                current.withLock { $0 = photo.id }
                // A photo that cannot be read or analysed is left for a lift to report.
                do throws(StickerError) {
                    try model.analyse(photo, in: library) { !running.withLock { $0 } }
                } catch {
                    // Stopped for a shutdown: the photo is analysed again on the next start.
                    if case .image(.cancelled) = error {
                        current.withLock { $0 = nil }
                        break
                    }
                    try? library.storeFocus(.noSubject, photoID: photo.id, model: model.focusKey)
                }
                if model.needsAnalysis(photo, in: library) {
                    given.withLock { _ = $0.insert(photo.id) }
                }
                current.withLock { $0 = nil }
            }
            finished.signal()
        }
    }

    /// New photos arrived: look for them.
    public func wake() {
        wanted.withLock { $0 = true }
        signal.signal()
    }

    /// Stops after the photo under way, and waits for it (at most 30 seconds).
    public func stop() {
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        signal.signal()
        guard wasRunning, started.withLock({ $0 }) else { return }
        _ = finished.wait(timeout: .now() + 30)
    }

    /// Whether `photo` is ready to lift, has no subject, or waits.
    public func readiness(of photo: PhotoRecord) -> SubjectReadiness { model.readiness(of: photo, in: library) }
}
