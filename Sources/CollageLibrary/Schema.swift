/// The library's schema, as migrations applied in order. `PRAGMA user_version` records how many
/// have run. A shipped migration is never edited: changes are new migrations at the end.
enum Schema {
    struct Migration {
        let name: String
        let sql: String
    }

    static let migrations: [Migration] = [
        Migration(
            name: "v1: photos, collages, items, settings",
            sql: """
                CREATE TABLE photos (
                    id TEXT PRIMARY KEY,          -- SHA-256 of the file's bytes, hex
                    original_name TEXT NOT NULL,
                    format TEXT NOT NULL,         -- jpeg, png, heif, webp, tiff, gif
                    extension TEXT NOT NULL,
                    width INTEGER NOT NULL,       -- after EXIF orientation
                    height INTEGER NOT NULL,
                    byte_size INTEGER NOT NULL,
                    imported_at REAL NOT NULL
                );
                CREATE TABLE collages (
                    id TEXT PRIMARY KEY,
                    title TEXT NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL,
                    canvas_width REAL NOT NULL,
                    canvas_height REAL NOT NULL,
                    background TEXT NOT NULL,
                    spacing REAL NOT NULL,
                    padding REAL NOT NULL,
                    corner_radius REAL NOT NULL,
                    template_id TEXT,
                    version INTEGER NOT NULL DEFAULT 1
                );
                CREATE TABLE items (
                    collage_id TEXT NOT NULL REFERENCES collages(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    z INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('photo', 'sticker')),
                    ref TEXT NOT NULL,
                    x REAL NOT NULL, y REAL NOT NULL, width REAL NOT NULL, height REAL NOT NULL,
                    rotation REAL NOT NULL,
                    crop_x REAL, crop_y REAL, crop_zoom REAL,
                    slot INTEGER,
                    outline REAL, shadow INTEGER,
                    PRIMARY KEY (collage_id, id)
                );
                CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                """),
        Migration(
            name: "v2: index items by what they show, for gc and photo usage",
            sql: "CREATE INDEX items_by_ref ON items (kind, ref);"),
        Migration(
            name: "v3: stickers lifted from photos, and cached subject focal points",
            sql: """
                CREATE TABLE stickers (
                    id TEXT PRIMARY KEY,          -- hash of photo, model and parameters
                    photo_id TEXT NOT NULL REFERENCES photos(id),
                    selection TEXT NOT NULL,      -- all, instance:N or point:X,Y
                    outline REAL NOT NULL,
                    shadow INTEGER NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    created_at REAL NOT NULL
                );
                CREATE INDEX stickers_by_photo ON stickers (photo_id);
                CREATE TABLE photo_subjects (
                    photo_id TEXT NOT NULL REFERENCES photos(id) ON DELETE CASCADE,
                    model TEXT NOT NULL,          -- SHA-256 of the model file
                    focus_x REAL,                 -- NULL when the photo has no subject
                    focus_y REAL,
                    PRIMARY KEY (photo_id, model)
                );
                """),
        Migration(
            name: "v4: undo and redo history kept with each collage",
            sql: """
                CREATE TABLE collage_history (
                    collage_id TEXT NOT NULL,     -- no foreign key: a saved change replaces the collage row
                    stack TEXT NOT NULL CHECK (stack IN ('undo', 'redo')),
                    position INTEGER NOT NULL,    -- the top of a stack is its largest position
                    document TEXT NOT NULL,       -- the whole collage as CollageDocument JSON
                    PRIMARY KEY (collage_id, stack, position)
                );
                -- The photos each step shows, so gc keeps what an undo can bring back without
                -- reading every document.
                CREATE TABLE collage_history_refs (
                    collage_id TEXT NOT NULL,
                    stack TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    ref TEXT NOT NULL,
                    FOREIGN KEY (collage_id, stack, position)
                        REFERENCES collage_history (collage_id, stack, position) ON DELETE CASCADE
                );
                CREATE INDEX collage_history_refs_by_ref ON collage_history_refs (ref);
                CREATE INDEX collage_history_refs_by_step ON collage_history_refs (collage_id, stack, position);
                """),
        Migration(
            name: "v5: how a collage's photos were laid out for their shapes (seed, hero, crop)",
            sql: "ALTER TABLE collages ADD COLUMN arrangement TEXT; -- CollageDocument's arrangement JSON, or NULL"),
        // SQLite cannot widen a CHECK in place: the table is rebuilt, its rows copied as they are.
        Migration(
            name: "v6: text items (captions and titles), their words and look kept as JSON",
            sql: """
                CREATE TABLE items_v6 (
                    collage_id TEXT NOT NULL REFERENCES collages(id) ON DELETE CASCADE,
                    id TEXT NOT NULL,
                    z INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('photo', 'sticker', 'text')),
                    ref TEXT NOT NULL,            -- '' for text
                    x REAL NOT NULL, y REAL NOT NULL, width REAL NOT NULL, height REAL NOT NULL,
                    rotation REAL NOT NULL,
                    crop_x REAL, crop_y REAL, crop_zoom REAL,
                    slot INTEGER,
                    outline REAL, shadow INTEGER,
                    text TEXT,                    -- CollageDocument's text block JSON, for text items
                    PRIMARY KEY (collage_id, id),
                    CHECK ((kind = 'text') = (text IS NOT NULL))
                );
                INSERT INTO items_v6 (collage_id, id, z, kind, ref, x, y, width, height, rotation, crop_x, crop_y,
                    crop_zoom, slot, outline, shadow)
                    SELECT collage_id, id, z, kind, ref, x, y, width, height, rotation, crop_x, crop_y, crop_zoom,
                        slot, outline, shadow FROM items;
                DROP INDEX items_by_ref;
                DROP TABLE items;
                ALTER TABLE items_v6 RENAME TO items;
                CREATE INDEX items_by_ref ON items (kind, ref);
                """),
        Migration(
            name: "v7: a sticker item's effect (comic, puffy, shiny)",
            sql: "ALTER TABLE items ADD COLUMN effect TEXT; -- StickerEffect's raw value, or NULL"),
        Migration(
            name: "v8: rows with damaged cells, set aside by 'collage doctor --repair' rather than deleted",
            sql: """
                CREATE TABLE quarantine (
                    number INTEGER PRIMARY KEY,
                    table_name TEXT NOT NULL,
                    row TEXT NOT NULL,            -- the row's columns as a JSON object (BLOBs in hex)
                    file_id TEXT,                 -- a photo's or sticker's id: gc keeps its files
                    reason TEXT NOT NULL,
                    quarantined_at REAL NOT NULL
                );
                """),
        Migration(
            name: "v9: devices paired over the home network, each with its secret's hash",
            sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,           -- from the browser's User-Agent when it paired
                    secret_hash TEXT NOT NULL,    -- SHA-256 of the cookie's secret, hex: the secret is never stored
                    paired_at REAL NOT NULL,
                    last_seen REAL NOT NULL
                );
                """),
        Migration(
            name: "v10: an item's look (flip, opacity), kept as JSON so later looks need no new column",
            sql: "ALTER TABLE items ADD COLUMN look TEXT; -- CollageDocument's look JSON, or NULL for the item as it is"
        ),
        Migration(
            name: "v11: where a sticker lies in its photo, for the refine brush's Restore",
            sql: """
                ALTER TABLE stickers ADD COLUMN origin_x INTEGER; -- its top-left in the photo's pixels, or NULL: not recorded
                ALTER TABLE stickers ADD COLUMN origin_y INTEGER;
                """),
        Migration(
            name: "v12: the look drawn into a sticker's pixels, which the refine brush cannot take back",
            sql:
                "ALTER TABLE stickers ADD COLUMN effect TEXT; -- an effect's name (comic, …), or NULL: the photo's own pixels"
        ),
        // Four rows, their two indexes and a foreign key check for every edit, for a question asked
        // only by a repair: the steps that show a photo are found in their documents instead,
        // by its id (64 hex digits, which nothing else in a document spells).
        Migration(
            name: "v13: history steps no longer list their photos in a table of their own",
            sql: """
                DROP INDEX collage_history_refs_by_ref;
                DROP INDEX collage_history_refs_by_step;
                DROP TABLE collage_history_refs;
                """),
    ]

    static var currentVersion: Int { migrations.count }
}
