import CollageCore
import CollageKit
import Foundation

/// `collage photos`.
enum PhotosCommand: Command {
    static let spec = CommandSpec(
        name: "photos", abstract: "List the library's photos, newest import first",
        usage: "[--library DIR] [--json]", options: [LibraryAccess.option, .flag("--json", "Print JSON")],
        discussion: """
            LIFT says whether a lift answers at once: "ready" when the photo's subjects were found
            ahead of time (by 'collage import' or the editor in the background), "no subject" when
            none was found, "-" while the photo waits its turn.
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let photos = try workspace.photos()
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    photos.map {
                        RecordJSON.adding(
                            [
                                "file": .string(workspace.originalFile(of: $0).path),
                                "subject": .string(subjectColumn(workspace.subjectsFound(photoID: $0.id), json: true)),
                            ], to: RecordJSON.photo($0))
                    }))
            return
        }
        guard !photos.isEmpty else {
            Output.print("No photos yet. Add some with 'collage import photo.jpg folder/ …'.")
            return
        }
        Output.print(
            Output.table(
                [["ID", "SIZE", "FORMAT", "IMPORTED", "LIFT", "NAME"]]
                    + photos.map {
                        [
                            String($0.id.prefix(12)), "\($0.width)×\($0.height)", $0.format, displayDate($0.importedAt),
                            subjectColumn(workspace.subjectsFound(photoID: $0.id), json: false), $0.originalName,
                        ]
                    }))
    }

    /// Whether a lift answers at once: "ready", "none" (no subject found) or "pending" ("-").
    static func subjectColumn(_ found: Bool?, json: Bool) -> String {
        switch found {
        case true?: "ready"
        case false?: json ? "none" : "no subject"
        case nil: json ? "pending" : "-"
        }
    }
}

/// `collage stickers`.
enum StickersCommand: Command {
    static let spec = CommandSpec(
        name: "stickers", abstract: "List the library's stickers, newest first",
        usage: "[--library DIR] [--json]", options: [LibraryAccess.option, .flag("--json", "Print JSON")],
        discussion: """
            Stickers are lifted by 'collage sticker PHOTO-ID' and by the editor. An id, or the
            first characters of one shown here, names the sticker to 'collage sheet' and
            'collage pack', and a collage places it as {"type": "sticker", "ref": ID}. LOOK is
            what was drawn into its pixels (an outline, a shadow, an effect); FROM is the photo it
            was lifted from, by the name it was imported under.
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let stickers = try workspace.stickers()
        let photoNames = Dictionary(
            try workspace.photos().map { ($0.id, $0.originalName) }, uniquingKeysWith: { first, _ in first })
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    stickers.map { sticker in
                        var extra: [String: JSONValue] = ["file": .string(workspace.stickerImage(of: sticker).path)]
                        if let name = photoNames[sticker.photoID] { extra["photoName"] = .string(name) }
                        return RecordJSON.adding(extra, to: RecordJSON.sticker(sticker))
                    }))
            return
        }
        guard !stickers.isEmpty else {
            Output.print(
                "No stickers yet. Lift one with 'collage sticker PHOTO-ID' (see 'collage photos'), or in the editor.")
            return
        }
        Output.print(
            Output.table(
                [["ID", "SIZE", "LOOK", "MADE", "FROM"]]
                    + stickers.map { sticker in
                        [
                            String(sticker.id.prefix(12)), "\(sticker.width)×\(sticker.height)", look(of: sticker),
                            displayDate(sticker.createdAt),
                            photoNames[sticker.photoID].map(Output.escaped)
                                ?? "photo \(sticker.photoID.prefix(12)) (removed)",
                        ]
                    }))
    }

    /// What was drawn into a sticker's pixels, in a word or three ("plain" when nothing was).
    static func look(of sticker: StickerRecord) -> String {
        var parts: [String] = []
        if sticker.outlineWidth > 0 { parts.append("outline \(Int(sticker.outlineWidth.rounded())) px") }
        if sticker.shadow { parts.append("shadow") }
        if let effect = sticker.drawnEffect { parts.append(effect) }
        return parts.isEmpty ? "plain" : parts.joined(separator: ", ")
    }
}

