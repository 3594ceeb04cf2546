import CollageCore
import CollageKit
import CollageLibrary
import Foundation
import StickerPrint

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
            no subject, or an empty list is an error that names it. One sticker may have up to 64
            million pixels at its print size, and one sheet's stickers up to 100 million together.
            """,
        positionals: 0...500)

    static func run(_ arguments: ParsedArguments) throws(CLIError) {
        guard let outputPath = arguments.value("-o") ?? arguments.value("--output") else {
            throw .usage("an output file is required: -o sheet.pdf")
        }
        let output = URL(fileURLWithPath: outputPath)
        guard output.pathExtension.lowercased() == "pdf" else {
            throw .usage("a sheet is written as .pdf, got \"\(output.lastPathComponent)\"")
        }
        let svg = arguments.value("--svg").map { URL(fileURLWithPath: $0) }
        if let svg, svg.pathExtension.lowercased() != "svg" {
            throw .usage("--svg writes an .svg file, got \"\(svg.lastPathComponent)\"")
        }
        let cutLine: CutLineOptions
        let options: SheetOptions
        let defaultSize: Double
        do throws(PrintError) {
            let page = try arguments.value("--page").map { text throws(PrintError) in try PrintLength.page(text) }
            guard let cut = CutMode(rawValue: arguments.value("--cut") ?? "kiss") else {
                throw .invalidOption("--cut: expected kiss or die, got \"\(arguments.value("--cut") ?? "")\"")
            }
            let gap = try arguments.value("--gap").map { text throws(PrintError) in
                try PrintLength.millimetres(text, option: "--gap", range: Limits.cutLineGap)
            }
            let margin = try arguments.value("--margin").map { text throws(PrintError) in
                try PrintLength.millimetres(text, option: "--margin", range: 0...50)
            }
            defaultSize =
                try arguments.value("--size").map { text throws(PrintError) in
                    try PrintLength.millimetres(text, option: "--size", range: Limits.stickerPrintSize)
                } ?? 50
            cutLine = try CutLineArguments.options(arguments, whiteBacking: arguments.has("--white"))
            options = SheetOptions(
                pageWidth: page?.width ?? 210, pageHeight: page?.height ?? 297, gap: gap, margin: margin ?? 6, cut: cut,
                registrationMarks: svg != nil, turnsToFit: arguments.has("--turn-to-fit"))
        } catch {
            throw .usage(error.description)
        }

        var stickers: [CutSticker] = []
        var names: [String] = []
        var library: Library?
        var sources: [(name: String, file: URL, size: Double)] = []
        for argument in arguments.positionals {
            let (source, size) = try sizedSource(argument, defaultSize: defaultSize)
            let file: URL
            if FileManager.default.fileExists(atPath: source) {
                file = URL(fileURLWithPath: source)
            } else if source.contains("/") || source.contains(".") {
                throw .noInput("\(source): no such file")
            } else {
                if library == nil { library = try LibraryAccess.open(arguments) }
                do {
                    guard let library else { throw LibraryError.unknownSticker(source) }
                    file = library.stickerFile(of: try library.sticker(source))
                } catch {
                    throw .noInput("\(source): no such file, and no sticker with that id in the library")
                }
            }
            sources.append((URL(fileURLWithPath: source).lastPathComponent, file, size))
        }
        // A collage's stickers, drawn as they look on it (outline, shadow, effect).
        var drawnFolder: URL?
        defer { if let drawnFolder { try? FileManager.default.removeItem(at: drawnFolder) } }
        if let collageID = arguments.value("--collage") {
            let opened: Library
            if let library { opened = library } else { opened = try LibraryAccess.open(arguments) }
            let stored = try LibraryAccess.run { () throws(LibraryError) in try opened.collage(collageID) }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "collage-sheet-\(UUID().uuidString)")
            drawnFolder = folder
            do throws(Failure) {
                let prints = try StickerPrints.draw(
                    stored.collage, photos: LibraryPhotoSource(library: opened), into: folder, size: defaultSize,
                    dotsPerInch: cutLine.dotsPerInch)
                sources += prints.map { ("\(collageID) \($0.itemID)", $0.file, defaultSize) }
            } catch {
                throw error.cliError
            }
        }
        guard !sources.isEmpty else {
            throw .usage("name at least one sticker (a PNG, or a library sticker's id), or --collage ID")
        }
        do throws(PrintError) {
            try SheetStickers.checkSheetPixels(
                count: sources.count, size: sources.map(\.size).max() ?? defaultSize, options: cutLine)
        } catch {
            throw error.cliError
        }
        for (name, file, size) in sources {
            do throws(PrintError) {
                // Checked before any pixel is made: a sticker that cannot fit, or would be huge.
                let usable = max(options.pageWidth, options.pageHeight) - 2 * options.margin
                guard size <= usable else {
                    throw PrintError.tooLarge(
                        "\(name): at \(PrintLength.format(size)) mm it does not fit on the page inside its margins "
                            + "(at most \(PrintLength.format(usable)) mm); give a smaller --size or a larger --page")
                }
                let side = size * cutLine.pixelsPerMillimetre
                guard side * side <= Double(Limits.maximumStickerPrintPixels) else {
                    throw PrintError.invalidOption(
                        "\(name): \(PrintLength.format(size)) mm at \(Int(cutLine.dotsPerInch)) dpi is over "
                            + "\(Limits.maximumStickerPrintPixels / 1_000_000) million pixels; give a smaller --size or --dpi"
                    )
                }
                let sticker = try SheetStickers.prepare(file: file, name: name, size: size, options: cutLine)
                for warning in sticker.warnings { Output.printError("collage: warning: \(warning)") }
                if let resolution = SheetStickers.effectiveResolution(file: file, size: size, offset: cutLine.offset),
                    resolution < 150
                {
                    Output.printError(
                        "collage: warning: \(name) has only \(Int(resolution)) pixels an inch at \(PrintLength.format(size)) mm; "
                            + "it will print soft")
                }
                stickers.append(sticker)
                names.append(name)
            } catch {
                throw error.cliError
            }
        }

        let layout: SheetLayout
        let started = ContinuousClock.now
        do {
            layout = try SheetPacker.pack(stickers, names: names, options: options)
        } catch {
            throw error.cliError
        }
        let elapsed = ContinuousClock.now - started
        let packing = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        // One sticker alone on the last page: say what would fit them all on fewer pages (when
        // every sticker has the one size a smaller --size would change).
        if sources.allSatisfy({ $0.size == defaultSize }) {
            let cut = { (size: Double) throws(PrintError) -> [CutSticker] in
                try sources.map { source throws(PrintError) in
                    try SheetStickers.prepare(file: source.file, name: source.name, size: size, options: cutLine)
                }
            }
            if let fewer = try? SheetPacker.fewerPages(
                than: layout, size: defaultSize, names: names, options: options, cut: cut)
            {
                let flag = fewer.size.map { "--size \(Int($0))mm" } ?? "--turn-to-fit"
                Output.printError("collage: note: \(fewer.text.dropLast()) (\(flag)).")
            }
        }
        let title = output.deletingPathExtension().lastPathComponent
        let previews = (0..<layout.pageCount).map { page in
            output.deletingLastPathComponent().appendingPathComponent("\(title)-page-\(page + 1).png")
        }
        let svgFiles =
            svg.map { file in
                layout.pageCount == 1
                    ? [file]
                    : (0..<layout.pageCount).map { page in
                        file.deletingLastPathComponent().appendingPathComponent(
                            "\(file.deletingPathExtension().lastPathComponent)-page-\(page + 1).svg")
                    }
            } ?? []
        // Everything is made under temporary names first: nothing half-written is left behind.
        var written: [(temporary: URL, final: URL)] = []
        func temporary(for file: URL) -> URL {
            file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).partial")
        }
        do throws(CLIError) {
            do {
                let staged = temporary(for: output)
                written.append((staged, output))
                try SheetPDF.write(layout, title: title, to: staged)
                for (page, preview) in previews.enumerated() {
                    let staged = temporary(for: preview)
                    written.append((staged, preview))
                    try SheetPreview.write(page: page, of: layout, to: staged)
                }
                for (page, file) in svgFiles.enumerated() {
                    let staged = temporary(for: file)
                    written.append((staged, file))
                    try write(Data(SheetSVG.page(page, of: layout, title: title).utf8), to: staged)
                }
            } catch {
                throw error.cliError
            }
            for (staged, final) in written where rename(staged.path, final.path) != 0 {
                throw CLIError.cannotCreate("\(final.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            for (staged, _) in written { try? FileManager.default.removeItem(at: staged) }
            throw error
        }

        let coverage = (layout.coverage * 1000).rounded() / 10
        if arguments.has("--json") {
            Output.printJSON(
                .object([
                    "file": .string(output.path), "pages": .number(Double(layout.pageCount)),
                    "previews": .array(previews.map { .string($0.path) }),
                    "svg": .array(svgFiles.map { .string($0.path) }),
                    "coverage": .number(coverage),
                    "packMilliseconds": .number((packing * 10).rounded() / 10),
                    "stickers": .array(
                        layout.placements.map { placement in
                            let bounds = layout.pagePath(of: placement).bounds
                            let round = { (value: Double) in JSONValue.number((value * 100).rounded() / 100) }
                            return .object([
                                "name": .string(names[placement.sticker]), "page": .number(Double(placement.page + 1)),
                                "x": round(placement.x), "y": round(placement.y),
                                "quarterTurns": .number(Double(placement.quarterTurns)),
                                // The cut line's box on its page and the area inside it, in millimetres.
                                "cutBounds": .array([bounds.minX, bounds.minY, bounds.maxX, bounds.maxY].map(round)),
                                "area": round(layout.area(of: placement.sticker)),
                            ])
                        }),
                ]))
        } else {
            Output.print(
                "Wrote \(output.path): \(stickers.count) stickers on \(layout.pageCount) page\(layout.pageCount == 1 ? "" : "s") "
                    + "(cut shapes cover \(coverage) % of the paper)")
            for file in previews + svgFiles { Output.print("Wrote \(file.path)") }
        }
    }

    /// The most pixels one sticker of a sheet may have at its print size.

    /// `file.png@40mm`: the file and its size; without a size, `defaultSize`.
    static func sizedSource(_ argument: String, defaultSize: Double) throws(CLIError) -> (String, Double) {
        guard let at = argument.lastIndex(of: "@"), !FileManager.default.fileExists(atPath: argument) else {
            return (argument, defaultSize)
        }
        let size = String(argument[argument.index(after: at)...])
        do {
            return (
                String(argument[..<at]),
                try PrintLength.millimetres(size, option: "\(argument) (its size)", range: Limits.stickerPrintSize)
            )
        } catch {
            throw .usage(error.description)
        }
    }

    private static func write(_ data: Data, to file: URL) throws(PrintError) {
        do {
            try data.write(to: file)
        } catch {
            throw .unwritable("\(file.path): \(error.localizedDescription)")
        }
    }
}

extension PrintError {
    /// The exit code and message for a failed sheet or cut line, from Kit's one failure table.
    var cliError: CLIError { failure.cliError }
}
