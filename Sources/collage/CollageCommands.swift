import CollageCore
import CollageKit
import CollageRender
import Foundation

/// `collage new`: a collage in the library.
enum NewCommand: Command {
    static let spec = CommandSpec(
        name: "new",
        abstract: "Create a collage in the library from a layout and photos",
        usage: "[--library DIR] [--title T] [--layout ID] [--aspect W:H] [--json] [photo-id | file]…",
        options: [
            LibraryAccess.option,
            .value("--title", "TEXT", "The title (default: the day, such as \"3 December 2026\")"),
            .value(
                "--layout", "ID",
                "The template (see 'collage templates'; premium ones need a licence), or auto (the default "
                    + "with photos): a layout made for them; with none, grid2x2"),
            .value("--aspect", "W:H", "Canvas shape, e.g. 1:1, 4:5, 16:9 or a preset such as a4 (default 1:1)"),
            .flag("--json", "Print the new collage's summary as JSON"),
        ] + AutoLayoutArguments.specs,
        discussion: """
            Photos are photo ids (or unique prefixes of at least 6 characters) from 'collage photos',
            or image files, which are imported first. They fill the layout's slots in order.
            """,
        positionals: 0...Int.max
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let layout = AutoLayoutArguments.layout(arguments, photos: arguments.positionals.count)
        let automatic = layout == NewCollageRequest.automatic
        let arrangement = try AutoLayoutArguments.parse(arguments, auto: automatic).map {
            values throws(Failure) in try AutoLayoutArguments.request(values)
        }
        let workspace = try LibraryAccess.open(arguments, creating: true)
        let access = workspace.access
        let request: NewCollageRequest
        do throws(Failure) {
            // Photos may be files, imported first; the request (and the premium gate) is checked
            // before anything is imported.
            let checked = try NewCollageRequest(
                title: arguments.value("--title"), template: layout,
                aspect: arguments.value("--aspect"))
            if let template = checked.template { try access.check(applying: template) }
            let photoIDs = try arguments.positionals.map { reference throws(Failure) -> String in
                guard FileManager.default.fileExists(atPath: reference) else { return reference }
                return try workspace.importPhoto(URL(fileURLWithPath: reference)).photo.id
            }
            request = try NewCollageRequest(
                title: arguments.value("--title"), template: layout,
                aspect: arguments.value("--aspect"), photos: photoIDs)
        } catch {
            throw error.spelled(["template": "layout"])
        }
        let stored = try workspace.create(request, arranging: arrangement)
        let layoutName = request.template?.id ?? "laid out for its photos"
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.summary(stored))
        } else {
            Output.print(
                "Created collage \(stored.collage.id) \"\(stored.collage.title)\" (\(layoutName), \(stored.collage.items.count) photo\(stored.collage.items.count == 1 ? "" : "s"))"
            )
        }
    }
}

/// `collage list`.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", abstract: "List the library's collages, most recently changed first",
        usage: "[--library DIR] [--json]",
        options: [LibraryAccess.option, .flag("--json", "Print JSON")])

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let summaries = try workspace.collages()
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    summaries.map(RecordJSON.summary)))
            return
        }
        guard !summaries.isEmpty else {
            Output.print("No collages yet. Make one with 'collage new --layout grid2x2 photo.jpg …'.")
            return
        }
        Output.print(
            Output.table(
                [["ID", "UPDATED", "ITEMS", "LAYOUT", "TITLE"]]
                    + summaries.map {
                        [
                            $0.id, displayDate($0.updated), "\($0.itemCount)",
                            $0.templateID ?? ($0.isArranged ? "auto" : "-"), $0.title,
                        ]
                    }))
    }
}

