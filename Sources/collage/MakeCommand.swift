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
            "--layout ID [--aspect W:H] [--size PX | --scale N | --print WxHin@DPI] [style options] photo… -o out.jpg",
        options: [
            .value(
                "--layout", "ID", "The template (see 'collage templates'; premium ones need a licence); default grid2x2"
            ),
            .value(
                "--aspect", "W:H",
                "Canvas shape: 1:1, 4:5, 16:9, a preset such as a4 (default 1:1, or the print's shape)"),
            .value("--spacing", "PT", "Points between photos (default 12)"),
            .value("--padding", "PT", "Points between the edge and the photos (default 12)"),
            .value("--radius", "PT", "Corner radius of each photo in points (default 0)"),
            .value("--background", "COLOR", "#rrggbb, #rrggbbaa or transparent (default #ffffff)"),
            .value("--title", "TEXT", "A title for the collage (used with --save-document)"),
            .value("--save-document", "FILE", "Also write the collage as a JSON document"),
            .flag("--json", "Print what was written as JSON"),
        ] + OutputArguments.specs + SmartCropArguments.specs,
        discussion: """
            Photos fill the layout's slots in order, each cropped to fill its slot around its subject
            (found by the subject model, when installed) or else its centre; photos beyond the slot
            count are placed free in the middle (and a note says so).
            The canvas has a long side of 1,200 points, so the default --scale 3 gives 3,600 pixels.

            Examples:
              collage make --layout magazine --aspect 4:5 a.jpg b.jpg c.jpg -o trip.jpg
              collage make --layout grid2x2 --print 6x4in@300 --radius 8 *.jpg -o print.jpg
              collage make --layout strip --background transparent a.png b.png c.png -o strip.png
            """,
        positionals: 1...Int.max
    )

    static func run(_ arguments: ParsedArguments) throws(CLIError) {
        let output = try OutputArguments.parse(arguments)
        let model = try SmartCropArguments.model(arguments)
        let layout = arguments.value("--layout") ?? "grid2x2"
        guard let template = Template.named(layout) else {
            throw .usage(
                "--layout expects a template id, got \"\(layout)\"; one of: "
                    + Template.catalog.map(\.id).joined(separator: ", "))
        }
        do throws(Failure) {
            try PremiumAccess(store: .standard()).check(applying: template)
        } catch {
            throw error.cliError
        }
        var aspect = try arguments.value("--aspect", expected: "W:H such as 4:5, or a preset such as a4") { text in
            AspectRatio(parsingOrPreset: text)
        }
        if aspect == nil, case .print(let print) = output.options.size { aspect = print.aspectRatio }
        let canvas = (aspect ?? AspectRatio(width: 1, height: 1))?.canvasSize() ?? Size(width: 1200, height: 1200)
        let length: (String) -> Double? = { Double($0).flatMap { $0 >= 0 && $0 <= Style.maximumLength ? $0 : nil } }
        let expected = "a number of points from 0 to \(Int(Style.maximumLength))"
        var style = Style()
        style.spacing = try arguments.value("--spacing", expected: expected, length) ?? style.spacing
        style.padding = try arguments.value("--padding", expected: expected, length) ?? style.padding
        style.cornerRadius = try arguments.value("--radius", expected: expected, length) ?? style.cornerRadius
        style.background =
            try arguments.value("--background", expected: "#rrggbb, #rrggbbaa or transparent", Color.init(parsing:))
            ?? style.background

        var collage = Collage(
            id: UUID().uuidString.lowercased(), title: arguments.value("--title") ?? "Collage", created: Date(),
            canvas: canvas, templateID: template.id)
        do {
            collage = try collage.applying(.setStyle(style))
            for (index, photo) in arguments.positionals.enumerated() {
                let path = URL(fileURLWithPath: photo).standardizedFileURL.path
                collage = try collage.applying(.addItem(id: "photo\(index + 1)", content: .photo(path), frame: nil))
            }
        } catch {
            throw .usage(error.description)
        }
        let extra = arguments.positionals.count - template.slotCount
        if extra > 0 {
            Output.printError(
                "collage: note: \(template.id) has \(template.slotCount) slots; \(extra) more photo\(extra == 1 ? " was" : "s were") placed free in the middle"
            )
        }
        if let documentPath = arguments.value("--save-document") {
            do {
                try CollageDocument.encode(collage).write(to: URL(fileURLWithPath: documentPath), options: .atomic)
            } catch {
                throw .cannotCreate("\(documentPath): \(error.localizedDescription)")
            }
        }
        try renderAndReport(
            collage,
            photos: DirectoryPhotoSource(baseDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)),
            model: model, output: output, json: arguments.has("--json"))
    }
}
