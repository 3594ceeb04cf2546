import CollageCore
import Foundation

/// What a saved change does to a collage's undo history.
enum HistoryStep {
    /// A new change: the document before it can be undone, and nothing undone can be redone.
    case record
    /// An undo: the document before it can be redone.
    case undo
    /// A redo: the document before it can be undone again; what else was undone stays redoable.
    case redo

    /// The stack the document before the change goes onto.
    var savesTo: String { self == .undo ? "redo" : "undo" }
    /// The stack an undo or redo takes its document from; it is also the action's name.
    var takesFrom: String { self == .redo ? "redo" : "undo" }
}

/// Whether a collage has steps to undo and redo.
public struct HistoryState: Sendable, Equatable {
    /// Whether an earlier document can be brought back.
    public let canUndo: Bool
    /// Whether an undone document can be brought back.
    public let canRedo: Bool
}

extension Library {
    /// How many steps each collage can undo; older steps are forgotten first.
    public static let historyLimit = 100

    /// How many bytes of earlier documents each collage's undo (and redo) history keeps at most,
    /// unless the library is opened with another; older steps are forgotten first.
    public static let defaultHistoryByteLimit = 8_000_000

    /// Brings back the collage as it was before its last change, as a new version (so every
    /// open editor sees it). The history lives in the library: it survives a restart and is
    /// the same for the command line and every browser tab.
    /// - Throws: ``LibraryError/staleVersion(collage:expected:current:)`` when `expectedVersion`
    ///   is not current; ``LibraryError/emptyHistory(collage:action:)`` when there is nothing to undo.
    @discardableResult
    public func undo(_ id: String, expectedVersion: Int? = nil) throws(LibraryError) -> StoredCollage {
        try travel(id, step: .undo, expectedVersion: expectedVersion)
    }

    /// Brings back the change the last undo took away. See ``undo(_:expectedVersion:)``.
    @discardableResult
    public func redo(_ id: String, expectedVersion: Int? = nil) throws(LibraryError) -> StoredCollage {
        try travel(id, step: .redo, expectedVersion: expectedVersion)
    }

    /// Whether the collage `id` (an exact id) has steps to undo and redo.
    public func historyState(of id: String) throws(LibraryError) -> HistoryState {
        try database.read { connection throws(LibraryError) in
            let stacks = try connection.query(
                "SELECT DISTINCT stack FROM collage_history WHERE collage_id = ?", [id]
            ) { row throws(LibraryError) in try row.text("stack") }
            return HistoryState(canUndo: stacks.contains("undo"), canRedo: stacks.contains("redo"))
        }
    }

    private func travel(_ id: String, step: HistoryStep, expectedVersion: Int?) throws(LibraryError) -> StoredCollage {
        let stack = step.takesFrom
        return try update(id, expectedVersion: expectedVersion, history: step) {
            current, connection throws(LibraryError) in
            // A step that no longer reads, or that today's rules refuse, is dropped rather than
            // left on top of the stack where it would block every undo after it.
            while let step = try Self.pop(stack, of: current.id, connection: connection) {
                guard var restored = step else { continue }
                restored.id = current.id
                restored.created = current.created
                if CollageDocument.issues(in: restored).isEmpty { return restored }
            }
            throw LibraryError.emptyHistory(collage: current.id, action: stack)
        }
    }

    /// Takes the top step off a stack: `nil` when the stack is empty, `.some(nil)` for a step
    /// whose document no longer reads.
    private static func pop(_ stack: String, of id: String, connection: Connection) throws(LibraryError) -> Collage?? {
        let rows = try connection.query(
            """
            SELECT position, document FROM collage_history WHERE collage_id = ? AND stack = ?
            ORDER BY position DESC LIMIT 1
            """, [id, stack]
        ) { row throws(LibraryError) in (try row.int("position", in: CellRules.counter), try row.text("document")) }
        guard let (position, document) = rows.first else { return nil }
        try connection.run(
            "DELETE FROM collage_history WHERE collage_id = ? AND stack = ? AND position = ?", [id, stack, position])
        return .some(try? CollageDocument.decode(Data(document.utf8)))
    }