/// `collage show`.
enum ShowCommand: Command {
    static let spec = CommandSpec(
        name: "show", abstract: "Show a collage: its items, or its whole document with --json",
        usage: "[--library DIR] [--json] ID",
        options: [LibraryAccess.option, .flag("--json", "Print the collage document (with its version) as JSON")],
        positionals: 1...1)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let stored = try workspace.collage(arguments.positionals[0])
        let collage = stored.collage
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.document(stored))
            return
        }
        Output.print(
            """
            \(collage.title)  (\(collage.id), version \(stored.version))
            layout \(collage.templateID ?? (collage.arrangement != nil ? "auto (made for its photos)" : "free-form")), canvas \(format(collage.canvas.width)) × \(format(collage.canvas.height)) points, background \(collage.style.background)
            created \(displayDate(collage.created)), updated \(displayDate(collage.updated))
            """)
        guard !collage.items.isEmpty else {
            Output.print("no items")
            return
        }
        Output.print(
            "\n"
                + Output.table(
                    [["ITEM", "KIND", "SLOT", "FRAME (x, y, w × h)", "ROTATION", "SHOWS"]]
                        + collage.items.map { item in
                            [
                                item.id, item.content.kind, item.slot.map { "\($0 + 1)" } ?? "-",
                                "\(format(item.frame.x)), \(format(item.frame.y)), \(format(item.frame.width)) × \(format(item.frame.height))",
                                "\(format(item.rotation.degrees))°", shows(item.content),
                            ]
                        }))
    }

    static func format(_ value: Double) -> String { JSONValue.format((value * 10).rounded() / 10) }

    /// A photo's or sticker's id, or a text's first words in quotes.
    static func shows(_ content: ItemContent) -> String {
        guard let block = content.textBlock else { return String((content.reference ?? "").prefix(12)) }
        let words = block.text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\"" + (words.count > 24 ? words.prefix(23) + "…" : words) + "\""
    }
}

/// `collage rename`.
enum RenameCommand: Command {
    static let spec = CommandSpec(
        name: "rename", abstract: "Rename a collage", usage: "[--library DIR] [--json] ID TITLE",
        options: [LibraryAccess.option, .flag("--json", "Print the collage's summary as JSON")], positionals: 2...2)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let stored = try workspace.rename(arguments.positionals[0], to: arguments.positionals[1])
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.summary(stored))
        } else {
            Output.print("Renamed \(stored.collage.id) to \"\(stored.collage.title)\"")
        }
    }
}

/// `collage undo` and `collage redo`: the collage's own history, the one the editor's Undo and
/// Redo buttons walk.
enum HistoryCommand {
    static func spec(_ name: String, _ abstract: String) -> CommandSpec {
        CommandSpec(
            name: name, abstract: abstract, usage: "[--library DIR] [--version N] [--json] ID",
            options: [
                LibraryAccess.option,
                .value("--version", "N", "Only if the collage is still at version N (else exit 75)"),
                .flag("--json", "Print the collage's summary as JSON"),
            ], positionals: 1...1)
    }

    static func run(_ arguments: ParsedArguments, undo: Bool) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let version = try arguments.value("--version").map { text throws(Failure) in try EditRequest.version(text) }
        let stored = try workspace.step(arguments.positionals[0], undo: undo, expectedVersion: version)
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.summary(stored))
        } else {
            Output.print("\(undo ? "Undid" : "Redid") a change to \(stored.collage.id) (version \(stored.version))")
        }
    }
}

/// `collage undo`.
enum UndoCommand: Command {
    static let spec = HistoryCommand.spec("undo", "Bring back a collage as it was before its last change")
    static func run(_ arguments: ParsedArguments) throws(Failure) { try HistoryCommand.run(arguments, undo: true) }
}

/// `collage redo`.
enum RedoCommand: Command {
    static let spec = HistoryCommand.spec("redo", "Bring back the change the last undo took away")
    static func run(_ arguments: ParsedArguments) throws(Failure) { try HistoryCommand.run(arguments, undo: false) }
}

