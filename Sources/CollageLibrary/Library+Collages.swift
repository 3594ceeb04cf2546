import CollageCore
import Foundation

extension Library {
    /// Makes a collage following `templateID` on a canvas of `aspect`, filled with photos.
    /// - Parameters:
    ///   - photoIDs: photo ids (or unique prefixes) in slot order.
    ///   - finishing: a last change made before anything is stored (laying the photos out for
    ///     their shapes), so the new collage is stored once, finished, or not at all.
    public func createCollage(
        title: String, templateID: String?, aspect: AspectRatio, photoIDs: [String] = [],
        finishing: (Collage) throws(LibraryError) -> Collage = { $0 }
    ) throws(LibraryError) -> StoredCollage {
        let photos = try photoIDs.map { id throws(LibraryError) in try photo(id) }
        let date = now()
        var collage = Collage(
            id: Self.newID(), title: "Collage", created: date, canvas: aspect.canvasSize(), templateID: templateID)
        do throws(EditError) {
            if let templateID { collage = try collage.applying(.applyTemplate(id: templateID)) }
            collage = try collage.applying(.rename(title: title))
            for (index, photo) in photos.enumerated() {
                collage = try collage.applying(.addItem(id: "i\(index + 1)", content: .photo(photo.id), frame: nil))
            }
        } catch {
            throw .edit(error)
        }
        collage = try finishing(collage)
        let issues = CollageDocument.issues(in: collage)
        guard issues.isEmpty else { throw .invalidCollage(issues) }
        return try database.write { connection throws(LibraryError) in
            try Self.insert(collage, version: 1, into: connection)
            return StoredCollage(collage: collage, version: 1)
        }
    }

    /// Every collage, most recently changed first, with item counts.
    public func collages() throws(LibraryError) -> [CollageSummary] {
        try database.read { connection throws(LibraryError) in
            try connection.query(
                """
                SELECT c.id, c.title, c.created_at, c.updated_at, c.template_id, c.version,
                    (SELECT COUNT(*) FROM items i WHERE i.collage_id = c.id) AS item_count,
                    c.arrangement IS NOT NULL AS arranged
                FROM collages c ORDER BY c.updated_at DESC, c.created_at DESC, c.id
                """
            ) { row throws(LibraryError) in
                var summary = CollageSummary(
                    id: try row.text("id"), title: try row.text("title"), created: try row.date("created_at"),
                    updated: try row.date("updated_at"), itemCount: try row.int("item_count"),
                    templateID: try row.optionalText("template_id"), version: try row.int("version"))
                summary.isArranged = try row.int("arranged") != 0
                return summary
            }
        }
    }

    /// The collage with `id`, or with the only id starting with `id`.
    public func collage(_ id: String) throws(LibraryError) -> StoredCollage {
        try database.read { connection throws(LibraryError) in
            let resolved = try resolveCollageID(id, connection)
            return try Self.load(resolved, from: connection)
        }
    }

    /// The collage as a change to it starts from, read as ``collage(_:)`` reads it, or the one
    /// this process last saved or read this way while the row still has its version and time:
    /// an editor's stream of edits then reads one short row instead of the collage and its
    /// items. Every change Collage saves, a repair's included, gives a new version and time. A
    /// row altered by hand while the library is open (or damaged on disk) is not seen here,
    /// only by the next ordinary read; the change is written only if the collage row still has
    /// this version and time, and is checked whole as every change is.
    public func collageToChange(_ id: String) throws(LibraryError) -> StoredCollage {
        let recent = recentCollages[id]
        let stored = try database.read { connection throws(LibraryError) in
            if let recent, try Self.isUnchanged(recent, in: connection) { return recent }
            let resolved = try resolveCollageID(id, connection)
            return try Self.load(resolved, from: connection)
        }
        recentCollages.keep(stored)
        return stored
    }

    /// Applies edits to a collage in one transaction and bumps its version.
    /// - Parameters:
    ///   - expectedVersion: the version the caller last saw; when given and not current,
    ///     nothing is applied and ``LibraryError/staleVersion(collage:expected:current:)`` is thrown.
    ///   - base: the collage as the caller just read it, if it did. The new document is then
    ///     made, checked and its history step encoded before the write begins, so other writers
    ///     wait only for the rows to be saved; when the stored collage has moved on meanwhile,
    ///     the edits are applied to it instead, as without a base.
    @discardableResult
    public func apply(
        _ edits: [Edit], to id: String, expectedVersion: Int? = nil, base: StoredCollage? = nil
    ) throws(LibraryError)
        -> StoredCollage
    {
        let prepared = base.flatMap { $0.collage.id == id ? PreparedChange(applying: edits, to: $0) : nil }
        return try update(id, expectedVersion: expectedVersion, prepared: prepared) {
            stored, _ throws(LibraryError) in
            do throws(EditError) {
                return try stored.applying(edits)
            } catch {
                throw LibraryError.edit(error)
            }
        }
    }

