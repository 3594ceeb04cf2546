import CollageCore
import CollageRender
import Foundation

/// Export options as both faces receive them, as text by name (`--scale 3`, `?scale=3`), read and
/// checked against ``CollageCore/Limits`` in one place.
public enum ExportOptions {
    /// The names of the options, as the API spells them (the command line adds `--`).
    public static let names = ["format", "scale", "size", "print", "quality"]

    /// Reads export options.
    /// - Parameters:
    ///   - values: option texts by name (`format`, `scale`, `size`, `print`, `quality`).
    ///   - fileName: the output's file name, whose extension gives the format when `format` is absent.
    ///   - progressive: a progressive JPEG (JPEG only).
    /// - Throws: ``Failure`` of kind `invalidOption`, naming the option, what it expects and what it got.
    public static func parse(
        _ values: [String: String], fileName: String? = nil, progressive: Bool = false
    ) throws(Failure) -> RenderOptions {
        let sizes = ["scale", "size", "print"].filter { values[$0] != nil }
        guard sizes.count <= 1 else {
            throw Failure(
                .invalidOption,
                "choose one of «scale», «size» and «print», got \(sizes.map { "«\($0)»" }.joined(separator: " and "))")
        }
        let format = try self.format(values["format"], fileName: fileName)
        var size = OutputSize.scale(3)
        if let text = values["scale"] {
            guard let scale = Double(decimal: text), Limits.exportScale.contains(scale) else {
                throw expected("scale", "a number \(Limits.describe(Limits.exportScale)), such as 2 or 3", text)
            }
            size = .scale(scale)
        }
        if let text = values["size"] {
            let sides = 1...Limits.maximumOutputSide
            guard let side = Int(text), sides.contains(side) else {
                throw expected("size", "a whole number of pixels \(Limits.describe(sides))", text)
            }
            size = .longSide(side)
        }
        if let text = values["print"] {
            guard let print = PrintSize(parsing: text) else {
                if let problem = PrintSize.limitProblem(parsing: text) {
                    throw Failure(.invalidOption, problem, field: "print")
                }
                throw expected(
                    "print",
                    "WxH with a unit and an optional DPI, such as 6x4in@300 or a4@300 (DPI \(Limits.describe(Limits.dpi)), "
                        + "at most \(Limits.maximumOutputPixels / 1_000_000) megapixels and "
                        + "\(Limits.maximumOutputSide) pixels a side)", text)
            }
            size = .print(print)
        }
        var quality = 90
        if let text = values["quality"] {
            guard let parsed = Int(text), Limits.quality.contains(parsed) else {
                throw expected("quality", "a whole number \(Limits.describe(Limits.quality))", text)
            }
            quality = parsed
        }
        // Said, as a progressive PNG is: a quality asked for and silently not used misleads.
        if values["quality"] != nil, format == .png {
            throw Failure(
                .invalidOption, "sets how JPEG, WebP, HEIC and AVIF compress; a PNG is lossless, so leave it out",
                field: "quality")
        }
        if progressive, format != .jpeg {
            throw Failure(
                .invalidOption, "applies to JPEG only, and the output is \(format.rawValue.uppercased())",
                field: "progressive")
        }
        return RenderOptions(size: size, format: format, quality: quality, progressiveJPEG: progressive)
    }

    private static func format(_ name: String?, fileName: String?) throws(Failure) -> OutputFormat {
        let formats = OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let base = fileName.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        let pathExtension =
            base.map { $0.split(separator: ".").count > 1 ? String($0.split(separator: ".").last ?? "") : "" } ?? ""
        if let name {
            guard let format = OutputFormat(rawValue: name.lowercased()) ?? OutputFormat(pathExtension: name) else {
                throw expected("format", "one of \(formats)", name)
            }
            // PNG bytes in a file named .jpg open nowhere as a JPEG does: the two must agree.
            if let named = OutputFormat(pathExtension: pathExtension), named != format, let base {
                throw Failure(
                    .invalidOption,
                    "\(format.rawValue) does not match the file's name \"\(base)\": name it "
                        + ".\(format.rawValue == "jpeg" ? "jpg" : format.rawValue), or leave «format» out",
                    field: "format")
            }
            return format
        }
        guard let fileName else { return .jpeg }
        guard let format = OutputFormat(pathExtension: pathExtension) else {
            throw Failure(
                .invalidOption,
                "cannot tell the format from \"\(fileName.split(separator: "/").last.map(String.init) ?? fileName)\"; "
                    + "name it .jpg, .png, .webp, .heic or .avif, or give «format»")
        }
        return format
    }