/// `collage duplicate`.
enum DuplicateCommand: Command {
    static let spec = CommandSpec(
        name: "duplicate", abstract: "Copy a collage under a new id", usage: "[--library DIR] [--json] ID",
        options: [LibraryAccess.option, .flag("--json", "Print the copy's summary as JSON")], positionals: 1...1)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let copy = try workspace.duplicate(arguments.positionals[0])
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.summary(copy))
        } else {
            Output.print("Created \(copy.collage.id) \"\(copy.collage.title)\"")
        }
    }
}

/// `collage rm`.
enum RemoveCommand: Command {
    static let spec = CommandSpec(
        name: "rm", abstract: "Delete collages (asks first on a terminal)", usage: "[--library DIR] [--yes] ID…",
        options: [LibraryAccess.option, .flag("--yes", "Delete without asking")],
        discussion: """
            On a terminal, asks before deleting. Elsewhere (scripts), --yes is required. Photos stay
            in the library; 'collage gc' removes the ones nothing uses.
            """,
        positionals: 1...Int.max)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let targets = try arguments.positionals.map { id throws(Failure) in
            try workspace.collage(id)
        }
        if !arguments.has("--yes") {
            guard terminalIsInteractive(STDIN_FILENO) else {
                throw .usage("refusing to delete without --yes when not on a terminal")
            }
            let names = targets.map { "\"\($0.collage.title)\" (\($0.collage.id), \($0.collage.items.count) items)" }
            FileHandle.standardError.write(Data("Delete \(names.joined(separator: ", "))? [y/N] ".utf8))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                Output.print("Nothing deleted.")
                return
            }
        }
        for target in targets {
            try workspace.delete(target.collage.id)
            Output.print("Deleted \(target.collage.id) \"\(target.collage.title)\"")
        }
    }
}

/// `collage layout`.
enum LayoutCommand: Command {
    static let spec = CommandSpec(
        name: "layout",
        abstract: "Apply a template to a collage (photos snap into its slots), or lay it out for its photos",
        usage: "[--library DIR] [--json] ID (TEMPLATE | auto [--seed N] [--hero K] [--max-crop PCT])",
        options: [LibraryAccess.option, .flag("--json", "Print the collage's summary as JSON")]
            + AutoLayoutArguments.specs,
        discussion: """
            Premium layouts (see 'collage templates') need Collage Premium: without it this exits 77.
            A collage that follows a premium layout already keeps it, and stays editable, without one.

            'auto' lays the collage's photos out for their own shapes (see 'collage make --help'):
            the seed, hero and crop are kept with the collage, so 'layout ID auto' again keeps the
            layout and '--seed' with another number gives another (a shuffle). Free for everyone.
            """,
        positionals: 2...2)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let target = arguments.positionals[1]
        let automatic = target == NewCollageRequest.automatic
        let arrangement = try AutoLayoutArguments.parse(arguments, auto: automatic).map {
            values throws(Failure) in try AutoLayoutArguments.request(values)
        }
        let workspace = try LibraryAccess.open(arguments)
        let stored: StoredCollage
        if let arrangement {
            stored = try workspace.arrange(arrangement, arguments.positionals[0])
        } else {
            stored = try workspace.apply(EditRequest(edits: [.applyTemplate(id: target)]), to: arguments.positionals[0])
        }
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.summary(stored))
        } else if let arranged = stored.collage.arrangement, automatic {
            Output.print(
                "\(stored.collage.id) is laid out for its photos (seed \(arranged.seed), version \(stored.version))")
        } else {
            Output.print("\(stored.collage.id) now follows \(target) (version \(stored.version))")
        }
    }
}

