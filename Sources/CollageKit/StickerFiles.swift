import CollageCore
import CollageRender
import Foundation
import StickerPrint
import Stickers

/// A cut line to trace around a sticker for print, checked when it is made.
public struct CutLineRequest: Sendable, Equatable {
    /// How far outside the subject it runs, its resolution, and whether white fills out to it.
    let options: CutLineOptions

    /// A request; what is not given takes the defaults (2 mm outside the subject, 300 dpi).
    /// - Throws: ``Failure`` `invalidOption` naming `offset` (0 to 10 mm) or `dpi` (72 to 1200).
    public init(offset: Double? = nil, dotsPerInch: Double? = nil, whiteBacking: Bool = false) throws(Failure) {
        if let offset, !(offset.isFinite && Limits.cutLineOffset.contains(offset)) {
            throw Failure(
                .invalidOption,
                "expects a number of millimetres \(Limits.describe(Limits.cutLineOffset)), got \(JSONValue.format(offset))",
                field: "offset")
        }
        if let dotsPerInch, !(dotsPerInch.isFinite && Limits.printDotsPerInch.contains(dotsPerInch)) {
            throw Failure(
                .invalidOption,
                "expects a resolution in dots per inch \(Limits.describe(Limits.printDotsPerInch)), got \(JSONValue.format(dotsPerInch))",
                field: "dpi")
        }
        options = CutLineOptions(offset: offset ?? 2, dotsPerInch: dotsPerInch ?? 300, whiteBacking: whiteBacking)
    }

    /// How far outside the subject the line runs, in millimetres.
    public var offsetMillimetres: Double { options.offset }

    /// The sticker's pixels per inch on paper, which the line's millimetres are measured at.
    public var dotsPerInch: Double { options.dotsPerInch }
}

/// A sticker lifted from a photo file into a picture file (`collage sticker photo.jpg -o
/// sticker.png`), with a cut line for print when asked.
extension StickerRequest {
    /// What a lift into a file wrote.
    public struct FileSticker: Sendable, Equatable {
        /// The picture's width in pixels.
        public let width: Int
        /// Its height.
        public let height: Int
        /// Where its top-left lies in the photo, so it can be put back in place.
        public let x: Int
        /// The same, down.
        public let y: Int
        /// What the person should know: a cut line that had to close a gap, and the like.
        public let warnings: [String]
    }

    /// How the picture is made from the photo.
    public struct FileOptions: Sendable {
        /// Write the mask (white subject on black, the photo's size) instead of the sticker.
        public var maskOnly = false
        /// Refine the model's map along the photo's own edges.
        public var refine = true
        /// Find strands of hair and fur again from the photo, without the old background's colour
        /// (the default); `false` keeps the model's own soft edge.
        public var cleanEdges = true
        /// A cut line to trace around the subject, and the SVG file to write it to: the picture's
        /// canvas grows to hold it, and the PNG is tagged with its resolution.
        public var cutLine: (request: CutLineRequest, file: URL)?

        /// The defaults: the sticker, refined, no cut line.
        public init() {}
    }