/// `collage gc`.
enum CleanUpCommand: Command {
    static let spec = CommandSpec(
        name: "gc", abstract: "Remove leftover files no record uses; say how much was freed",
        usage: "[--library DIR] [--dry-run] [--json]",
        options: [
            LibraryAccess.option, .flag("--dry-run", "Say what would be removed, and remove nothing"),
            .flag("--json", "Print JSON"),
        ],
        discussion: """
            Removes files that can be made again and that no record uses (thumbnails, previews and
            masks left by an import that was interrupted) and half-written files abandoned for
            over an hour. It never removes a photo: every photo you imported or uploaded stays in
            the library, whether or not a collage shows it yet. An original photo or a sticker's
            image that no record names (the library's database lost it, or an import was
            interrupted) is kept and counted: 'collage doctor --repair' puts the photos back.
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let dryRun = arguments.has("--dry-run")
        let report = try workspace.cleanUp(dryRun: dryRun)
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.cleanup(report))
        } else {
            if report.removedFiles == 0 {
                Output.print(
                    dryRun ? "Nothing would be removed. Every photo stays." : "Nothing to remove. Every photo stays.")
            } else {
                let freed = ByteCountFormatter.string(fromByteCount: Int64(report.freedBytes), countStyle: .file)
                let files = "\(report.removedFiles) leftover file\(report.removedFiles == 1 ? "" : "s")"
                Output.print(
                    dryRun
                        ? "Would remove \(files), freeing \(freed). Every photo stays."
                        : "Removed \(files), freeing \(freed). Every photo stays.")
            }
            if report.keptUnrecorded > 0 {
                let count = report.keptUnrecorded
                Output.print(
                    "Kept \(count) photo or sticker file\(count == 1 ? "" : "s") that no record in the library names: "
                        + "its database may have lost \(count == 1 ? "it" : "them"). 'collage doctor' lists the photos, and "
                        + "'collage doctor --repair' puts them back in the library.")
            }
        }
    }
}

/// `collage doctor`.
enum DoctorCommand: Command {
    static let spec = CommandSpec(
        name: "doctor",
        abstract:
            "Check the library: damaged cells, records whose files are missing, items showing them, "
            + "collages that cannot render",
        usage: "[--repair] [--library DIR] [--json]",
        options: [
            .flag(
                "--repair",
                "Set aside rows with damaged cells, remove records whose files are missing, set aside the items that show "
                    + "them, make a background that shows one white, put back photo files that have no record"
            ),
            LibraryAccess.option, .flag("--json", "Print JSON"),
        ],
        discussion: """
            Every cell of every table is checked against what its column may hold (text, a whole
            number in range, a finite number); each damaged one is named by table, row and column.
            Exits 0 when the library is healthy and 65 when something is wrong. With --repair, a
            damaged version starts again at 1; any other row with a damaged cell is set aside whole
            in the library's quarantine table (a collage with its items and history), where nothing
            reads it and nothing is lost; records whose files are missing are removed, the items
            that showed them set aside and a background that showed one made white (each such
            collage gets a new version); collages that break the document rules otherwise are
            listed for you to fix or delete, never changed. A photo file in the library that no
            record names (an import was interrupted, or the database lost its rows: emptied,
            replaced or rolled back) is reported, and --repair imports it again as a photo.
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let repair = arguments.has("--repair")
        let report = try workspace.checkHealth(repair: repair)
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.health(report))
        } else if report.isHealthy, report.repairs.isEmpty {
            Output.print("The library is healthy.")
        } else if report.isHealthy {
            for repair in report.repairs { Output.print("Repaired: \(Output.escaped(repair))") }
            Output.print("The library is healthy now.")
        } else {
            for cell in report.damagedCells { Output.print("\(Output.escaped(cell.description))") }
            // Ids and issues come from the library file, which may hold anything: shown escaped.
            for id in report.missingPhotos { Output.print(Output.escaped("photo \(id): its original file is missing")) }
            for id in report.missingStickers {
                Output.print(Output.escaped("sticker \(id): its image file is missing"))
            }
            for item in report.brokenItems {
                Output.print(
                    Output.escaped("collage \(item.collage), item \(item.item): shows a photo or sticker that is gone"))
            }
            for collage in report.invalidCollages {
                Output.print(
                    Output.escaped(
                        "collage \(collage.collage) cannot be rendered: \(collage.issues.joined(separator: "; "))"))
            }
            let unrecorded = report.unrecordedPhotos
            for name in unrecorded.prefix(20) {
                Output.print(
                    Output.escaped(
                        "photos/\(name.prefix(2))/\(name): a photo file with no record in the library (an import was "
                            + "interrupted, or the library's database lost it)"))
            }
            if unrecorded.count > 20 { Output.print("… and \(unrecorded.count - 20) more photo files with no record") }
            if report.repaired {
                for repair in report.repairs { Output.print("Repaired: \(Output.escaped(repair))") }
                Output.print(
                    "Repaired: damaged rows set aside (kept whole in the quarantine table), records whose files were "
                        + "missing removed, the items that showed them set aside, the backgrounds that showed them white."
                )
            } else if report.isRepairable {
                Output.print(
                    "Run 'collage doctor --repair' to set them aside and put the photos without a record back "
                        + "(nothing is deleted that can be kept).")
            }
        }
        let fixed = report.repaired && report.invalidCollages.isEmpty && report.unrecordedPhotos.isEmpty
        if !report.isHealthy, !fixed { throw .data("the library has the problems listed above") }
    }
}
