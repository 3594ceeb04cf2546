import CollageCore
import Foundation

/// What every cell of the library may hold: the one description `collage doctor` checks the
/// whole file against, and that reads check the numbers they compute with, so a cell damaged
/// by hand, by another program or by a disk (text where a number belongs, a NULL, 2⁶³−1) is
/// named with its table, row and column and never reaches arithmetic that would trap.
enum CellRules {
    /// What one column holds.
    enum Kind: Sendable {
        /// Text.
        case text
        /// A whole number in the range.
        case integer(ClosedRange<Int64>)
        /// A finite number (whole or not); the document rules judge its size.
        case number
    }

    /// One column's rule.
    struct Column: Sendable {
        let name: String
        let kind: Kind
        let nullable: Bool

        /// The SQL condition that holds for every good value of the column.
        var validSQL: String {
            let quoted = "\"\(name)\""
            let value: String
            switch kind {
            case .text:
                value = "typeof(\(quoted)) = 'text'"
            case .integer(let range):
                value =
                    "(typeof(\(quoted)) = 'integer' AND \(quoted) BETWEEN \(range.lowerBound) AND \(range.upperBound))"
            case .number:
                // ±infinity is stored as a REAL too; NaN cannot be (SQLite keeps it as NULL).
                value = "(typeof(\(quoted)) IN ('integer', 'real') AND abs(\(quoted)) <= 1.7976931348623157e308)"
            }
            return nullable ? "(\(quoted) IS NULL OR \(value))" : value
        }

        /// A value the column always accepts, as SQL: for a row that cannot be set aside.
        var harmlessValue: String {
            if nullable { return "NULL" }
            switch kind {
            case .text: return "''"
            case .integer(let range): return "\(max(range.lowerBound, min(range.upperBound, 1)))"
            case .number: return "0"
            }
        }

        /// "a whole number from 1 to 100000": what the column should hold, for messages.
        var expected: String {
            let base: String
            switch kind {
            case .text: base = "text"
            case .integer(let range): base = "a whole number from \(range.lowerBound) to \(range.upperBound)"
            case .number: base = "a finite number"
            }
            return nullable ? "\(base) or nothing" : base
        }
    }

    /// One table's rules, and the columns that name one of its rows.
    struct Table: Sendable {
        let name: String
        let key: [String]
        let columns: [Column]
    }

    /// The longest side a stored photo may have (libvips' limit on one dimension).
    static let photoSide: ClosedRange<Int64> = 1...10_000_000
    /// Versions and positions: every whole number a JSON double holds exactly.
    static let counter: ClosedRange<Int64> = 0...(1 << 53)
    /// A byte count.
    static let bytes: ClosedRange<Int64> = 0...(1 << 53)
    /// A flag stored as a number.
    static let flag: ClosedRange<Int64> = 0...1
    /// Where a sticker lies in its photo (an outline may reach past the photo's top-left).
    static let stickerOrigin = Int64(PixelPoint.plausible.lowerBound)...Int64(PixelPoint.plausible.upperBound)

    private static func text(_ names: String..., nullable: Bool = false) -> [Column] {
        names.map { Column(name: $0, kind: .text, nullable: nullable) }
    }

    private static func number(_ names: String..., nullable: Bool = false) -> [Column] {
        names.map { Column(name: $0, kind: .number, nullable: nullable) }
    }

    private static func integer(_ name: String, _ range: ClosedRange<Int64>, nullable: Bool = false) -> Column {
        Column(name: name, kind: .integer(range), nullable: nullable)
    }

