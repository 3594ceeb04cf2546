import CVips
import Synchronization

/// Stops a render from another thread: the server cancels an export whose client has gone.
///
/// Cancelling before the render starts makes it refuse to start; cancelling while it decodes
/// or writes sets libvips' kill flag on every image being computed, so each thread computing
/// one stops at its next tile and the render fails with ``RenderError/cancelled``.
public final class RenderCancellation: Sendable {
    private struct State {
        var isCancelled = false
        var running: [ObjectIdentifier: VipsImage] = [:]
    }

    private let state = Mutex(State())

    /// A cancellation not yet cancelled.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Stops the render; safe to call from any thread, more than once.
    public func cancel() {
        state.withLock { state in
            state.isCancelled = true
            for image in state.running.values { cvips_set_kill(image.handle, 1) }
        }
    }

    /// Registers an image being computed (a photo decoded, the collage written; several at
    /// once), or throws when the render was cancelled already.
    func begin(_ image: VipsImage) throws(RenderError) {
        let cancelled = state.withLock { state in
            if !state.isCancelled { state.running[ObjectIdentifier(image)] = image }
            return state.isCancelled
        }
        if cancelled { throw .cancelled }
    }

    /// Forgets the image once it is computed (or failed).
    func end(_ image: VipsImage) { state.withLock { _ = $0.running.removeValue(forKey: ObjectIdentifier(image)) } }

    /// Throws when cancelled: checked between the steps of a render.
    func check() throws(RenderError) {
        if isCancelled { throw .cancelled }
    }
}