    /// The collage as `edits` would leave it, checked as a saved change is, without saving
    /// anything: how the editor lets a person try a layout before deciding. The version is the
    /// stored one, unchanged.
    public func preview(_ edits: [Edit], of id: String) throws(LibraryError) -> StoredCollage {
        let stored = try collage(id)
        let next: Collage
        do throws(EditError) {
            next = try stored.collage.applying(edits)
        } catch {
            throw .edit(error)
        }
        let issues = CollageDocument.issues(in: next)
        guard issues.isEmpty else { throw .invalidCollage(issues) }
        return StoredCollage(collage: next, version: stored.version)
    }

    /// Replaces a collage's whole document (undo and redo send back an earlier one), at a version.
    /// The id, creation date and library references are the stored collage's; the rest is `document`'s.
    @discardableResult
    public func replace(
        _ id: String, with document: Collage, expectedVersion: Int
    ) throws(LibraryError)
        -> StoredCollage
    {
        try update(id, expectedVersion: expectedVersion) { stored, _ in
            var next = document
            next.id = stored.id
            next.created = stored.created
            return next
        }
    }

    /// A change made from a collage as read before its write began: the new document (already
    /// checked) and the history step of the old one, ready to save. Only a change that would
    /// save is prepared; one refused, or one that changes nothing, goes the ordinary way, which
    /// gives the same answer from the stored collage.
    struct PreparedChange {
        let base: StoredCollage
        let next: Collage
        let historyDocument: String

        init?(applying edits: [Edit], to base: StoredCollage) {
            guard let next = try? base.collage.applying(edits), next != base.collage,
                CollageDocument.issues(in: next).isEmpty
            else { return nil }
            self.base = base
            self.next = next
            historyDocument = Library.historyDocument(of: base.collage)
        }
    }

    /// One change to a stored collage, in one transaction: check the version, make the new
    /// document, and save it with the version bumped (unless nothing changed). A `prepared`
    /// change is saved as it is when the stored collage is still its base.
    func update(
        _ id: String, expectedVersion: Int?, history: HistoryStep = .record, prepared: PreparedChange? = nil,
        _ change: (Collage, Connection) throws(LibraryError) -> Collage
    ) throws(LibraryError) -> StoredCollage {
        let saved = try database.write { connection throws(LibraryError) in
            if let prepared, try Self.isUnchanged(prepared.base, in: connection) {
                let stored = prepared.base
                if let expectedVersion, expectedVersion != stored.version {
                    throw LibraryError.staleVersion(
                        collage: stored.collage.id, expected: expectedVersion, current: stored.version)
                }
                if try !Self.continuesRetitling(stored.collage, to: prepared.next, step: history, connection) {
                    try Self.remember(
                        stored.collage, encoded: prepared.historyDocument, step: history, connection: connection,
                        byteLimit: historyByteLimit)
                }
                return try save(prepared.next, over: stored, connection: connection)
            }
            let resolved = try resolveCollageID(id, connection)
            let stored = try Self.load(resolved, from: connection)
            if let expectedVersion, expectedVersion != stored.version {
                throw LibraryError.staleVersion(collage: resolved, expected: expectedVersion, current: stored.version)
            }
            let next = try change(stored.collage, connection)
            guard next != stored.collage else { return stored }
            if try !Self.continuesRetitling(stored.collage, to: next, step: history, connection) {
                try Self.remember(stored.collage, step: history, connection: connection, byteLimit: historyByteLimit)
            }
            // The one gate every stored change passes: nothing the renderer would refuse is kept.
            let issues = CollageDocument.issues(in: next)
            guard issues.isEmpty else { throw LibraryError.invalidCollage(issues) }
            return try save(next, over: stored, connection: connection)
        }
        // What was saved is what its rows now read back as (a test holds every kind of change
        // to that), so the next read of it needs only its version and time.
        recentCollages.keep(saved)
        return saved
    }

