import CollageCore
import CollageKit
import CollageRender
import Foundation

/// The output options `make` and `render` share: where, how large, which format.
struct OutputArguments {
    let file: URL
    let options: RenderOptions
    /// With `--animate`: the animation to write instead of a still image.
    var animation: AnimationOptions? = nil

    static let specs: [OptionSpec] = [
        .value("-o", "FILE", "Where to write the image (required); the format follows its extension"),
        .value("--output", "FILE", "Same as -o"),
        .value("--scale", "N", "Pixels per canvas point (default 3: a 1,200-point canvas gives 3,600 px)"),
        .value("--size", "PX", "The longer side in pixels instead of --scale"),
        .value(
            "--print", "WxHin@DPI",
            "A print size instead of --scale, e.g. 6x4in@300, 150x100mm@300, a4@300 (a collage of another "
                + "shape prints whole, and a note says how)"),
        .value(
            "--format", "FORMAT", "jpeg, png, webp, heic or avif (default: from the file extension, which must agree)"),
        .value("--quality", "1-100", "Encoder quality for JPEG, WebP, HEIC and AVIF (default 90)"),
        .flag(
            "--progressive",
            "Progressive JPEG: a little smaller and shown coarse-to-fine while it downloads; slower and needs more memory"
        ),
        .flag(
            "--animate",
            "Write the collage assembling itself as an animation: .mp4, .webm, .webp, .gif or .png (APNG), looping"),
        .value("--motion", "STYLE", "With --animate: how photos arrive: pop (default), slide or fade"),
        .value("--duration", "SECONDS", "With --animate: the length, 2 to 15 seconds (default 6)"),
        .value("--fps", "N", "With --animate: frames a second, 5 to 60 (default 30; 15 for GIF)"),
    ]

    static func parse(_ arguments: ParsedArguments) throws(Failure) -> OutputArguments {
        guard let path = arguments.value("-o") ?? arguments.value("--output") else {
            throw .usage("an output file is required: -o out.jpg")
        }
        // Said before the collage is drawn (a large one took seconds to be told so).
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw .cannotCreate("\(path): cannot write the output (the folder \(folder.path) does not exist)")
        }
        var values: [String: String] = [:]
        if arguments.has("--animate") {
            for name in ["scale", "print"] where arguments.value("--\(name)") != nil {
                throw .usage("--\(name) makes a still image; an animation takes --size PX (its longer side)")
            }
            if arguments.has("--progressive") { throw .usage("--progressive makes a JPEG; an animation is not one") }
            for name in AnimationExportOptions.names { values[name] = arguments.value("--\(name)") }
            let animation = try AnimationExportOptions.parse(values, fileName: path)
            return OutputArguments(file: URL(fileURLWithPath: path), options: RenderOptions(), animation: animation)
        }
        for name in ["motion", "duration", "fps"] where arguments.value("--\(name)") != nil {
            throw .usage("--\(name) shapes an animation: add --animate")
        }
        for name in ExportOptions.names { values[name] = arguments.value("--\(name)") }
        let options = try ExportOptions.parse(values, fileName: path, progressive: arguments.has("--progressive"))
        return OutputArguments(file: URL(fileURLWithPath: path), options: options)
    }
}

/// `--smart-crop` and friends: whether photos without a crop are cropped around their subject.
enum SmartCropArguments {
    static let specs: [OptionSpec] = [
        .flag("--smart-crop", "Crop photos around their subject (default when the model is installed)"),
        .flag("--no-smart-crop", "Crop photos around their centre"),
        .value("--model", "PATH", "The subject model (default: $COLLAGE_MODEL, else ~/.cache/collage/models)"),
    ]

    /// The model file: `--model`, else `$COLLAGE_MODEL`, else the model cache.
    static func modelPath(_ arguments: ParsedArguments) -> URL {
        arguments.value("--model").map { URL(fileURLWithPath: $0) } ?? Workspace.defaultModelPath()
    }

    /// The model to find subjects with, or `nil` for centre crops. Asking for `--smart-crop`
    /// without a usable model is an error; by default a missing model just means centre crops.
    static func model(_ arguments: ParsedArguments) throws(Failure) -> SubjectModel? {
        if arguments.has("--smart-crop"), arguments.has("--no-smart-crop") {
            throw .usage("choose --smart-crop or --no-smart-crop, not both")
        }
        if arguments.has("--no-smart-crop") { return nil }
        let path = modelPath(arguments)
        do throws(Failure) {
            return try Workspace.loadModel(at: path)
        } catch {
            if arguments.has("--smart-crop") || arguments.value("--model") != nil { throw error }
            return nil
        }
    }
}

