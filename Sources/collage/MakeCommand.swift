import CollageCore
import CollageKit
import CollageLicence
import CollageRender
import Foundation

/// `collage make`: photos + a layout → an image, in one step, with no library.
enum MakeCommand: Command {
    static let spec = CommandSpec(
        name: "make",
        abstract: "Make a collage image from photos and a layout in one step",
        usage:
            "[--layout ID] [--aspect W:H] [--size PX | --scale N | --print WxHin@DPI] [style options] photo… -o out.jpg",
        options: [
            .value(
                "--layout", "ID",
                "The template (see 'collage templates'; premium ones need a licence), or auto (the default): "
                    + "a layout made for the photos"),
            .value(
                "--aspect", "W:H",
                "Canvas shape: 1:1, 4:5, 16:9, a preset such as a4 (default: the print's shape; else, laid out for "
                    + "the photos, the shape they fill best, one photo's own; else 1:1)"),
            .value("--spacing", "PT", "Points between photos (default 12)"),
            .value("--padding", "PT", "Points between the edge and the photos (default 12)"),
            .value("--radius", "PT", "Corner radius of each photo in points (default 0)"),
            .value(
                "--filter", "ID[:STRENGTH]",
                "A filter on every photo ('collage filters' lists them), at a strength from 0 to 1 (default 1)"),
            .flag(
                "--auto-enhance",
                "Set each photo's exposure and white balance from its own pixels (as the editor's Auto does)"),
            .value(
                "--shape", "ID",
                "Cut every photo to a shape ('collage shapes' lists them): heart, circle, star, …; "
                    + "default the layout's own (rectangles, or hearts in the hearts layout)"),
            .value(
                "--background", "FILL",
                "#rrggbb, #rrggbbaa, transparent, 'linear-gradient(135deg, #ff9a9e, #fad0c4)', "
                    + "'radial-gradient(#fff, #b8c6db)', 'dots(#264d3b, #f6f1e7, 24)' (or stripes, grid, checks), "
                    + "'paper(kraft)' (or linen, watercolour), 'photo(beach.jpg, 24)' (a photo blurred by 24 pt); "
                    + "default #ffffff"),
            .value(
                "--title", "TEXT",
                "A title on the collage: centred near the bottom (or top or middle, off the photos' subjects), on a white pill (also the document's title)"
            ),
            .value(
                "--title-font", "FAMILY",
                "The title's font (default Inter): \(TextFont.catalog.map(\.family).joined(separator: ", "))"),
            .value("--save-document", "FILE", "Also write the collage as a JSON document"),
            .flag("--json", "Print what was written as JSON"),
        ] + AutoLayoutArguments.specs + OutputArguments.specs + SmartCropArguments.specs,
        discussion: """
            Photos fill the layout's slots in order, each cropped to fill its slot around its subject
            (found by the subject model, when installed) or else its centre; photos beyond the slot
            count are placed free in the middle (and a note says so, as it does when a frame cuts
            away more than half of a photo: landscape photos in a strip).
            The canvas has a long side of 1,200 points, so the default --scale 3 gives 3,600 pixels.

            --layout auto (the default) makes a layout for these photos: each keeps its shape (cropped
            by at most --max-crop so the canvas fills exactly), the gaps are exactly --spacing and the
            margins --padding, photos read in order from the top left, and --seed N walks through
            alternatives. With no --aspect or --print its canvas takes the shape the photos fill best
            (one photo's own shape).

            Examples:
              collage make a.jpg b.jpg c.jpg -o trip.jpg
              collage make --layout grid2x3 --aspect 4:5 a.jpg b.jpg c.jpg d.jpg e.jpg f.jpg -o trip.jpg
              collage make --layout magazine a.jpg b.jpg c.jpg -o trip.jpg   (a premium layout)
              collage make --layout auto --aspect 16:9 --hero 1 *.jpg -o wall.jpg
              collage make --layout grid2x2 --print 6x4in@300 --radius 8 *.jpg -o print.jpg
              collage make --layout strip --background transparent a.png b.png c.png -o strip.png
              collage make --layout grid2x2 --background 'linear-gradient(135deg, #ff9a9e, #fad0c4)' *.jpg -o pink.jpg
              collage make --layout auto --background 'paper(kraft)' --padding 60 *.jpg -o scrapbook.jpg
              collage make --layout grid2x2 --filter film:0.8 *.jpg -o film.jpg
              collage make --layout auto --title "Summer 2026" --title-font "Lobster Two" *.jpg -o summer.jpg
            """,
        positionals: 1...Int.max
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let output = try OutputArguments.parse(arguments)
        try OutputGuard.refuseOverwriting(arguments.positionals, with: output.file, what: "the collage")
        if let documentPath = arguments.value("--save-document") {
            try OutputGuard.refuseOverwriting(
                arguments.positionals + [output.file.path], with: URL(fileURLWithPath: documentPath),
                flag: "--save-document", what: "the document")
        }
        let model = try SmartCropArguments.model(arguments)
        let most = AutoLayout.Options.maximumPhotos
        if arguments.value("--layout") == nil, arguments.positionals.count > most {
            // A 2 × 2 grid with the rest piled free in the middle is no collage to make unasked.
            throw .usage(
                "at most \(most) photos are laid out for their shapes (the default layout), got "
                    + "\(arguments.positionals.count): give --layout with a template (grid4x4 holds 16, and more "
                    + "photos are placed free), or fewer photos")
        }
        let layout = AutoLayoutArguments.layout(arguments, photos: arguments.positionals.count)
        let template = Template.named(layout)
        if template == nil, layout != autoLayout {
            throw .usage(
                "--layout expects a template id or auto, got \"\(layout)\"; one of: "
                    + (Template.catalog.map(\.id) + [autoLayout]).joined(separator: ", "))
        }
        let autoOptions = try autoLayoutOptions(arguments, photos: arguments.positionals.count, auto: template == nil)
        if let template {
            do throws(Failure) {
                try PremiumAccess(store: .standard()).check(applying: template)
            } catch {
                throw error
            }
        }
        var aspect = try arguments.value(
            "--aspect", expected: "W:H such as 4:5 (from 1:20 to 20:1), or a preset such as a4"
        ) { text in
            AspectRatio(parsingOrPreset: text)
        }
        if aspect == nil, case .print(let print) = output.options.size { aspect = print.aspectRatio }
        let shapeGiven = aspect != nil
        let length: (String) -> Double? = {
            Double(decimal: $0).flatMap { $0 >= 0 && $0 <= Style.maximumLength ? $0 : nil }
        }
        let expected = "a number of points from 0 to \(Int(Style.maximumLength))"
        var style = Style()
        style.spacing = try arguments.value("--spacing", expected: expected, length) ?? style.spacing
        style.padding = try arguments.value("--padding", expected: expected, length) ?? style.padding
        style.cornerRadius = try arguments.value("--radius", expected: expected, length) ?? style.cornerRadius
        if let text = arguments.value("--background") {
            do {
                style.background = try Background(parsing: text)
                // A photo background's file is named from here, as the photos are.
                if case .photo(let reference, let blur) = style.background {
                    style.background = .photo(
                        reference: URL(fileURLWithPath: reference).standardizedFileURL.path, blur: blur)
                }
            } catch {
                throw .usage(
                    "--background expects a colour, a gradient, a pattern, a paper or a photo: \(error.description)")
            }
        }
        // Said by its option: "no such file" alone named no flag.
        if case .photo(let path, _) = style.background, !FileManager.default.fileExists(atPath: path) {
            throw .noInput("--background: \(path): no such file")
        }

        var filter: FilterChoice?
        if let text = arguments.value("--filter") {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            var choice = FilterChoice(id: parts.first?.lowercased() ?? "")
            if parts.count == 2 {
                guard let strength = Double(decimal: parts[1]) else {
                    throw .usage("--filter expects ID or ID:STRENGTH (0 to 1), got \"\(text.prefix(60))\"")
                }
                choice.strength = strength
            }
            if let problem = choice.problem { throw .usage("--filter: \(problem)") }
            filter = choice
        }

        var shape: PhotoShape?
        if let text = arguments.value("--shape") {
            guard let named = PhotoShape.named(text) else {
                throw .usage("--shape expects one of \(PhotoShape.idList), got \"\(text.prefix(60))\"")
            }
            shape = named
        }

        let paths = arguments.positionals.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        var enhancements: [Adjustments]?
        if arguments.has("--auto-enhance") {
            do throws(RenderError) {
                enhancements = try paths.map { path throws(RenderError) in
                    try CollageRenderer().autoEnhancement(for: URL(fileURLWithPath: path))
                }
            } catch {
                throw error.failure
            }
        }

        var canvas = (aspect ?? AspectRatio(width: 1, height: 1))?.canvasSize() ?? Size(width: 1200, height: 1200)
        var frames: [Rect?] = paths.map { _ in nil }
        if let autoOptions {
            let sizes = try photoSizes(of: paths)
            let aspects = sizes.map { $0.width / $0.height }
            if !shapeGiven { canvas = bestCanvas(for: aspects, style: style, options: autoOptions) ?? canvas }
            frames = try arrange(
                aspects, pixelCounts: sizes.map { $0.width * $0.height }, canvas: canvas, style: style,
                options: autoOptions)
        }
        var collage = Collage(
            id: UUID().uuidString.lowercased(), title: arguments.value("--title") ?? "Collage", created: Date(),
            canvas: canvas, templateID: template?.id)
        do {
            collage = try collage.applying(.setStyle(style))
            for (index, (path, frame)) in zip(paths, frames).enumerated() {
                let id = "photo\(index + 1)"
                collage = try collage.applying(.addItem(id: id, content: .photo(path), frame: frame))
                if filter != nil || shape != nil || enhancements != nil, var look = collage.item(id)?.look {
                    look.filter = filter ?? look.filter
                    look.shape = shape ?? look.shape
                    look.adjustments = enhancements?[index] ?? look.adjustments
                    collage = try collage.applying(.setLook(id: id, look: look))
                }
            }
        } catch {
            throw .usage(error.description)
        }
        if let title = arguments.value("--title") {
            do throws(Failure) {
                collage = try TitleOverlay.adding(
                    title, font: arguments.value("--title-font"), to: collage,
                    avoiding: subjectPoints(of: collage, model: model))
            } catch {
                throw error
            }
        } else if arguments.value("--title-font") != nil {
            throw .usage("--title-font sets the font of --title; give a --title too")
        }
        if let autoOptions {
            // The saved document can make the same layout again, or the next one.
            collage.arrangement = Arrangement(
                seed: autoOptions.seed, hero: autoOptions.hero.map { "photo\($0 + 1)" },
                maximumCrop: autoOptions.maximumCrop, keepsOrder: autoOptions.keepsOrder)
        }
        let extra = arguments.positionals.count - (template?.slotCount ?? Int.max)
        if let template, extra < 0 {
            // Said, as too many photos are: half a print left blank was a surprise.
            let empty = -extra
            Output.printError(
                "collage: note: \(template.id) has \(template.slotCount) slots; \(empty) \(empty == 1 ? "is" : "are") left "
                    + "empty, showing the background (give more photos, or --layout auto to lay out just these)")
        }
        if let template, extra > 0 {
            Output.printError(
                "collage: note: \(template.id) has \(template.slotCount) slots; \(extra) more photo\(extra == 1 ? " was" : "s were") placed free in the middle"
            )
        }
        if let template, let note = heavyCropNote(collage, template: template, paths: paths) {
            Output.printError(note)
        }
        if let documentPath = arguments.value("--save-document") {
            let document = try OutputGuard.target(URL(fileURLWithPath: documentPath))
            let folder = document.deletingLastPathComponent()
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw .cannotCreate("\(documentPath): the folder \(folder.path) does not exist")
            }
            do {
                try CollageDocument.encode(collage).write(to: document, options: .atomic)
            } catch {
                throw .cannotCreate("\(documentPath): \(error.localizedDescription)")
            }
        }
        try renderAndReport(
            collage,
            photos: DirectoryPhotoSource(baseDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)),
            model: model, output: output, json: arguments.has("--json"))
    }

    /// The `--layout` value that makes a layout for the photos given (``AutoLayout``).
    static let autoLayout = "auto"

    /// The search's options from `--seed`, `--hero` and `--max-crop`, for the photos given.
    static func autoLayoutOptions(
        _ arguments: ParsedArguments, photos: Int, auto: Bool
    ) throws(Failure) -> AutoLayout.Options? {
        guard let values = try AutoLayoutArguments.parse(arguments, auto: auto) else { return nil }
        guard photos <= AutoLayout.Options.maximumPhotos else {
            throw .usage("--layout auto arranges at most \(AutoLayout.Options.maximumPhotos) photos, got \(photos)")
        }
        if let hero = values.hero, hero > photos {
            throw .usage("--hero expects the number of one of the photos, 1 to \(photos), got \(hero)")
        }
        return AutoLayout.Options(
            seed: UInt64(values.seed ?? 0), hero: values.hero.map { $0 - 1 },
            maximumCrop: values.maximumCrop ?? AutoLayout.Options.defaultMaximumCrop, keepsOrder: !values.anyOrder)
    }

    /// Each photo's width ÷ height, as it displays (only each file's header is read).
    /// Where each photo's subject lies on the canvas (the point its crop centres on, through
    /// the crop), for the title to keep clear of; none without the subject model.
    static func subjectPoints(of collage: Collage, model: SubjectModel?) -> [Point] {
        guard let model else { return [] }
        let photos = Workspace.subjectCropped(
            DirectoryPhotoSource(baseDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)),
            model: model)
        var points: [Point] = []
        for item in collage.items {
            guard case .photo = item.content, let file = try? photos.file(for: item.content),
                let focus = photos.automaticFocus(for: item.content, file: file),
                let info = try? ImageFiles.inspect(file)
            else { continue }
            let size = Size(width: Double(info.width), height: Double(info.height))
            let source = CropMath.sourceRect(
                imageSize: size, frameSize: item.frame.size, crop: item.crop ?? Crop(focus: focus, zoom: 1))
            guard source.width > 0, source.height > 0 else { continue }
            let point = Point(
                x: item.frame.x + (focus.x * size.width - source.x) / source.width * item.frame.width,
                y: item.frame.y + (focus.y * size.height - source.y) / source.height * item.frame.height)
            if item.frame.contains(point) { points.append(point) }
        }
        return points
    }

    /// Each photo's size as it shows (EXIF orientation applied), read from the files' headers.
    static func photoSizes(of paths: [String]) throws(Failure) -> [Size] {
        var sizes: [Size] = []
        for path in paths {
            do {
                let info = try ImageFiles.inspect(URL(fileURLWithPath: path))
                sizes.append(Size(width: Double(info.width), height: Double(info.height)))
            } catch {
                throw error.failure
            }
        }
        return sizes
    }

    static func aspectRatios(of paths: [String]) throws(Failure) -> [Double] {
        try photoSizes(of: paths).map { $0.width / $0.height }
    }

    /// A note when a template's frames cut away more than half of some photos' pictures (three
    /// landscape photos in `strip` lose three quarters each, which was said nowhere), naming how
    /// many and the worst share; `nil` when none loses that much or a photo cannot be read (its
    /// error comes when the collage is drawn).
    static func heavyCropNote(_ collage: Collage, template: Template, paths: [String]) -> String? {
        guard let aspects = try? aspectRatios(of: paths) else { return nil }
        var losses: [Double] = []
        for (index, aspect) in aspects.enumerated() {
            guard let item = collage.item("photo\(index + 1)"), item.slot != nil, item.frame.height > 0, aspect > 0
            else { continue }
            let frame = item.frame.width / item.frame.height
            let kept = min(aspect, frame) / max(aspect, frame)
            if kept < 0.5 { losses.append(1 - kept) }
        }
        guard let worst = losses.max() else { return nil }
        let count = losses.count == 1 ? "a photo" : "\(losses.count) photos"
        return "collage: note: \(template.id) cuts away more than half of \(count) to fill its frames (up to "
            + "\(Int((worst * 100).rounded())) %); --layout auto lays photos out keeping their shapes"
    }

    /// The canvas shapes a layout made for the photos may take when no shape is asked for: the
    /// screen's and the prints' usual ones.
    static let canvasShapes: [AspectRatio] = ["1:1", "4:5", "5:4", "3:4", "4:3", "2:3", "3:2", "9:16", "16:9"]
        .compactMap { AspectRatio(parsing: $0) }

    /// The canvas photos of `aspects` fill best, laid out for their shapes: one photo's own
    /// shape, or of ``canvasShapes`` the one that leaves the least background and crops the
    /// least, the squarest among equals. Two landscape photos on the square stood between two
    /// bands of background a seventh of its width each. A shape turned as most of the photos
    /// are wins over the others when it costs at most two per cent more: a per cent of crop is
    /// not seen, and four landscape photos came out on a tall 9:16 canvas with the default margins
    /// and on a 4:3 one with wider ones. `nil` when no shape takes them.
    static func bestCanvas(for aspects: [Double], style: Style, options: AutoLayout.Options) -> Size? {
        if aspects.count == 1, let own = aspects.first.flatMap({ AspectRatio(width: $0, height: 1) }) {
            return own.canvasSize()
        }
        let candidates = canvasShapes.compactMap { shape -> (cost: Double, canvas: Size)? in
            let canvas = shape.canvasSize()
            guard
                let result = try? AutoLayout.arrange(
                    aspectRatios: aspects, canvas: canvas, spacing: style.spacing, padding: style.padding,
                    options: options)
            else { return nil }
            let cropped = result.cropLoss.reduce(0, +) / Double(max(1, result.cropLoss.count))
            return (result.emptyShare + cropped, canvas)
        }
        guard let least = candidates.map(\.cost).min() else { return nil }
        // Landscape (1), portrait (-1) or square (0), for a canvas and for most of the photos.
        func way(_ ratio: Double) -> Int { ratio > 1.01 ? 1 : ratio < 0.99 ? -1 : 0 }
        let photosWay = aspects.reduce(0) { $0 + way($1) }.signum()
        let along = candidates.filter {
            photosWay != 0 && way($0.canvas.width / $0.canvas.height) == photosWay && $0.cost <= least + 0.02
        }
        // Half a per cent of background or crop is no reason to leave the square.
        func rank(_ candidate: (cost: Double, canvas: Size)) -> (Double, Double) {
            ((candidate.cost * 200).rounded() / 200, abs(log(candidate.canvas.width / candidate.canvas.height)))
        }
        return (along.isEmpty ? candidates : along).min { rank($0) < rank($1) }?.canvas
    }

    /// Frames for photos of `aspects`, made for their shapes.
    static func arrange(
        _ aspects: [Double], pixelCounts: [Double]? = nil, canvas: Size, style: Style, options: AutoLayout.Options
    ) throws(Failure) -> [Rect?] {
        do {
            return try AutoLayout.arrange(
                aspectRatios: aspects, pixelCounts: pixelCounts, canvas: canvas, spacing: style.spacing,
                padding: style.padding, options: options
            ).frames
        } catch {
            throw .usage(error.description)
        }
    }
}