/// `collage edit`.
enum EditCommand: Command {
    static let spec = CommandSpec(
        name: "edit", abstract: "Apply edits (JSON) to a collage",
        usage: "[--library DIR] [--version N] [--json] ID (EDIT-JSON | -)",
        options: [
            LibraryAccess.option,
            .value("--version", "N", "Apply only if the collage is still at version N (else exit 75)"),
            .flag("--json", "Print the edited document (with its version) as JSON"),
        ],
        discussion: """
            An edit is a JSON object with an "op"; an array applies several, all or nothing. '-' reads
            the JSON from standard input. Operations and their fields:
            \(EditCodec.operations.map { "  \($0.op): \($0.fields.joined(separator: ", "))" }.joined(separator: "\n"))
            Example:
              collage edit k3x9 '{"op": "rotateItem", "id": "i1", "degrees": 8}'
              collage edit k3x9 '[{"op": "applyTemplate", "template": "strip"}, {"op": "rename", "title": "Trip"}]'
              collage edit k3x9 '{"op": "addItem", "id": "cap", "content": {"type": "text", "text": "Day one"}}'
              collage edit k3x9 '{"op": "setText", "id": "cap", "text": {"text": "Day two", "font": "Lato", "size": 48}}'
              collage edit k3x9 '{"op": "setLook", "id": "i1", "look": {"flipHorizontal": true, "opacity": 0.8}}'
            A text's fields (all but "text" optional): font, weight, italic, size, color, align,
            lineSpacing, letterSpacing, background, outline, shadow (see the document format in
            docs/DOCUMENT.md); its frame's height is fitted to the words after every edit.
            """,
        positionals: 2...2)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        let source = arguments.positionals[1]
        let data = source == "-" ? FileHandle.standardInput.readDataToEndOfFile() : Data(source.utf8)
        let stored: StoredCollage
        let request: EditRequest
        do throws(Failure) {
            let json: JSONValue
            do {
                json = try JSONValue.parse(data)
            } catch {
                throw Failure(.invalidInput, "the edit is not JSON: \(error.description)")
            }
            request = try EditRequest(
                edits: json,
                version: arguments.value("--version").map { text throws(Failure) in try EditRequest.version(text) })
            stored = try workspace.apply(request, to: arguments.positionals[0])
        } catch {
            throw error
        }
        let edits = request.edits
        if arguments.has("--json") {
            Output.printJSON(RecordJSON.document(stored))
        } else {
            Output.print(
                "Applied \(edits.count) edit\(edits.count == 1 ? "" : "s") to \(stored.collage.id) (version \(stored.version))"
            )
        }
    }
}

/// `collage export`.
enum ExportCommand: Command {
    static let spec = CommandSpec(
        name: "export", abstract: "Render a library collage to an image file",
        usage:
            "[--library DIR] ID -o out.jpg [--scale N | --size PX | --print WxHin@DPI] [--format F] [--quality Q] [--progressive]",
        options: [LibraryAccess.option, .flag("--json", "Print what was written as JSON")] + OutputArguments.specs
            + SmartCropArguments.specs,
        discussion: """
            Photos without a crop of their own are cropped around their subject when the model is
            installed (--no-smart-crop turns it off); each photo's focus is computed once and kept
            in the library.
            """,
        positionals: 1...1)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let output = try OutputArguments.parse(arguments)
        // The model first: a missing one must not leave a new, empty library behind.
        let model = try SmartCropArguments.model(arguments)
        let workspace = try LibraryAccess.open(arguments).with(model: model)
        let stored = try workspace.collage(arguments.positionals[0])
        // The notes name a photo as it was imported, not by its file in the library (its hash).
        let names = Dictionary(
            ((try? workspace.photos()) ?? []).map { ($0.id, $0.originalName) }, uniquingKeysWith: { first, _ in first })
        let collage = stored.collage
        try renderAndReport(
            collage, photos: workspace.commandLinePhotos, output: output, json: arguments.has("--json")
        ) { soft in
            guard case .photo(let reference) = collage.item(soft.itemID)?.content, let name = names[reference] else {
                return soft.file.lastPathComponent
            }
            return name
        }
    }
}
