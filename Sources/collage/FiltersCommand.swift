import CollageCore
import CollageKit

/// `collage filters`: the named looks a photo can take.
enum FiltersCommand: Command {
    static let spec = CommandSpec(
        name: "filters",
        abstract: "List the photo filters",
        usage: "[--json]",
        options: [.flag("--json", "Print JSON (id, name and what each adjusts) instead of a table")],
        discussion: """
            A filter is a recipe of adjustments and tone curves, applied at a strength from 0 to 1.
            Use one with 'collage make --filter film' (or --filter film:0.6), in a document's item
            "look": {"filter": {"id": "film", "strength": 0.6}}, or from the editor's Adjust tab.
            """
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        func changes(_ filter: Filter) -> [(String, Double)] {
            Adjustments.fields.compactMap { field in
                let value = filter.adjustments[keyPath: field.keyPath]
                return value == 0 ? nil : (field.name, value)
            }
        }
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    Filter.catalog.map { filter in
                        .object([
                            "id": .string(filter.id), "name": .string(filter.name),
                            "adjustments": .object(
                                Dictionary(uniqueKeysWithValues: changes(filter).map { ($0.0, .number($0.1)) })),
                            "curves": .bool(filter.curves.contains { $0 != .identity }),
                        ])
                    }))
            return
        }
        var rows = [["ID", "NAME", "ADJUSTS"]]
        for filter in Filter.catalog {
            var adjusts = changes(filter).map { "\($0.0) \($0.1 > 0 ? "+" : "")\(JSONValue.format($0.1))" }
            if filter.curves.contains(where: { $0 != .identity }) { adjusts.append("tone curves") }
            rows.append([filter.id, filter.name, adjusts.joined(separator: ", ")])
        }
        Output.print(Output.table(rows))
    }
}