    /// Whether the stored collage is still `base`: every saved change, a repair's included,
    /// gives it a new version and time.
    static func isUnchanged(_ base: StoredCollage, in connection: Connection) throws(LibraryError) -> Bool {
        let rows = try connection.query(
            "SELECT version, updated_at FROM collages WHERE id = ?", [base.collage.id]
        ) { row throws(LibraryError) in (try row.int("version"), try row.date("updated_at")) }
        guard let (version, updated) = rows.first else { return false }
        return version == base.version
            && abs(updated.timeIntervalSince(base.collage.updated)) < 0.000_5
    }

    /// Saves `next` over `stored` with the version bumped, writing only the rows that changed.
    private func save(
        _ next: Collage, over stored: StoredCollage, connection: Connection
    ) throws(LibraryError)
        -> StoredCollage
    {
        var next = next
        next.updated = now().roundedToMilliseconds
        // A damaged row can hold any number: one past what a library counts to is refused
        // with the row named, never added to (which would trap at 2⁶³ − 1).
        guard Limits.version.contains(stored.version), stored.version < Limits.version.upperBound else {
            throw LibraryError.invalid(
                "collages row \"\(stored.collage.id)\": its version \(stored.version) is outside 1…2^53 (the library "
                    + "is damaged); run 'collage doctor' to see what is wrong")
        }
        let version = stored.version + 1
        try Self.rewrite(next, over: stored.collage, version: version, in: connection)
        return StoredCollage(collage: next, version: version)
    }

    /// Renames a collage.
    @discardableResult
    public func rename(
        _ id: String, to title: String, expectedVersion: Int? = nil
    ) throws(LibraryError)
        -> StoredCollage
    {
        try apply([.rename(title: title)], to: id, expectedVersion: expectedVersion)
    }

    /// Copies a collage under a new id, titled "… copy".
    public func duplicate(_ id: String) throws(LibraryError) -> StoredCollage {
        try database.write { connection throws(LibraryError) in
            let resolved = try resolveCollageID(id, connection)
            let original = try Self.load(resolved, from: connection)
            var copy = original.collage
            copy.id = Self.newID()
            let suffix = " copy"
            copy.title = String(original.collage.title.prefix(EditRules.maximumTitleLength - suffix.count)) + suffix
            copy.created = now().roundedToMilliseconds
            copy.updated = copy.created
            try Self.insert(copy, version: 1, into: connection)
            return StoredCollage(collage: copy, version: 1)
        }
    }

    /// Deletes a collage and its items. Photos stay until `cleanUp()` finds them unused.
    public func deleteCollage(_ id: String) throws(LibraryError) {
        let deleted = try database.write { connection throws(LibraryError) -> String in
            let resolved = try resolveCollageID(id, connection)
            try connection.run("DELETE FROM collages WHERE id = ?", [resolved])
            try connection.run("DELETE FROM collage_history WHERE collage_id = ?", [resolved])
            recentCollages.forget(resolved)
            return resolved
        }
        removeCollageThumbnails(of: deleted)
    }

    // MARK: - Rows

    /// Ten lowercase letters and digits: short enough to type, ample for one person's library.
    static func newID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    private func resolveCollageID(_ id: String, _ connection: Connection) throws(LibraryError) -> String {
        var matches = try connection.query("SELECT id FROM collages WHERE id = ?", [id]) {
            row throws(LibraryError) in try row.text("id")
        }
        if matches.isEmpty, id.count >= 4 {
            matches = try connection.query(
                "SELECT id FROM collages WHERE substr(id, 1, ?) = ? LIMIT 2", [id.count, id]
            ) { row throws(LibraryError) in try row.text("id") }
        }
        guard matches.count == 1, let only = matches.first else {
            throw matches.isEmpty
                ? .unknownCollage(id) : .invalid("\"\(id)\" matches more than one collage; give more of its id")
        }
        return only
    }