/// Renders with subject-aware crops when a model is given, and reports what was written.
func renderAndReport(
    _ collage: Collage, photos: some PhotoSource, model: SubjectModel?, output: OutputArguments, json: Bool
) throws(Failure) {
    if let model {
        try renderAndReport(
            collage, photos: Workspace.subjectCropped(photos, model: model), output: output, json: json)
    } else {
        try renderAndReport(collage, photos: photos, output: output, json: json)
    }
}

/// Renders and reports what was written.
/// - Parameter name: what the notes call a photo; by default its file's name (a library's
///   files are named by their hash, so `export` gives the names they were imported under).
func renderAndReport(
    _ collage: Collage, photos: some PhotoSource, output: OutputArguments, json: Bool,
    name: (SoftPhoto) -> String = { $0.file.lastPathComponent }
) throws(Failure) {
    if let animation = output.animation {
        let result: AnimationResult
        do {
            result = try CollageRenderer().animate(collage, photos: photos, options: animation, to: output.file)
        } catch {
            throw error.failure
        }
        let seconds = JSONValue.format(Double(result.frames) / Double(result.framesPerSecond))
        if json {
            Output.printJSON(
                .object([
                    "file": .string(result.file.path), "width": .number(Double(result.width)),
                    "height": .number(Double(result.height)), "format": .string(result.format.rawValue),
                    "frames": .number(Double(result.frames)), "fps": .number(Double(result.framesPerSecond)),
                    "motion": .string(animation.style.rawValue),
                ]))
        } else {
            Output.print(
                "Wrote \(result.file.path) (\(result.width) × \(result.height) \(result.format.rawValue.uppercased()), "
                    + "\(result.frames) frames at \(result.framesPerSecond) fps, \(seconds) s, looping)")
        }
        return
    }
    let result: RenderResult
    if case .print(let print) = output.options.size, let note = print.fitting(collage.canvas) {
        Output.printError("collage: note: \(note)")
    }
    // Said once the collage is written: a photo that cannot be read was first called soft.
    let softNote = softPhotosNote(
        CollageRenderer().softPhotos(in: collage, photos: photos, size: output.options.size), name: name)
    do {
        result = try CollageRenderer().render(collage, photos: photos, options: output.options, to: output.file)
    } catch {
        throw error.failure
    }
    if let softNote { Output.printError("collage: note: \(softNote)") }
    // A blank image written without a word looked like a failed render.
    if collage.items.isEmpty {
        Output.printError(
            "collage: note: \"\(collage.title)\" has nothing on it yet: the image is its background alone")
    }
    if json {
        Output.printJSON(RecordJSON.render(result))
    } else {
        let dpi = result.dpi.map { " at \(JSONValue.format($0)) DPI" } ?? ""
        Output.print(
            "Wrote \(result.file.path) (\(result.width) × \(result.height) \(result.format.rawValue.uppercased())\(dpi))"
        )
    }
}

/// Which photos the export enlarges until they look soft, in one line, as the editor's "Low res"
/// badges say it before an export: a print of small photos came out soft without a word.
func softPhotosNote(_ soft: [SoftPhoto], name: (SoftPhoto) -> String = { $0.file.lastPathComponent }) -> String? {
    guard let first = soft.first else { return nil }
    let shown = 4
    let each = soft.prefix(shown).map { photo in
        let name = name(photo)
        guard let dpi = photo.dotsPerInch else {
            return "\(name) enlarged \(JSONValue.format((10 / photo.pixelsPerOutputPixel).rounded() / 10))×"
        }
        // Whole DPI, but tenths under 10 (a small photo on a poster), where whole DPI would say 0.
        let dots = dpi < 9.5 ? JSONValue.format((dpi * 10).rounded() / 10) : "\(Int(dpi.rounded()))"
        return "\(name) at \(dots) DPI"
    }
    let more = soft.count > shown ? ", and \(soft.count - shown) more" : ""
    let which = soft.count == 1 ? "a photo is small for its frame" : "\(soft.count) photos are small for their frames"
    let (effect, advice) =
        first.dotsPerInch != nil
        ? (
            "and will print soft",
            "\(Int(SoftPhoto.leastPrintDPI)) DPI or more looks sharp; use larger photos or a smaller print"
        )
        : ("at this size and may look soft", "use larger photos, or a smaller --size or --scale")
    return "\(which) \(effect): " + each.joined(separator: ", ") + more + " (\(advice))"
}
