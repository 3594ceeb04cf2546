import CollageCore
import CollageKit
import CollageLicence

/// `collage templates`: the layouts, and their frames on a given canvas.
enum TemplatesCommand: Command {
    static let spec = CommandSpec(
        name: "templates",
        abstract: "List the layouts, with slot frames for a canvas",
        usage: "[--json] [--canvas WxH | --canvas PRESET] [--spacing S] [--padding P]",
        options: [
            .flag("--json", "Print JSON instead of a table"),
            .value(
                "--canvas", "WxH",
                "Also print each template's slot frames on this canvas (points, or a preset: 4:5, a4)"),
            .value("--spacing", "S", "Points between slots (default 12)"),
            .value("--padding", "P", "Points between the canvas edge and the slots (default 12)"),
        ],
        discussion: """
            Canvas presets: \(CanvasPreset.all.map(\.id).joined(separator: ", ")) (long side \
            \(Int(CanvasPreset.defaultLongSide)) points).

            Examples:
              collage templates
              collage templates --canvas 400x400 --spacing 4 --padding 4
              collage templates --json --canvas 4:5
            """
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let canvas = try arguments.value(
            "--canvas", expected: "WxH in points (e.g. 1200x1500) or a preset", parseCanvas)
        let nonNegative = "a number of points ≥ 0 and at most \(Int(Style.maximumLength))"
        let parseLength: (String) -> Double? = { text in
            Double(decimal: text).flatMap { $0 >= 0 && $0 <= Style.maximumLength ? $0 : nil }
        }
        let spacing = try arguments.value("--spacing", expected: nonNegative, parseLength) ?? Style().spacing
        let padding = try arguments.value("--padding", expected: nonNegative, parseLength) ?? Style().padding
        if canvas == nil, arguments.value("--spacing") != nil || arguments.value("--padding") != nil {
            throw .usage("--spacing and --padding only apply with --canvas")
        }
        let frames = { (template: Template) -> [Rect]? in
            canvas.map { template.frames(in: $0, spacing: spacing, padding: padding) }
        }
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    Template.catalog.map { template in
                        var members: [String: JSONValue] = [
                            "id": .string(template.id), "name": .string(template.name),
                            "symbol": .string(template.symbol), "slots": .number(Double(template.slotCount)),
                            "premium": .bool(template.isPremium),
                        ]
                        if let frames = frames(template) {
                            members["frames"] = .array(frames.map { CollageDocument.jsonValue(of: $0) })
                        }
                        return .object(members)
                    }))
            return
        }
        var rows = [["ID", "NAME", "SLOTS", "TIER"]]
        for template in Template.catalog {
            rows.append([template.id, template.name, "\(template.slotCount)", template.isPremium ? "premium" : "free"])
        }
        guard let canvas else {
            Output.print(Output.table(rows))
            Output.print(
                LicenceStore.standard().licence.map { "\nPremium layouts are unlocked (licensed to \($0.licensee))." }
                    ?? "\nPremium layouts need \(LicenceKey.productName): 'collage licence add KEY' unlocks them.")
            return
        }
        Output.print(
            "Frames on a \(format(canvas.width)) × \(format(canvas.height)) canvas, spacing \(format(spacing)), "
                + "padding \(format(padding)) (x, y, width × height in points):")
        for template in Template.catalog {
            Output.print("\n\(template.id) — \(template.name) (\(template.isPremium ? "premium" : "free"))")
            for (slot, frame) in (frames(template) ?? []).enumerated() {
                Output.print(
                    "  \(slot + 1). (\(format(frame.x)), \(format(frame.y)), "
                        + "\(format(frame.width)) × \(format(frame.height)))")
            }
        }
    }

    /// `1200x1500` in points, or a preset id such as `4:5` or `a4`.
    static func parseCanvas(_ text: String) -> Size? {
        if let preset = CanvasPreset.named(text) { return preset.canvasSize }
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Double(decimal: parts[0]), let height = Double(decimal: parts[1]),
            width > 0, height > 0, width <= CollageDocument.maximumCanvasSide,
            height <= CollageDocument.maximumCanvasSide
        else { return nil }
        return Size(width: width, height: height)
    }

    private static func format(_ value: Double) -> String {
        JSONValue.format((value * 100).rounded() / 100)
    }
}