    static func insert(_ collage: Collage, version: Int, into connection: Connection) throws(LibraryError) {
        try connection.run(
            """
            INSERT INTO collages (id, title, created_at, updated_at, canvas_width, canvas_height, background,
                spacing, padding, corner_radius, template_id, version, arrangement)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, collageColumns(of: collage, version: version))
        for (z, item) in collage.items.enumerated() {
            try insert(item, z: z, of: collage.id, into: connection)
        }
    }

    /// Writes `collage` over its rows as they hold `old`: the collage row is updated in place,
    /// and of the items only those added, changed, moved in z-order or removed are written. An
    /// edit touches one or two rows rather than rewriting every item and index.
    static func rewrite(
        _ collage: Collage, over old: Collage, version: Int, in connection: Connection
    )
        throws(LibraryError)
    {
        let changed = try connection.run(
            """
            UPDATE collages SET title = ?2, created_at = ?3, updated_at = ?4, canvas_width = ?5, canvas_height = ?6,
                background = ?7, spacing = ?8, padding = ?9, corner_radius = ?10, template_id = ?11, version = ?12,
                arrangement = ?13 WHERE id = ?1
            """, collageColumns(of: collage, version: version))
        guard changed == 1 else { throw LibraryError.unknownCollage(collage.id) }
        // The diff trusts that the rows hold `old` at z = 0…n−1. A repair that set items aside
        // leaves gaps, and ids equal to Swift but not to SQLite (two spellings of "é") match
        // no row: then every item is written again.
        let numbered = try connection.scalar(
            """
            SELECT COUNT(*) = ? AND COUNT(DISTINCT z) = COUNT(*) AND COALESCE(MIN(z), 0) = 0
                AND COALESCE(MAX(z), -1) = COUNT(*) - 1 FROM items WHERE collage_id = ?
            """, [old.items.count, collage.id])
        if numbered == .integer(1), try writeChangedItems(of: collage, over: old, in: connection) { return }
        try connection.run("DELETE FROM items WHERE collage_id = ?", [collage.id])
        for (z, item) in collage.items.enumerated() {
            try insert(item, z: z, of: collage.id, into: connection)
        }
    }

    /// Writes the items that differ from `old`; `false` when a row was not where `old` puts it.
    private static func writeChangedItems(
        of collage: Collage, over old: Collage, in connection: Connection
    )
        throws(LibraryError) -> Bool
    {
        var before: [String: (z: Int, item: CollageItem)] = [:]
        for (z, item) in old.items.enumerated() { before[item.id] = (z, item) }
        for (z, item) in collage.items.enumerated() {
            guard let previous = before.removeValue(forKey: item.id) else {
                try insert(item, z: z, of: collage.id, into: connection)
                continue
            }
            guard previous.z != z || previous.item != item else { continue }
            let changed = try connection.run(
                """
                UPDATE items SET z = ?3, kind = ?4, ref = ?5, x = ?6, y = ?7, width = ?8, height = ?9, rotation = ?10,
                    crop_x = ?11, crop_y = ?12, crop_zoom = ?13, slot = ?14, outline = ?15, shadow = ?16, text = ?17,
                    effect = ?18, look = ?19 WHERE collage_id = ?1 AND id = ?2
                """, itemColumns(of: item, z: z, in: collage.id))
            guard changed == 1 else { return false }
        }
        for id in before.keys {
            let changed = try connection.run(
                "DELETE FROM items WHERE collage_id = ? AND id = ?", [collage.id, id])
            guard changed == 1 else { return false }
        }
        return true
    }

    /// The collage row's columns, in the order the statements above name them.
    private static func collageColumns(of collage: Collage, version: Int) -> [any SQLBindable] {
        [
            collage.id, collage.title, collage.created.timeIntervalSince1970,
            collage.updated.timeIntervalSince1970, collage.canvas.width, collage.canvas.height,
            collage.style.background.description, collage.style.spacing, collage.style.padding,
            collage.style.cornerRadius, collage.templateID, version,
            collage.arrangement.map { CollageDocument.jsonValue(of: $0).serialized(pretty: false) },
        ]
    }

    private static func insert(
        _ item: CollageItem, z: Int, of collageID: String, into connection: Connection
    )
        throws(LibraryError)
    {
        try connection.run(
            """
            INSERT INTO items (collage_id, id, z, kind, ref, x, y, width, height, rotation, crop_x, crop_y,
                crop_zoom, slot, outline, shadow, text, effect, look)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, itemColumns(of: item, z: z, in: collageID))
    }

    /// An item row's columns, in the order the statements above name them.
    private static func itemColumns(of item: CollageItem, z: Int, in collageID: String) -> [any SQLBindable] {
        [
            collageID, item.id, z, item.content.kind, item.content.reference ?? "", item.frame.x,
            item.frame.y, item.frame.width, item.frame.height, item.rotation.degrees, item.crop?.focus.x,
            item.crop?.focus.y, item.crop?.zoom, item.slot, item.stickerStyle?.outlineWidth,
            item.stickerStyle?.shadow,
            item.content.textBlock.map { CollageDocument.jsonValue(of: $0).serialized(pretty: false) },
            item.stickerStyle?.effect?.rawValue,
            item.look.isPlain ? nil : CollageDocument.jsonValue(of: item.look).serialized(pretty: false),
        ]
    }

