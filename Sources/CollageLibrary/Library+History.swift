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

    /// Brings back the collage as it was before its last change, as a new version (so every
    /// open editor sees it). The history lives in the library: it survives a restart and is
    /// the same for the command line and every browser tab.
    /// - Throws: ``LibraryError/staleVersion(collage:expected:current:)`` when `expectedVersion`
    ///   is not current; ``LibraryError/emptyHistory(collage:action:)`` when there is nothing to undo.
    @discardableResult
    public func undo(_ id: String, expectedVersion: Int? = nil) throws(LibraryError) -> StoredCollage {
        try travel(id, from: "undo", step: .undo, expectedVersion: expectedVersion)
    }

    /// Brings back the change the last undo took away. See ``undo(_:expectedVersion:)``.
    @discardableResult
    public func redo(_ id: String, expectedVersion: Int? = nil) throws(LibraryError) -> StoredCollage {
        try travel(id, from: "redo", step: .redo, expectedVersion: expectedVersion)
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

    private func travel(
        _ id: String, from stack: String, step: HistoryStep, expectedVersion: Int?
    ) throws(LibraryError) -> StoredCollage {
        try update(id, expectedVersion: expectedVersion, history: step) { current, connection throws(LibraryError) in
            guard let earlier = try Self.pop(stack, of: current.id, connection: connection) else {
                throw LibraryError.emptyHistory(collage: current.id, action: stack)
            }
            var restored = earlier
            restored.id = current.id
            restored.created = current.created
            return restored
        }
    }

    /// Takes the top document off a stack; `nil` when the stack is empty.
    private static func pop(_ stack: String, of id: String, connection: Connection) throws(LibraryError) -> Collage? {
        let rows = try connection.query(
            """
            SELECT position, document FROM collage_history WHERE collage_id = ? AND stack = ?
            ORDER BY position DESC LIMIT 1
            """, [id, stack]
        ) { row throws(LibraryError) in (try row.int("position"), try row.text("document")) }
        guard let (position, document) = rows.first else { return nil }
        try connection.run(
            "DELETE FROM collage_history WHERE collage_id = ? AND stack = ? AND position = ?", [id, stack, position])
        do {
            return try CollageDocument.decode(Data(document.utf8))
        } catch {
            throw LibraryError.invalid("a step in the history of collage \(id) is damaged (\(error.description))")
        }
    }

    /// Pushes `before` onto the stack a step calls for, and keeps the stacks to their rules.
    static func remember(_ before: Collage, step: HistoryStep, connection: Connection) throws(LibraryError) {
        let stack = step == .undo ? "redo" : "undo"
        if step == .record {
            try connection.run("DELETE FROM collage_history WHERE collage_id = ? AND stack = 'redo'", [before.id])
        }
        let document = String(decoding: CollageDocument.encode(before, pretty: false), as: UTF8.self)
        try connection.run(
            """
            INSERT INTO collage_history (collage_id, stack, position, document)
            VALUES (?, ?, (SELECT COALESCE(MAX(position), 0) + 1 FROM collage_history WHERE collage_id = ? AND stack = ?), ?)
            """, [before.id, stack, before.id, stack, document])
        try connection.run(
            """
            DELETE FROM collage_history WHERE collage_id = ? AND stack = ? AND position <= (
                SELECT MAX(position) FROM collage_history WHERE collage_id = ? AND stack = ?) - ?
            """, [before.id, stack, before.id, stack, historyLimit])
    }
}
