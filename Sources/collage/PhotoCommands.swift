import CollageCore
import CollageLibrary
import Foundation

/// `collage photos`.
enum PhotosCommand: Command {
    static let spec = CommandSpec(
        name: "photos", abstract: "List the library's photos, newest import first",
        usage: "[--library DIR] [--json]", options: [LibraryAccess.option, .flag("--json", "Print JSON")])

    static func run(_ arguments: ParsedArguments) throws(CLIError) {
        let library = try LibraryAccess.open(arguments)
        let photos = try LibraryAccess.run { () throws(LibraryError) in try library.photos() }
        if arguments.has("--json") {
            Output.printJSON(
                .array(
                    photos.map {
                        .object([
                            "id": .string($0.id), "name": .string($0.originalName), "format": .string($0.format),
                            "width": .number(Double($0.width)), "height": .number(Double($0.height)),
                            "bytes": .number(Double($0.byteSize)),
                            "imported": .string(CollageDocument.jsonDate($0.importedAt)),
                            "file": .string(library.originalFile(of: $0).path),
                        ])
                    }))
            return
        }
        guard !photos.isEmpty else {
            Output.print("No photos yet. Add some with 'collage import photo.jpg folder/ …'.")
            return
        }
        Output.print(
            Output.table(
                [["ID", "SIZE", "FORMAT", "IMPORTED", "NAME"]]
                    + photos.map {
                        [
                            String($0.id.prefix(12)), "\($0.width)×\($0.height)", $0.format, displayDate($0.importedAt),
                            $0.originalName,
                        ]
                    }))
    }
}

/// `collage gc`.
enum CleanUpCommand: Command {
    static let spec = CommandSpec(
        name: "gc", abstract: "Remove photos no collage uses, and leftover files; say how much was freed",
        usage: "[--library DIR] [--json]", options: [LibraryAccess.option, .flag("--json", "Print JSON")])

    static func run(_ arguments: ParsedArguments) throws(CLIError) {
        let library = try LibraryAccess.open(arguments)
        let report = try LibraryAccess.run { () throws(LibraryError) in try library.cleanUp() }
        if arguments.has("--json") {
            Output.printJSON(
                .object([
                    "removedPhotos": .array(report.removedPhotos.map(JSONValue.string)),
                    "removedFiles": .number(Double(report.removedFiles)),
                    "freedBytes": .number(Double(report.freedBytes)),
                ]))
        } else {
            let freed = ByteCountFormatter.string(fromByteCount: Int64(report.freedBytes), countStyle: .file)
            Output.print(
                "Removed \(report.removedPhotos.count) unused photo\(report.removedPhotos.count == 1 ? "" : "s") and "
                    + "\(report.removedFiles) file\(report.removedFiles == 1 ? "" : "s"), freeing \(freed).")
        }
    }
}