    /// Every table of the current schema, every column.
    static let tables: [Table] = [
        Table(
            name: "photos", key: ["id"],
            columns: text("id", "original_name", "format", "extension") + number("imported_at") + [
                integer("width", photoSide), integer("height", photoSide), integer("byte_size", bytes),
            ]),
        Table(
            name: "collages", key: ["id"],
            columns: text("id", "title", "background")
                + number(
                    "created_at", "updated_at", "canvas_width", "canvas_height", "spacing", "padding", "corner_radius")
                + text("template_id", "arrangement", nullable: true) + [integer("version", 1...(1 << 53))]),
        Table(
            name: "items", key: ["collage_id", "id"],
            columns: text("collage_id", "id", "kind", "ref") + number("x", "y", "width", "height", "rotation")
                + number("crop_x", "crop_y", "crop_zoom", "outline", nullable: true)
                + text("text", "effect", "look", nullable: true) + [
                    integer("z", counter), integer("slot", 0...1_000, nullable: true),
                    integer("shadow", flag, nullable: true),
                ]),
        Table(name: "settings", key: ["key"], columns: text("key", "value")),
        Table(
            name: "stickers", key: ["id"],
            columns: text("id", "photo_id", "selection") + text("effect", nullable: true)
                + number("outline", "created_at") + [
                    integer("shadow", flag), integer("width", photoSide), integer("height", photoSide),
                    integer("origin_x", stickerOrigin, nullable: true),
                    integer("origin_y", stickerOrigin, nullable: true),
                ]),
        Table(
            name: "photo_subjects", key: ["photo_id", "model"],
            columns: text("photo_id", "model") + number("focus_x", "focus_y", nullable: true)),
        Table(
            name: "collage_history", key: ["collage_id", "stack", "position"],
            columns: text("collage_id", "stack", "document") + [integer("position", counter)]),
        // A device whose row is set aside is no longer paired: it pairs again.
        Table(
            name: "devices", key: ["id"],
            columns: text("id", "name", "secret_hash") + number("paired_at", "last_seen")),
    ]
}

/// A cell that holds what its column must not: where it is and what it holds.
public struct DamagedCell: Sendable, Equatable, CustomStringConvertible {
    /// The table.
    public let table: String
    /// SQLite's number for the row, which a repair uses when the key itself is damaged.
    let rowNumber: Int64
    /// The row, as its key columns name it (`id = "3f…"`), or its row number when they are damaged too.
    public let row: String
    /// The column.
    public let column: String
    /// What the cell holds, as SQLite shows it (`'abc'`, `NULL`, `9223372036854775807`).
    public let found: String
    /// What the column should hold.
    public let expected: String

    /// "photos row id = "3f…": width holds 'abc', not a whole number from 1 to 10000000".
    public var description: String { "\(table) row \(row): \(column) holds \(found), not \(expected)" }
}

extension Connection {
    /// Every damaged cell of every table there is, in table and row order.
    func damagedCells() throws(LibraryError) -> [DamagedCell] {
        let present = Set(
            try query("SELECT name FROM sqlite_master WHERE type = 'table'") { row throws(LibraryError) in
                try row.text("name")
            })
        var damaged: [DamagedCell] = []
        for table in CellRules.tables where present.contains(table.name) {
            let keys = table.key.map { "quote(\"\($0)\")" }.joined(separator: " || char(31) || ")
            for column in table.columns {
                let quoted = "\"\(column.name)\""
                damaged += try query(
                    """
                    SELECT rowid AS row_number, \(keys) AS row_key, substr(quote(\(quoted)), 1, 60) AS found
                    FROM "\(table.name)" WHERE NOT \(column.validSQL) ORDER BY rowid
                    """
                ) { row throws(LibraryError) in
                    DamagedCell(
                        table: table.name, rowNumber: Int64((try? row.int("row_number")) ?? 0),
                        row: Self.rowName(row, table: table), column: column.name,
                        found: (try? row.text("found")) ?? "?", expected: column.expected)
                }
            }
        }
        return damaged
    }

    /// `id = '3f…'`, or `number 12` when the key itself cannot be shown.
    private static func rowName(_ row: Row, table: CellRules.Table) -> String {
        if let key = try? row.text("row_key") {
            return zip(table.key, key.components(separatedBy: "\u{1F}")).map { "\($0) = \($1)" }.joined(separator: ", ")
        }
        return "number \((try? row.int("row_number")) ?? 0)"
    }
}