    static func expected(_ field: String, _ wanted: String, _ got: String) -> Failure {
        Failure(.invalidOption, "expects \(wanted), got \"\(got)\"", field: field)
    }
}

/// Options of an animated export as both faces receive them, as text by name (`--motion pop`,
/// `?motion=pop`), read and checked against ``CollageCore/Limits`` in one place.
public enum AnimationExportOptions {
    /// The names of the options, as the API spells them (the command line adds `--`).
    public static let names = ["format", "motion", "duration", "size", "fps", "quality"]

    /// Reads animation options.
    /// - Parameters:
    ///   - values: option texts by name.
    ///   - fileName: the output's file name, whose extension gives the format when `format` is
    ///     absent (`.mp4`, `.webm`, `.webp`, `.gif`, `.png` for APNG).
    /// - Throws: ``Failure`` of kind `invalidOption`, naming the option, what it expects and what it got.
    public static func parse(_ values: [String: String], fileName: String? = nil) throws(Failure) -> AnimationOptions {
        let formats = AnimationFormat.allCases.map(\.rawValue).joined(separator: ", ")
        let format: AnimationFormat
        let name = fileName.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
        let pathExtension = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last ?? "") : ""
        if let text = values["format"] {
            guard let chosen = AnimationFormat(rawValue: text.lowercased()) ?? AnimationFormat(fileExtension: text)
            else {
                throw ExportOptions.expected("format", "one of \(formats)", text)
            }
            // A GIF in a file named .mp4 would open as nothing at all.
            if let named = AnimationFormat(fileExtension: pathExtension), named != chosen {
                throw Failure(
                    .invalidOption,
                    "says \(chosen.rawValue.uppercased()) but the file is named \"\(name)\"; name it "
                        + ".\(chosen.fileExtension) or leave out «format»", field: "format")
            }
            format = chosen
        } else {
            guard let fromName = AnimationFormat(fileExtension: pathExtension) else {
                throw Failure(
                    .invalidOption,
                    "cannot tell the animation's format from \"\(name)\"; name it .mp4, .webm, .webp, .gif or .png "
                        + "(APNG), or give «format»")
            }
            format = fromName
        }
        var options = AnimationOptions(format: format)
        if let text = values["motion"] {
            guard let style = MotionStyle(rawValue: text.lowercased()) else {
                throw ExportOptions.expected(
                    "motion", "one of \(MotionStyle.allCases.map(\.rawValue).joined(separator: ", "))", text)
            }
            options.style = style
        }
        if let text = values["duration"] {
            guard let seconds = Double(decimal: text), Limits.motionDuration.contains(seconds) else {
                throw ExportOptions.expected(
                    "duration", "a number of seconds \(Limits.describe(Limits.motionDuration))", text)
            }
            options.duration = seconds
        }
        if let text = values["size"] {
            guard let side = Int(text), Limits.motionSide.contains(side) else {
                throw ExportOptions.expected(
                    "size", "the longer side, a whole number of pixels \(Limits.describe(Limits.motionSide))", text)
            }
            options.longerSide = side
        }
        if let text = values["fps"] {
            guard let fps = Int(text), Limits.motionFramesPerSecond.contains(fps) else {
                throw ExportOptions.expected(
                    "fps", "a whole number of frames a second \(Limits.describe(Limits.motionFramesPerSecond))", text)
            }
            options.framesPerSecond = fps
        }
        if let text = values["quality"] {
            guard let quality = Int(text), Limits.quality.contains(quality) else {
                throw ExportOptions.expected("quality", "a whole number \(Limits.describe(Limits.quality))", text)
            }
            options.quality = quality
        }
        if let problem = options.combinedProblem {
            throw Failure(.invalidOption, problem.message, field: problem.field)
        }
        return options
    }
}