    /// Whether a change only retitles a collage whose last undoable step did only that too, so
    /// that the two are one step: the editor saves a title at each pause in typing, and undo
    /// took it back a few letters at a time (each pause one of the hundred steps kept). The
    /// step before the first retitling stays; an undo in between (something to redo) ends it.
    static func continuesRetitling(
        _ before: Collage, to next: Collage, step: HistoryStep, _ connection: Connection
    ) throws(LibraryError) -> Bool {
        guard step == .record, next.title != before.title else { return false }
        var retitled = next
        retitled.title = before.title
        guard retitled == before else { return false }
        let redo = try connection.scalar(
            "SELECT COUNT(*) FROM collage_history WHERE collage_id = ? AND stack = 'redo'", [before.id])
        guard case .integer(0) = redo else { return false }
        let top = try connection.query(
            """
            SELECT document FROM collage_history WHERE collage_id = ? AND stack = 'undo'
            ORDER BY position DESC LIMIT 1
            """, [before.id]
        ) { row throws(LibraryError) in try row.text("document") }
        guard let document = top.first, var earlier = try? CollageDocument.decode(Data(document.utf8)),
            earlier.title != before.title
        else { return false }
        earlier.title = before.title
        earlier.updated = before.updated
        earlier.id = before.id
        earlier.created = before.created
        return earlier == before
    }

    /// A collage as a history step keeps it.
    static func historyDocument(of collage: Collage) -> String {
        String(decoding: CollageDocument.encode(collage, pretty: false), as: UTF8.self)
    }

    /// Pushes `before` onto the stack a step calls for, and keeps the stacks to their rules.
    /// - Parameter encoded: `before` as a document, when it was encoded ahead of the write.
    static func remember(
        _ before: Collage, encoded: String? = nil, step: HistoryStep, connection: Connection, byteLimit: Int
    ) throws(LibraryError) {
        let stack = step.savesTo
        if step == .record {
            try connection.run("DELETE FROM collage_history WHERE collage_id = ? AND stack = 'redo'", [before.id])
        }
        let document = encoded ?? historyDocument(of: before)
        let top = try connection.scalar(
            "SELECT COALESCE(MAX(position), 0) FROM collage_history WHERE collage_id = ? AND stack = ?",
            [before.id, stack])
        guard case .integer(let highest) = top else {
            throw connection.failure(
                SQLiteError(code: SQLiteError.corrupt, message: "the history's positions are not numbers", sql: nil))
        }
        // A damaged row can hold any number: refuse one past what a history counts to rather
        // than trap on adding to it.
        guard highest >= 0, highest < Int64(Limits.version.upperBound) else {
            throw LibraryError.invalid(
                "collage_history rows of \"\(before.id)\": position \(highest) is outside 0…2^53 (the library is "
                    + "damaged); run 'collage doctor' to see what is wrong")
        }
        let position = Int(highest) + 1
        try connection.run(
            "INSERT INTO collage_history (collage_id, stack, position, document) VALUES (?, ?, ?, ?)",
            [before.id, stack, position, document])
        try connection.run(
            """
            DELETE FROM collage_history WHERE collage_id = ? AND stack = ? AND position <= (
                SELECT MAX(position) FROM collage_history WHERE collage_id = ? AND stack = ?) - ?
            """, [before.id, stack, before.id, stack, historyLimit])
        // And by bytes: large documents (many texts, long ones) keep fewer steps, so a history
        // never grows the library by more than this a collage. The newest step always stays.
        // Adding up the kept documents reads every one of them, which was most of an edit's
        // time. So the sum runs after a large step (a 64th of the bound or more), after the
        // step that follows one (a large step kept alone as the newest must not stay with
        // more beside it), and after every 8th step; and it trims to 7/8 of the bound. The at
        // most 7 small steps added between sums (each under a 64th) then stay within it.
        let largeStep = byteLimit / 64
        if document.utf8.count < largeStep, position % trimInterval != 0 {
            let previous = try connection.scalar(
                """
                SELECT length(CAST(document AS BLOB)) FROM collage_history
                WHERE collage_id = ? AND stack = ? AND position = ?
                """, [before.id, stack, position - 1])
            guard case .integer(let bytes) = previous, bytes >= largeStep else { return }
        }
        try connection.run(
            """
            DELETE FROM collage_history WHERE collage_id = ? AND stack = ? AND position <= (
                SELECT MAX(position) FROM (
                    SELECT position, SUM(length(CAST(document AS BLOB))) OVER (ORDER BY position DESC) AS total
                    FROM collage_history WHERE collage_id = ? AND stack = ?)
                WHERE total > ? AND position < ?)
            """, [before.id, stack, before.id, stack, byteLimit - byteLimit / trimInterval, position])
    }

    /// How many small history steps go between two sums of the history's bytes.
    private static let trimInterval = 8
}
