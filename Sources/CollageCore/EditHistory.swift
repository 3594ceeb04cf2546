/// Undo and redo over a collage, as snapshots: each step keeps the whole document before it, so
/// undoing any sequence of edits returns exactly the document it started from.
public struct EditHistory: Sendable {
    /// The document as it stands.
    public private(set) var current: Collage
    /// How many steps can be undone at most; older steps are forgotten first.
    public let limit: Int
    private var undoStack: [Collage] = []
    private var redoStack: [Collage] = []

    /// A history starting at `document`, remembering up to `limit` steps (at least one).
    public init(_ document: Collage, limit: Int = 100) {
        self.current = document
        self.limit = max(1, limit)
    }

    /// Whether there is a step to undo.
    public var canUndo: Bool { !undoStack.isEmpty }
    /// Whether there is an undone step to redo.
    public var canRedo: Bool { !redoStack.isEmpty }
    /// How many steps can be undone.
    public var undoCount: Int { undoStack.count }

    /// Applies `edit`, making it undoable and clearing the redo steps. An edit that is refused, or
    /// that changes nothing, leaves the history as it was.
    @discardableResult
    public mutating func apply(_ edit: Edit) throws(EditError) -> Collage {
        let next = try current.applying(edit)
        guard next != current else { return current }
        undoStack.append(current)
        if undoStack.count > limit { undoStack.removeFirst(undoStack.count - limit) }
        redoStack.removeAll()
        current = next
        return current
    }

    /// Steps back one edit; returns `nil` when there is nothing to undo.
    @discardableResult
    public mutating func undo() -> Collage? {
        guard let previous = undoStack.popLast() else { return nil }
        redoStack.append(current)
        current = previous
        return current
    }

    /// Steps forward one undone edit; returns `nil` when there is nothing to redo.
    @discardableResult
    public mutating func redo() -> Collage? {
        guard let next = redoStack.popLast() else { return nil }
        undoStack.append(current)
        current = next
        return current
    }
}
