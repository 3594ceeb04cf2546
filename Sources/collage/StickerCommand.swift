import CollageCore
import CollageKit
import CollageRender
import Foundation

/// `collage sticker`: lift the subject out of a photo as a transparent sticker.
enum StickerCommand: Command {
    static let spec = CommandSpec(
        name: "sticker",
        abstract: "Lift the subject out of a photo as a transparent sticker",
        usage:
            "(photo.jpg -o sticker.png | photo… --output-dir DIR | PHOTO-ID [--library DIR]) [--instance N | --at X,Y] "
            + "[--outline PX] [--shadow] [--effect comic|halftone|puffy|shiny] [--plain-edges] [--mask-only] "
            + "[--live MOTION] [--cut-line cut.svg [--offset 2mm] [--dpi 300]]",
        options: [
            LibraryAccess.option,
            .value("-o", "FILE", "Where to write the sticker (PNG or WebP, with alpha)"),
            .value("--output", "FILE", "Same as -o"),
            .value(
                "--output-dir", "DIR",
                "For several photos: write DIR/<name>.png for each (one model load; <name>-2.png for a name met before)"
            ),
            .value("--instance", "N", "Only the N-th largest subject (1 is the largest); default: all subjects"),
            .value(
                "--at", "X,Y",
                "Only the subject under this point of the photo, in pixels (or the nearest within 4 % of its side)"),
            .value("--outline", "PX", "A white outline this many pixels wide"),
            .flag("--shadow", "A soft shadow below the sticker"),
            .value(
                "--effect", "NAME",
                "A look: comic (flat colours, ink lines), halftone (a comic with dotted shadows), puffy (inflated, lit "
                    + "from above), shiny (iridescent)"),
            .value(
                "--live", "MOTION",
                "A live sticker: bounce, wiggle, float, shine or peel, looping, written as .webp, .gif, .png (APNG), "
                    + ".webm or .mp4"),
            .value("--duration", "SECONDS", "With --live: the loop's length, 1 to 10 seconds (default 2)"),
            .value("--size", "PX", "With --live: the square's side in pixels (default 512)"),
            .value("--fps", "N", "With --live: frames a second, 5 to 60 (default 30; 15 for GIF)"),
            .flag("--mask-only", "Write the mask (white subject on black, the photo's size) instead"),
            .value(
                "--format", "FORMAT",
                "The output format: png or webp (with --live: mp4, webm, webp, gif or png); default: from the extension"
            ),
            .flag("--no-refine", "Upsample the model's map without edge refinement"),
            .flag(
                "--plain-edges",
                "Keep the model's own soft edge (faster; fur keeps a haze of the old background) instead of clean edges"
            ),
            .flag("--clean-edges", "The default: strands of hair and fur found again from the photo (see docs/CLI.md)"),
            .value(
                "--cut-line", "FILE",
                "Also write a cut line around the subject as SVG (mm), for printing and cutting; the PNG is tagged with --dpi"
            ),
            .value("--offset", "LENGTH", "With --cut-line: how far outside the subject it runs (default 2mm)"),
            .value("--dpi", "N", "With --cut-line: the sticker's pixels per inch on paper (default 300)"),
            .value("--model", "PATH", "The U²-Net-p model (default: $COLLAGE_MODEL, else ~/.cache/collage/models)"),
            .flag("--json", "Print what was written as JSON"),
        ],
        discussion: """
            Given a file, writes the sticker to -o. Given the id of a library photo (see
            'collage photos'), adds the sticker to the library and prints its id, which collages
            place as {"type": "sticker", "ref": ID}; -o also writes a copy. The library caches the
            mask per photo and model, so asking again does not run the model again.

            The model finds the photo's subjects; its 320 × 320 map is upsampled to the photo's size
            and refined along the photo's own edges (a black-and-white photo is seen twice, once with
            its lightness spread evenly: in grey the model found only a cat's eye). The model's convolutions run on Collage's own
            kernels, with the widest vectors the processor has (AVX-512, else AVX2);
            COLLAGE_CONVOLUTION=opencv runs OpenCV's instead, to compare. Subjects are the separate regions of the mask,
            largest first. The sticker is the photo with the mask as alpha, cropped to the chosen
            subjects plus a small margin.
            With --cut-line, the sticker is made for print: its canvas grows to hold a cut line
            --offset outside the subject (one smooth closed curve traced by potrace, inward bends and
            gaps narrower than 2 mm closed so a blade can follow it), the SVG has the PNG's size in
            millimetres at --dpi, and the PNG says its resolution. --outline then fills white out
            to the cut line (its width is the offset), so print and cut agree.
            Exits 3 when the photo has no subject (nothing is written), 69 when the model is
            missing or not the expected file (the message says how to fetch it).
            """,
        positionals: 1...Int.max)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let printOptions = ["--cut-line", "--offset", "--dpi"].filter { arguments.value($0) != nil }
        let onLibraryPhoto =
            arguments.positionals.count == 1 && !FileManager.default.fileExists(atPath: arguments.positionals[0])
            && (arguments.value("--library") != nil || !arguments.positionals[0].contains("/"))
        if let option = printOptions.first, arguments.value("--output-dir") != nil || onLibraryPhoto {
            throw .usage("\(option) goes with one photo file and -o sticker.png (not --output-dir or a library photo)")
        }
        if let directory = arguments.value("--output-dir") {
            try runBatch(arguments.positionals, into: URL(fileURLWithPath: directory), arguments)
            return
        }
        guard arguments.positionals.count == 1 else {
            throw .usage("several photos need --output-dir DIR (one sticker file each)")
        }
        let source = arguments.positionals[0]
        if !FileManager.default.fileExists(atPath: source), arguments.value("--library") != nil || !source.contains("/")
        {
            try runOnLibraryPhoto(source, arguments)
            return
        }
        guard let outputPath = arguments.value("-o") ?? arguments.value("--output") else {
            throw .usage("an output file is required: -o sticker.png")
        }
        let output = URL(fileURLWithPath: outputPath)
        try OutputGuard.refuseOverwriting([source], with: output, what: "the sticker")
        if arguments.value("--live") != nil {
            try runLive(arguments, photo: URL(fileURLWithPath: source), output: output)
            return
        }
        for name in ["--duration", "--size", "--fps"] where arguments.value(name) != nil {
            throw .usage("\(name) shapes a live sticker: add --live MOTION")
        }
        let format: OutputFormat
        if let name = arguments.value("--format") {
            guard let named = OutputFormat(rawValue: name.lowercased()), named == .png || named == .webp else {
                throw .usage("--format expects png or webp, got \"\(name)\"")
            }
            // A WebP named .png (or the other way) opens as neither in some programs.
            if let named = OutputFormat(pathExtension: output.pathExtension),
                named != OutputFormat(rawValue: name.lowercased())
            {
                throw .usage(
                    "--format \(name) but the file is named \"\(output.lastPathComponent)\"; name it .\(name.lowercased()) "
                        + "or leave out --format")
            }
            format = named
        } else {
            guard let inferred = OutputFormat(pathExtension: output.pathExtension),
                inferred == .png || inferred == .webp
            else {
                throw .usage(
                    "a sticker is written as .png or .webp (it needs alpha), got \"\(output.lastPathComponent)\"")
            }
            format = inferred
        }
        if arguments.has("--mask-only") {
            for name in ["--outline", "--effect"] where arguments.value(name) != nil {
                throw .usage("\(name) draws on a sticker; --mask-only writes the mask alone")
            }
            if arguments.has("--shadow") {
                throw .usage("--shadow draws on a sticker; --mask-only writes the mask alone")
            }
        }
        let cutLine = try cutLineRequest(arguments)
        if cutLine != nil, format != .png || arguments.has("--mask-only") {
            throw .usage("--cut-line goes with a PNG sticker (-o sticker.png), not --mask-only or WebP")
        }
        let request = try stickerRequest(arguments, outline: cutLine == nil)
        let photo = URL(fileURLWithPath: arguments.positionals[0])
        var options = StickerRequest.FileOptions()
        options.maskOnly = arguments.has("--mask-only")
        options.refine = !arguments.has("--no-refine")
        options.cleanEdges = try cleanEdges(arguments)
        if let cutLine, let file = arguments.value("--cut-line") {
            let cutFile = URL(fileURLWithPath: file)
            // The sticker was written over its own cut line, which was lost.
            let samePath = { (other: URL) in
                other.standardizedFileURL.resolvingSymlinksInPath().path
                    == cutFile.standardizedFileURL.resolvingSymlinksInPath().path
            }
            if samePath(output) || samePath(URL(fileURLWithPath: source)) {
                throw .usage(
                    "--cut-line \(file) is the \(samePath(output) ? "sticker's file (-o)" : "photo"): "
                        + "write the cut line to a file of its own, such as cut.svg")
            }
            options.cutLine = (cutLine, cutFile)
        }
        // The model last: a mistake in the options is said before a missing model is.
        let model = try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments))
        let result = try request.lift(file: photo, model: model, to: output, format: format, options: options)
        for warning in result.warnings { Output.printError("collage: warning: \(warning)") }
        if arguments.has("--json") {
            var written: [String: JSONValue] = [
                "file": .string(output.path), "width": .number(Double(result.width)),
                "height": .number(Double(result.height)), "format": .string(format.rawValue),
                // Where the sticker's top-left lies in the photo, so it can be put back in place.
                "x": .number(Double(result.x)), "y": .number(Double(result.y)),
            ]
            if let (cutLine, file) = options.cutLine {
                written["cutLine"] = .object([
                    "file": .string(file.path), "offsetMillimetres": .number(cutLine.offsetMillimetres),
                    "dpi": .number(cutLine.dotsPerInch),
                ])
            }
            Output.printJSON(.object(written))
        } else {
            Output.print("Wrote \(output.path) (\(result.width) × \(result.height) \(format.rawValue.uppercased()))")
        }
        if !options.maskOnly, let note = smallStickerNote(width: result.width, height: result.height, name: output.path)
        {
            Output.printError(note)
        }
    }

    /// The long side under which a sticker is too small for a message or a print (a messenger's
    /// sticker is 512 px, a 5 cm sticker at 300 dpi 590).
    static let smallStickerSide = 160

    /// A note for a sticker smaller than ``smallStickerSide`` (a 40 × 30 photo gave a 28 × 30
    /// sticker, written without a word; only `pack` said it later).
    static func smallStickerNote(width: Int, height: Int, name: String) -> String? {
        guard max(width, height) < smallStickerSide else { return nil }
        return "collage: note: \(name) is only \(width) × \(height) px, and will look soft wherever it is shown "
            + "larger (a messenger's stickers are 512 px): lift it from a larger photo if there is one"
    }

    /// `collage sticker photo.jpg --live bounce -o live.webp`: the sticker lifted (outline and
    /// effect drawn in), then written moving.
    static func runLive(_ arguments: ParsedArguments, photo: URL, output: URL) throws(Failure) {
        for name in ["--cut-line", "--mask-only"] where arguments.value(name) != nil || arguments.has(name) {
            throw .usage("\(name) makes a still sticker, not a live one")
        }
        var values: [String: String] = ["motion": arguments.value("--live") ?? ""]
        for name in ["duration", "size", "fps", "quality", "format"] { values[name] = arguments.value("--\(name)") }
        let live = try LiveStickerRequest(values, fileName: output.path)
        let request = try stickerRequest(arguments)
        let model = try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments))
        var options = StickerRequest.FileOptions()
        options.refine = !arguments.has("--no-refine")
        options.cleanEdges = try cleanEdges(arguments)
        let still = FileManager.default.temporaryDirectory.appendingPathComponent(
            "collage-live-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: still) }
        _ = try request.lift(file: photo, model: model, to: still, format: .png, options: options)
        let result = try live.write(sticker: still, to: output)
        if arguments.has("--json") {
            Output.printJSON(
                .object([
                    "file": .string(output.path), "width": .number(Double(result.width)),
                    "height": .number(Double(result.height)), "format": .string(result.format.rawValue),
                    "frames": .number(Double(result.frames)), "fps": .number(Double(result.framesPerSecond)),
                    "motion": .string(live.motion.rawValue),
                ]))
        } else {
            Output.print(
                "Wrote \(output.path) (a live sticker, \(live.motion.rawValue): \(result.width) × \(result.height) "
                    + "\(result.format.rawValue.uppercased()), \(result.frames) frames at \(result.framesPerSecond) fps, looping)"
            )
        }
    }

    /// `collage sticker a.jpg b.jpg --output-dir DIR`: one model load, a sticker per photo, each
    /// timed (the time a warm model takes per photo, which the benchmark reads).
    static func runBatch(_ photos: [String], into directory: URL, _ arguments: ParsedArguments) throws(Failure) {
        if arguments.has("--mask-only") { throw .usage("--mask-only writes one file: give one photo and -o") }
        // Options a batch would otherwise pass over without a word (live stills came out full size).
        for name in ["-o", "--output", "--live", "--duration", "--size", "--fps"] where arguments.value(name) != nil {
            throw .usage("\(name) goes with one photo and -o; --output-dir writes a still sticker for each photo")
        }
        let format: OutputFormat
        switch arguments.value("--format")?.lowercased() {
        case nil, "png": format = .png
        case "webp": format = .webp
        case let other?: throw .usage("--format expects png or webp, got \"\(other)\"")
        }
        let request = try stickerRequest(arguments)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw .cannotCreate(
                "\(directory.path) is a file, not a folder: --output-dir names a folder for the stickers")
        }
        let model = try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments))
        var options = StickerRequest.FileOptions()
        options.refine = !arguments.has("--no-refine")
        options.cleanEdges = try cleanEdges(arguments)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreate("\(directory.path): \(error.localizedDescription)")
        }
        var results: [JSONValue] = []
        var failures = 0
        for (path, output) in zip(photos, batchOutputs(photos, in: directory, fileExtension: format.rawValue)) {
            let photo = URL(fileURLWithPath: path)
            let started = Date()
            do throws(Failure) {
                let sticker = try request.lift(file: photo, model: model, to: output, format: format, options: options)
                let (x, y) = (sticker.x, sticker.y)
                let milliseconds = Date().timeIntervalSince(started) * 1000
                results.append(
                    .object([
                        "photo": .string(photo.path), "file": .string(output.path),
                        "width": .number(Double(sticker.width)), "height": .number(Double(sticker.height)),
                        "x": .number(Double(x)), "y": .number(Double(y)),
                        "milliseconds": .number((milliseconds * 10).rounded() / 10),
                    ]))
                if !arguments.has("--json") {
                    Output.print("Wrote \(output.path) (\(sticker.width) × \(sticker.height))")
                }
                if let note = smallStickerNote(width: sticker.width, height: sticker.height, name: output.path) {
                    Output.printError(note)
                }
            } catch {
                failures += 1
                // Named, for a message of the lift's own ("there is no subject 2") does not say
                // which of the photos it was.
                let text = error.commandLineText
                let named = text.contains(photo.path) || text.contains(path) ? text : "\(path): \(text)"
                results.append(.object(["photo": .string(photo.path), "error": .string(named)]))
                Output.printError("collage: \(named)")
            }
        }
        if arguments.has("--json") { Output.printJSON(.array(results)) }
        if failures > 0 { throw .data("\(failures) of \(photos.count) photos gave no sticker") }
    }

    /// Each photo's sticker file in `directory`: its name with `.png` (or `fileExtension`), a
    /// number added when an earlier photo of the run has that name (`a/photo.png` and
    /// `b/photo.jpg` wrote one file, the second sticker over the first), and `-sticker` when it
    /// would be one of the photos.
    static func batchOutputs(_ photos: [String], in directory: URL, fileExtension: String = "png") -> [URL] {
        let inputs = Set(photos.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        var taken = Set<String>()
        func isPhoto(_ name: String) -> Bool {
            inputs.contains(directory.appendingPathComponent(name).standardizedFileURL.path)
        }
        return photos.map { path in
            var base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            if isPhoto(base + "." + fileExtension) { base += "-sticker" }
            var name = base + "." + fileExtension
            var number = 2
            while taken.contains(name) || isPhoto(name) {
                name = "\(base)-\(number).\(fileExtension)"
                number += 1
            }
            taken.insert(name)
            return directory.appendingPathComponent(name)
        }
    }

    /// `collage sticker PHOTO-ID`: the sticker goes into the library.
    static func runOnLibraryPhoto(_ photoID: String, _ arguments: ParsedArguments) throws(Failure) {
        if arguments.has("--mask-only") { throw .usage("--mask-only writes a file: give a photo file and -o") }
        let request = try stickerRequest(arguments)
        // The model first: a missing one must not leave a new, empty library behind.
        let model = try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments))
        let workspace = try LibraryAccess.open(arguments).with(model: model)
        let record: StickerRecord
        do {
            record = try workspace.lift(request, photo: photoID, refine: !arguments.has("--no-refine"))
        } catch  where error.kind == .notFound && photoID.contains(".") {
            // Photo ids are hexadecimal: a name with a dot was meant as a file.
            throw Failure(.notFound, "\(photoID): no such file (nor a library photo with that id)")
        }
        if let copy = arguments.value("-o") ?? arguments.value("--output") {
            do {
                try FileManager.default.copyItem(at: workspace.stickerImage(of: record), to: URL(fileURLWithPath: copy))
            } catch {
                throw .cannotCreate("\(copy): \(error.localizedDescription)")
            }
        }
        if arguments.has("--json") {
            Output.printJSON(
                .object([
                    "id": .string(record.id), "photo": .string(record.photoID),
                    "width": .number(Double(record.width)), "height": .number(Double(record.height)),
                    "file": .string(workspace.stickerImage(of: record).path),
                ]))
        } else {
            Output.print(record.id)
        }
    }

    /// The cut line asked for with `--cut-line` (`--outline` then asks for white out to it).
    static func cutLineRequest(_ arguments: ParsedArguments) throws(Failure) -> CutLineRequest? {
        guard arguments.value("--cut-line") != nil else {
            if arguments.value("--offset") != nil || arguments.value("--dpi") != nil {
                throw .usage("--offset and --dpi go with --cut-line FILE")
            }
            return nil
        }
        return try CutLineRequest(
            offset: arguments.value("--offset").map { text throws(Failure) in
                try SheetRequest.millimetres(text, field: "offset")
            },
            dotsPerInch: arguments.value("--dpi").map { text throws(Failure) in try SheetRequest.dotsPerInch(text) },
            whiteBacking: arguments.value("--outline") != nil)
    }

    /// Whether the sticker's edge is cleaned: the default, unless `--plain-edges` asks for the model's own.
    static func cleanEdges(_ arguments: ParsedArguments) throws(Failure) -> Bool {
        if arguments.has("--plain-edges"), arguments.has("--clean-edges") {
            throw .usage("choose --clean-edges (the default) or --plain-edges, not both")
        }
        return !arguments.has("--plain-edges")
    }

    /// The sticker flags, read and checked by CollageKit as the API's fields are; without
    /// `outline`, `--outline` is left to the cut line.
    static func stickerRequest(_ arguments: ParsedArguments, outline: Bool = true) throws(Failure) -> StickerRequest {
        do {
            return try StickerRequest(
                instance: arguments.value("--instance").map { text throws(Failure) in
                    try StickerRequest.number(text, for: "instance")
                },
                point: arguments.value("--at").map { text throws(Failure) in try StickerRequest.pixelPoint(text) },
                outline: (outline ? arguments.value("--outline") : nil).map { text throws(Failure) in
                    try StickerRequest.number(text, for: "outline")
                },
                shadow: arguments.has("--shadow"), effect: arguments.value("--effect"),
                edges: try cleanEdges(arguments) ? "clean" : "plain")
        } catch {
            throw error
        }
    }
}
