import CollageCore
import CollageKit

/// `collage shapes`: the outlines a photo can be cut to.
enum ShapesCommand: Command {
    static let spec = CommandSpec(
        name: "shapes",
        abstract: "List the shapes a photo can be cut to",
        usage: "[--json]",
        options: [.flag("--json", "Print JSON (id, name, whether it keeps its proportions) instead of a table")],
        discussion: """
            A shape cuts a photo inside its frame; clicks land only inside it. Use one with
            'collage make --shape heart', in a document's item "look": {"shape": "heart"}, from the
            editor's Frame tab, or with a layout that has them (hearts, bubbles). A shape that keeps
            its proportions stays centred in a frame of another shape; the others stretch to fill it.
            """
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    PhotoShape.allCases.map { shape in
                        .object([
                            "id": .string(shape.rawValue), "name": .string(shape.name),
                            "keepsProportions": .bool(shape.keepsProportions),
                        ])
                    }))
            return
        }
        var rows = [["ID", "NAME", "IN A FRAME OF ANOTHER SHAPE"]]
        for shape in PhotoShape.allCases {
            rows.append([shape.rawValue, shape.name, shape.keepsProportions ? "keeps its proportions" : "stretches"])
        }
        Output.print(Output.table(rows))
    }
}
