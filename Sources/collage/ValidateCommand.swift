import CollageCore
import CollageKit
import Foundation

/// `collage validate`: checks a collage document and lists every problem with its path.
enum ValidateCommand: Command {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check a collage document (JSON) and list every problem",
        usage: "[--json] doc.json",
        options: [.flag("--json", "Print {\"valid\": …, \"errors\": [{\"path\", \"message\"}]} instead of text")],
        discussion: """
            Prints each problem as PATH: MESSAGE, e.g.
              items[2].frame.width: expected a number > 0, got -5
            Exits 0 when the document is valid, 65 when it is not, 66 when it cannot be read.
            Examples of valid documents are in the repository's Examples/ folder.
            """,
        positionals: 1...1
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let path = arguments.positionals[0]
        let data = try readInput(path)
        let issues: [DocumentIssue]
        var summary = ""
        do {
            let collage = try CollageDocument.decode(data)
            issues = []
            summary =
                "\(collage.items.count) item\(collage.items.count == 1 ? "" : "s")"
                + (collage.templateID.map { ", template \($0)" } ?? "")
        } catch {
            issues = error.issues
        }
        if arguments.has("--json") {
            Output.printJSON(
                .object([
                    "valid": .bool(issues.isEmpty),
                    "errors": .array(
                        issues.map { .object(["path": .string($0.path), "message": .string($0.message)]) }),
                ]))
        } else if issues.isEmpty {
            Output.print("\(path): valid (\(summary))")
        } else {
            for issue in issues { Output.printError("\(path): \(issue)") }
        }
        if !issues.isEmpty {
            throw .data(
                "\(path) is not a valid collage document (\(issues.count) problem\(issues.count == 1 ? "" : "s"))")
        }
    }
}

/// Reads a whole input file, or standard input for `-`, with errors that name the path.
func readInput(_ path: String) throws(Failure) -> Data {
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw .noInput("\(path): no such file")
    }
    guard !isDirectory.boolValue else { throw .noInput("\(path): is a directory, expected a file") }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw .noInput("\(path): cannot be read (check its permissions)")
    }
    return data
}
