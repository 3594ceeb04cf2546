import CollageCore
import CollageKit
import Foundation

/// `collage pack`: stickers made into a pack a messenger takes.
enum PackCommand: Command {
    static let spec = CommandSpec(
        name: "pack",
        abstract: "Make a sticker pack for WhatsApp, Telegram, Signal or iMessage, each file within its limits",
        usage:
            "--for whatsapp|telegram|signal|imessage STICKER… -o DIR [--title TEXT] [--author TEXT] "
            + "[--animate bounce|wiggle|float|shine|peel [--duration 2]]",
        options: [
            .value("--for", "MESSENGER", "whatsapp, telegram, signal or imessage"),
            .value("-o", "DIR", "The folder to write the pack into (made when missing)"),
            .value("--output", "DIR", "Same as -o"),
            .value("--title", "TEXT", "The pack's title (default: My stickers)"),
            .value("--author", "TEXT", "Who made it (default: Collage)"),
            .value(
                "--animate", "MOTION",
                "Live stickers: bounce, wiggle, float, shine or peel (WhatsApp: animated WebP; Telegram: VP9 WebM; "
                    + "Signal, iMessage: animated PNG)"),
            .value(
                "--duration", "SECONDS",
                "With --animate: the loop's length (default 2; WhatsApp and iMessage up to 10, Telegram and Signal 3)"),
            LibraryAccess.option,
            .flag("--json", "Print what was written as JSON"),
        ],
        discussion: """
            Each STICKER is a PNG or WebP with alpha (from 'collage sticker'), or the id of a
            library sticker. Every sticker is scaled whole into the messenger's size with its
            margin (and, for WhatsApp and Telegram, an 8 px white outline, as they advise), then
            encoded at the best quality that fits the messenger's byte limit: WebP from quality 90
            down, PNG lossless and then on a palette. The subject is never cut or shrunk to fit,
            only the encoding gives way, and the command says which pictures it lowered, and which
            it enlarged past twice their size (a subject lifted from a thumbnail looks soft). Each file
            is read back and checked against the limits before the folder is touched; a sticker
            that cannot fit, one with no subject, or a count the messenger does not take is an
            error that names it, and nothing is written. A pack made again in its folder replaces
            the one before (and says what it removed); a folder holding a file of your own with a
            pack file's name is refused.

              whatsapp  WebP 512 × 512, ≤ 100 KB; 3–30 stickers; tray.png 96 × 96, ≤ 50 KB;
                        TITLE.wastickers (the pictures, tray icon, title and author) for
                        sticker-maker apps that import it
              telegram  PNG with one side 512, the other ≤ 512, ≤ 512 KB; 1–120 stickers;
                        thumbnail.png 100 × 100 for the set (send the files to @Stickers)
              signal    PNG 512 × 512, ≤ 300 KiB; 1–200 stickers (Signal Desktop's Sticker Creator)
              imessage  PNG 408 × 408 (the regular size), < 500 KB; 1–100 stickers

            With --animate every sticker moves in a loop, drawn from its own pixels (its outline
            included): WhatsApp takes animated WebP up to 500 KB and 10 s, Telegram VP9 WebM video
            stickers up to 256 KB, 3 s and 30 frames a second (a see-through background kept),
            Signal animated PNG up to 300 KiB and 3 s, iMessage animated PNG under 500 KB. The
            quality (an APNG's colours, from 256 down to 24), then the frame rate, give way until
            each fits. An APNG keeps every pixel, so a detailed subject that moves as a whole
            (bounce, wiggle) may not fit Signal's limit even so: shine moves only a glint.
            """,
        positionals: 0...200)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        guard let messenger = arguments.value("--for") else {
            throw .usage("name the messenger: --for whatsapp, telegram, signal or imessage")
        }
        guard let outputPath = arguments.value("-o") ?? arguments.value("--output"), !outputPath.isEmpty else {
            throw .usage("a folder to write the pack into is required: -o DIR")
        }
        guard !arguments.positionals.isEmpty else {
            throw .usage("name the stickers: PNG files from 'collage sticker', or library sticker ids")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputPath, isDirectory: &isFolder), !isFolder.boolValue {
            throw .usage(
                "-o \(outputPath) is a file; a pack is a folder of stickers: name a folder (it is made when missing)")
        }
        // The pack's own files replace what has their names: a sticker to read among them is refused.
        for argument in arguments.positionals
        where FileManager.default.fileExists(atPath: argument)
            && StickerPackRequest.mayReplace(
                URL(fileURLWithPath: argument), inPackFolder: URL(fileURLWithPath: outputPath))
        {
            throw .usage(
                "-o \(outputPath) holds \(argument), one of the stickers to read, and the pack's file of that "
                    + "name would replace it: write the pack to a folder of its own")
        }
        let sources = arguments.positionals.map { argument -> StickerPackRequest.Source in
            FileManager.default.fileExists(atPath: argument) || argument.contains("/") || argument.contains(".")
                ? .file(URL(fileURLWithPath: argument)) : .sticker(argument)
        }
        if arguments.value("--duration") != nil, arguments.value("--animate") == nil {
            throw .usage("--duration is a live sticker's loop: add --animate MOTION")
        }
        let duration = try arguments.value("--duration").map { text throws(Failure) -> Double in
            guard let seconds = Double(decimal: text) else {
                throw .usage("--duration expects a number of seconds, got \"\(text.prefix(40))\"")
            }
            return seconds
        }
        let request = try StickerPackRequest(
            messenger: messenger, sources: sources, title: arguments.value("--title"),
            author: arguments.value("--author"), motion: arguments.value("--animate"), duration: duration)
        let workspace =
            sources.contains(where: { if case .sticker = $0 { true } else { false } })
            ? try LibraryAccess.open(arguments) : nil
        let pack = try request.make(in: workspace, into: URL(fileURLWithPath: outputPath))
        if arguments.has("--json") {
            func file(_ file: StickerPack.File) -> JSONValue {
                .object([
                    "file": .string(pack.folder.appendingPathComponent(file.name).path), "source": .string(file.source),
                    "width": .number(Double(file.width)), "height": .number(Double(file.height)),
                    "bytes": .number(Double(file.bytes)), "quality": file.quality.map { .number(Double($0)) } ?? .null,
                    "colours": file.colours.map { .number(Double($0)) } ?? .null,
                ])
            }
            Output.printJSON(
                .object([
                    "messenger": .string(pack.messenger.rawValue), "folder": .string(pack.folder.path),
                    "stickers": .array(pack.stickers.map(file)), "icon": pack.icon.map(file) ?? .null,
                    "archive": pack.archive.map { .string($0.path) } ?? .null,
                    "notes": .array(pack.notes.map { .string($0) }),
                ]))
            return
        }
        let rules = pack.messenger.rules
        let total = pack.stickers.reduce(0) { $0 + $1.bytes }
        let limit = request.motion != nil ? rules.animated?.maximumBytes ?? rules.maximumBytes : rules.maximumBytes
        Output.print(
            "Wrote \(pack.stickers.count) sticker\(pack.stickers.count == 1 ? "" : "s") for \(rules.name) to "
                + "\(pack.folder.path) "
                + "(\(StickerPack.text(bytes: total)) in all, each within \(StickerPack.text(bytes: limit)))"
        )
        for note in pack.notes { Output.print("  \(note)") }
        if let icon = pack.icon {
            Output.print("  \(icon.name): \(icon.width) × \(icon.height), \(StickerPack.text(bytes: icon.bytes))")
        }
        if let archive = pack.archive { Output.print("Wrote \(archive.path)") }
    }
}