    /// Lifts the sticker this request asks for out of `photo` with `model`, and writes it to
    /// `output` as `format` (PNG or WebP); nothing is written when it fails.
    /// - Throws: ``Failure``: `noSubject` (exit 3), `invalidInput` for a photo that cannot be
    ///   read, `cannotWrite`.
    public func lift(
        file photo: URL, model: SubjectModel, to output: URL, format: OutputFormat, options fileOptions: FileOptions
    ) throws(Failure) -> FileSticker {
        let image: Bitmap
        do throws(RenderError) {
            image = try Bitmap.read(photo)
        } catch {
            throw error.failure
        }
        var options = try self.options(photoWidth: image.width, height: image.height)
        options.cleanEdges = fileOptions.cleanEdges
        var result: Bitmap
        var origin = (x: 0, y: 0)
        do throws(StickerError) {
            let mask = try model.mask(of: image, options: MaskOptions(refine: fileOptions.refine), path: photo.path)
            if fileOptions.maskOnly {
                result = try StickerMaker.maskImage(mask, options: options, path: photo.path)
            } else {
                let cut = try StickerMaker.cutOut(from: image, mask: mask, options: options, path: photo.path)
                (result, origin) = (cut.sticker, (cut.x, cut.y))
            }
        } catch {
            throw error.failure
        }
        var warnings: [String] = []
        if let (request, cutFile) = fileOptions.cutLine {
            do throws(PrintError) {
                let made = try CutSticker(sticker: result, options: request.options, name: photo.lastPathComponent)
                warnings = made.warnings
                // The canvas grew around the cut line: the sticker's place in the photo moves with it.
                origin = (origin.x - made.stickerOrigin.x, origin.y - made.stickerOrigin.y)
                let svg = made.svg(title: "Cut line for \(photo.lastPathComponent)")
                do {
                    try Data(svg.utf8).write(to: cutFile, options: .atomic)
                } catch {
                    throw .unwritable("\(cutFile.path): \(error.localizedDescription)")
                }
                result = made.image
            } catch {
                throw error.failure
            }
        }
        do throws(RenderError) {
            try result.write(to: output, format: format)
        } catch {
            throw error.failure
        }
        if let (request, _) = fileOptions.cutLine {
            do throws(PrintError) {
                try SheetStickers.tagResolution(of: output, dotsPerInch: request.options.dotsPerInch)
            } catch {
                throw error.failure
            }
        }
        return FileSticker(width: result.width, height: result.height, x: origin.x, y: origin.y, warnings: warnings)
    }
}

/// A live sticker to write: a sticker file moving in a short loop (``CollageCore/StickerMotion``).
public struct LiveStickerRequest: Sendable, Equatable {
    /// How it moves.
    public let motion: StickerMotion
    /// The file, its size, length and frame rate.
    public let options: AnimationOptions

    /// A request from option texts (`motion`, `duration`, `size`, `fps`, `quality`, `format`);
    /// the output's extension gives the format when `format` is absent (`.png` is APNG, `.webp`
    /// animated WebP). By default a 2 s loop, 512 px, 30 frames a second.
    /// - Throws: ``Failure`` `invalidOption` naming the option, what it expects and what it got.
    public init(_ values: [String: String], fileName: String) throws(Failure) {
        let name = values["motion"] ?? ""
        guard let motion = StickerMotion(rawValue: name.lowercased()) else {
            throw ExportOptions.expected(
                "live", "one of \(StickerMotion.allCases.map(\.rawValue).joined(separator: ", "))", name)
        }
        var checked = values
        checked["motion"] = nil
        let duration = values["duration"]
        checked["duration"] = nil
        var options = try AnimationExportOptions.parse(checked, fileName: fileName)
        options.duration = 2
        if let duration {
            guard let seconds = Double(decimal: duration), Limits.liveStickerDuration.contains(seconds) else {
                throw ExportOptions.expected(
                    "duration", "a number of seconds \(Limits.describe(Limits.liveStickerDuration))", duration)
            }
            options.duration = seconds
        }
        if values["size"] == nil { options.longerSide = 512 }
        if values["fps"] == nil { options.framesPerSecond = options.format == .gif ? 15 : 30 }
        self.motion = motion
        self.options = options
    }

    /// Writes the sticker in `file` (PNG or WebP with alpha) moving, to `output`, atomically.
    /// - Throws: ``Failure``: `noSubject` for a clear sticker, `invalidInput` for an unreadable one.
    @discardableResult
    public func write(sticker file: URL, to output: URL) throws(Failure) -> AnimationResult {
        let sticker = try StickerPackRequest.read(file)
        do throws(RenderError) {
            return try LiveStickers.render(sticker, motion: motion, options: options, to: output)
        } catch {
            throw error.failure
        }
    }
}
