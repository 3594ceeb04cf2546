import CollageCore
import CollageKit
import Foundation

/// `collage sheet`: stickers packed onto pages to print and cut.
enum SheetCommand: Command {
    static let spec = CommandSpec(
        name: "sheet",
        abstract: "Pack stickers onto pages to print and cut (PDF with CutContour lines, SVG, previews)",
        usage:
            "STICKER[@SIZE]… | --collage ID -o sheet.pdf [--page a4|letter|WxHmm] [--size 50mm] [--gap 3mm] "
            + "[--cut kiss|die] [--turn-to-fit] [--svg cut.svg]",
        options: [
            .value("-o", "FILE", "The PDF to write (its pages' previews go beside it as FILE-page-N.png)"),
            .value("--output", "FILE", "Same as -o"),
            .value("--page", "SIZE", "a4 (default), a5, a3, letter, legal, or WxH in mm, cm or in (100x150mm)"),
            .value(
                "--size", "LENGTH",
                "Each sticker's longer side, cut line included (default 50mm); STICKER@40mm sets one"),
            .value("--gap", "LENGTH", "The least distance between cut lines (default 3mm for kiss, 6mm for die)"),
            .value("--cut", "kiss|die", "Kiss cut (a sheet of stickers, the default) or die cut (singles)"),
            .value("--offset", "LENGTH", "How far outside each subject its cut line runs (default 2mm)"),
            .value("--dpi", "N", "The pictures' resolution in the PDF (default 300)"),
            .value("--margin", "LENGTH", "Kept free along the page's edges (default 6mm)"),
            .value(
                "--svg", "FILE", "Also write the cut lines for a cutting machine, with registration marks (printed too)"
            ),
            .flag("--white", "Fill white out to each cut line (for clear or coloured sticker paper)"),
            .flag("--turn-to-fit", "Let stickers turn a quarter where that packs them tighter (default: upright)"),
            .value("--collage", "ID", "Print the stickers of a library collage, as they look on it (outline, effect)"),
            LibraryAccess.option,
            .flag("--json", "Print what was written as JSON"),
        ],
        discussion: """
            Each STICKER is a PNG or WebP with alpha (from 'collage sticker'), or the id of a
            library sticker. Stickers are sized so that their cut shape's longer side is --size,
            cut around at --offset, and packed by their shapes, upright (with --turn-to-fit, turned
            a quarter where that packs tighter), never letting two cut lines come closer than --gap. The PDF has the pictures and, on
            top, the cut lines in a spot colour named CutContour (magenta where no cutter reads
            it), as print shops ask. With --svg, every page also gets registration marks laid out
            as Silhouette Studio's Type 1 (set Type 1, length 20 mm, thickness 0.5 mm, inset 10 mm
            there), and the SVG holds the marks and the cut lines for the cutting machine.
            Nothing is written unless every sticker fits: a sticker larger than the page, one with
            no subject, or an empty list is an error that names it; a picture with no transparency
            is cut as a rectangle, and a note says so. One sticker may have up to 64
            million pixels at its print size, and one sheet's stickers up to 100 million together;
            a sheet holds at most \(Limits.maximumSheetStickers) stickers (the editor's limit too).
            """,
        positionals: 0...Limits.maximumSheetStickers)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        guard let outputPath = arguments.value("-o") ?? arguments.value("--output") else {
            throw .usage("an output file is required: -o sheet.pdf")
        }
        let output = try OutputGuard.target(URL(fileURLWithPath: outputPath))
        guard output.pathExtension.lowercased() == "pdf" else {
            throw .usage("a sheet is written as .pdf, got \"\(output.lastPathComponent)\"")
        }
        let svg = try arguments.value("--svg").map { path throws(Failure) in
            try OutputGuard.target(URL(fileURLWithPath: path))
        }
        if let svg, svg.pathExtension.lowercased() != "svg" {
            throw .usage("--svg writes an .svg file, got \"\(svg.lastPathComponent)\"")
        }
        let previewPrefix = output.deletingPathExtension().lastPathComponent + "-page-"
        try OutputGuard.refuseOverwriting(arguments.positionals, with: output, what: "the sheet") { name in
            name.hasPrefix(previewPrefix) && name.lowercased().hasSuffix(".png")
        }
        if let svg {
            try OutputGuard.refuseOverwriting(arguments.positionals, with: svg, flag: "--svg", what: "the cut lines")
        }
        func length(_ flag: String) throws(Failure) -> Double? {
            try arguments.value("--" + flag).map { text throws(Failure) in
                try SheetRequest.millimetres(text, field: flag)
            }
        }
        let sources = try arguments.positionals.map { argument throws(Failure) in try source(argument) }
        guard !sources.isEmpty || arguments.value("--collage") != nil else {
            throw .usage("name at least one sticker (a PNG, or a library sticker's id), or --collage ID")
        }
        let request = try SheetRequest(
            sources: sources, collage: arguments.value("--collage"), page: arguments.value("--page"),
            size: try length("size"), gap: try length("gap"), margin: try length("margin"),
            cut: arguments.value("--cut"), marks: svg != nil, turnsToFit: arguments.has("--turn-to-fit"),
            offset: try length("offset"),
            dotsPerInch: try arguments.value("--dpi").map { text throws(Failure) in try SheetRequest.dotsPerInch(text)
            },
            whiteBacking: arguments.has("--white"))
        // Only a collage's stickers are read from the library; files are not.
        let workspace =
            request.collage != nil || sources.contains(where: { if case .sticker = $0 { true } else { false } })
            ? try LibraryAccess.open(arguments) : nil
        let looks = FileManager.default.temporaryDirectory.appendingPathComponent("collage-sheet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: looks) }
        let sheet = try request.make(in: workspace, looks: looks, warnsOfSoftPictures: true)
        for warning in sheet.warnings { Output.printError("collage: warning: \(warning)") }
        if let fewer = sheet.suggestion {
            let flag = fewer.size.map { "--size \(Int($0))mm" } ?? "--turn-to-fit"
            Output.printError("collage: note: \(fewer.text.dropLast()) (\(flag)).")
        }
        let (previews, svgFiles) = try sheet.write(pdf: output, svg: svg)

        let coverage = (sheet.coverage * 1000).rounded() / 10
        if arguments.has("--json") {
            let round = { (value: Double) in JSONValue.number((value * 100).rounded() / 100) }
            Output.printJSON(
                .object([
                    "file": .string(output.path), "pages": .number(Double(sheet.pageCount)),
                    "previews": .array(previews.map { .string($0.path) }),
                    "svg": .array(svgFiles.map { .string($0.path) }),
                    "coverage": .number(coverage),
                    "packMilliseconds": .number((sheet.packMilliseconds * 10).rounded() / 10),
                    "stickers": .array(
                        sheet.placements.map { placement in
                            let bounds = placement.cutBounds
                            return .object([
                                "name": .string(sheet.names[placement.sticker]),
                                "page": .number(Double(placement.page)),
                                "x": round(placement.x), "y": round(placement.y),
                                "quarterTurns": .number(Double(placement.quarterTurns)),
                                // The cut line's box on its page and the area inside it, in millimetres.
                                "cutBounds": .array(
                                    [bounds.x, bounds.y, bounds.x + bounds.width, bounds.y + bounds.height].map(round)),
                                "area": round(placement.area),
                            ])
                        }),
                ]))
        } else {
            let pages = "\(sheet.pageCount) page\(sheet.pageCount == 1 ? "" : "s")"
            Output.print(
                "Wrote \(output.path): \(sheet.names.count) sticker\(sheet.names.count == 1 ? "" : "s") on \(pages) (cut shapes cover \(coverage) % of the paper)"
            )
            for file in previews + svgFiles { Output.print("Wrote \(file.path)") }
        }
    }

    /// `file.png@40mm` or `ID@40mm`: a sticker file, or else a library sticker's id, with its
    /// own size when one is given.
    static func source(_ argument: String) throws(Failure) -> SheetRequest.Source {
        var name = argument
        var size: Double?
        if let at = argument.lastIndex(of: "@"), !FileManager.default.fileExists(atPath: argument) {
            name = String(argument[..<at])
            size = try SheetRequest.millimetres(
                String(argument[argument.index(after: at)...]), field: "size", label: "\(argument) (its size)")
        }
        if FileManager.default.fileExists(atPath: name) || name.contains("/") || name.contains(".") {
            return .file(URL(fileURLWithPath: name), size: size)
        }
        return .sticker(name, size: size)
    }
}
