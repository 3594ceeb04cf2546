import CollageCore
import CollageKit
import CollageRender
import Foundation

/// `collage render`: a JSON document → an image.
enum RenderCommand: Command {
    static let spec = CommandSpec(
        name: "render",
        abstract: "Render a collage document (JSON) to an image",
        usage:
            "doc.json -o out.png [--scale N | --size PX | --print WxHin@DPI] [--format F] [--quality Q] [--progressive]",
        options: [.flag("--json", "Print what was written as JSON")] + OutputArguments.specs
            + SmartCropArguments.specs,
        discussion: """
            Photo and sticker references in the document are file paths, relative to the document's folder.
            A transparent background stays transparent in PNG, WebP, HEIC and AVIF; JPEG puts it on white.

            Examples:
              collage render Examples/magazine.json -o magazine.jpg
              collage render poster.json --print a3@300 -o poster.jpg
            """,
        positionals: 1...1
    )

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let output = try OutputArguments.parse(arguments)
        let path = arguments.positionals[0]
        try OutputGuard.refuseOverwriting([path], with: output.file, what: "the collage")
        let model = try SmartCropArguments.model(arguments)
        let collage: Collage
        do {
            collage = try CollageDocument.decode(try readInput(path))
        } catch let error as DocumentError {
            for issue in error.issues { Output.printError("\(path): \(issue)") }
            throw .data("\(path) is not a valid collage document")
        } catch let error as Failure {
            throw error
        } catch {
            throw .failed(error.localizedDescription)
        }
        let base =
            path == "-"
            ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            : URL(fileURLWithPath: path).deletingLastPathComponent()
        try renderAndReport(
            collage, photos: DirectoryPhotoSource(baseDirectory: base), model: model, output: output,
            json: arguments.has("--json"))
    }
}