    /// A text item's block as the column keeps it. One that does not read back (edited by hand,
    /// say) keeps the collage openable: its words are kept if they can be, in the default look.
    static func textBlock(from text: String) -> TextBlock {
        guard let value = try? JSONValue.parse(Data(text.utf8)) else { return TextBlock(text: "?") }
        if let block = try? CollageDocument.textBlock(from: value) { return block }
        if case .object(let members) = value, case .string(let words)? = members["text"],
            TextBlock.problem(inText: words) == nil
        {
            return TextBlock(text: words)
        }
        return TextBlock(text: "?")
    }

    /// An arrangement as the column keeps it; one that does not read back is dropped (the frames
    /// it made stay), never a reason the collage cannot open.
    static func arrangement(from text: String) -> Arrangement? {
        guard let value = try? JSONValue.parse(Data(text.utf8)) else { return nil }
        return CollageDocument.arrangement(from: value)
    }

    static func load(_ id: String, from connection: Connection) throws(LibraryError) -> StoredCollage {
        let rows = try connection.query(
            """
            SELECT id, title, created_at, updated_at, canvas_width, canvas_height, background, spacing, padding,
                corner_radius, template_id, version, arrangement FROM collages WHERE id = ?
            """, [id]
        ) { row throws(LibraryError) -> (Collage, Int) in
            let style = Style(
                background: (try? Background(parsing: try row.text("background"))) ?? .color(.white),
                spacing: try row.double("spacing"),
                padding: try row.double("padding"), cornerRadius: try row.double("corner_radius"))
            let collage = Collage(
                id: try row.text("id"), title: try row.text("title"), created: try row.date("created_at"),
                updated: try row.date("updated_at"),
                canvas: Size(width: try row.double("canvas_width"), height: try row.double("canvas_height")),
                style: style, templateID: try row.optionalText("template_id"),
                arrangement: try row.optionalText("arrangement").flatMap(Self.arrangement(from:)))
            return (collage, try row.int("version"))
        }
        guard let first = rows.first else {
            throw LibraryError.unknownCollage(id)
        }
        var collage = first.0
        let version = first.1
        collage.items = try connection.query(
            """
            SELECT id, kind, ref, x, y, width, height, rotation, crop_x, crop_y, crop_zoom, slot, outline, shadow,
                text, effect, look FROM items WHERE collage_id = ? ORDER BY z
            """, [id]
        ) { row throws(LibraryError) in
            let reference = try row.text("ref")
            let content: ItemContent
            switch try row.text("kind") {
            case "sticker": content = .sticker(reference)
            case "text": content = .text(Self.textBlock(from: try row.optionalText("text") ?? ""))
            default: content = .photo(reference)
            }
            var crop: Crop?
            if let x = try row.optionalDouble("crop_x"), let y = try row.optionalDouble("crop_y"),
                let zoom = try row.optionalDouble("crop_zoom")
            {
                crop = Crop(focus: Point(x: x, y: y), zoom: zoom)
            }
            var stickerStyle: StickerStyle?
            if let outline = try row.optionalDouble("outline") {
                // An effect this build does not know (written by a newer one) is left off, not an error.
                stickerStyle = StickerStyle(
                    outlineWidth: outline, shadow: (try row.optionalInt("shadow") ?? 0) != 0,
                    effect: try row.optionalText("effect").flatMap(StickerEffect.init(rawValue:)))
            }
            // A look that does not read back, or does not fit the item, is drawn plain: the
            // collage still opens (and the next save writes it plain).
            var look = ItemLook.plain
            if let text = try row.optionalText("look"), let value = try? JSONValue.parse(Data(text.utf8)),
                let read = CollageDocument.look(from: value), read.problem(for: content) == nil
            {
                look = read
            }
            // A slot out of range (a damaged cell, which doctor names) is as good as none.
            let slot = try row.optionalInt("slot").flatMap { (0...1_000).contains($0) ? $0 : nil }
            return CollageItem(
                id: try row.text("id"), content: content,
                frame: Rect(
                    x: try row.double("x"), y: try row.double("y"), width: try row.double("width"),
                    height: try row.double("height")),
                rotation: Angle(degrees: try row.double("rotation")), crop: crop, slot: slot,
                stickerStyle: stickerStyle, look: look)
        }
        // A hero whose item is gone (removed by a repair) is forgotten: the collage still opens
        // and saves, laid out as it is.
        if let hero = collage.arrangement?.hero, collage.item(hero) == nil { collage.arrangement?.hero = nil }
        return StoredCollage(collage: collage, version: version)
    }
}
