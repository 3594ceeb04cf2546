import Foundation

/// Why a render failed. Nothing is written at the output path when one is thrown.
public enum RenderError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The photo file does not exist.
    case missingFile(String)
    /// The photo file is empty.
    case emptyFile(String)
    /// The file is not an image libvips can read, or is corrupt or truncated.
    case unreadableImage(String, reason: String)
    /// The image declares more pixels than ``RenderLimits/maximumInputPixels``.
    case imageTooLarge(String, width: Int, height: Int, limit: Int)
    /// An item's reference does not name a file.
    case unresolvedReference(String, reason: String)
    /// The requested output (`size`, e.g. "40000 × 40000") would be larger than the limits.
    case outputTooLarge(size: String, limit: String)
    /// The collage breaks the document rules (see ``CollageCore/Limits``); every problem, with its path.
    case invalidDocument([String])
    /// The options make no sense (a scale of 0, a width of -5).
    case invalidOptions(String)
    /// This libvips cannot write the format.
    case unsupportedFormat(OutputFormat, reason: String)
    /// A library the job needs (the animation encoders) is not installed beside the program.
    case engineMissing(String)
    /// The output file could not be written.
    case cannotWrite(String, reason: String)
    /// Anything else libvips reported.
    case failed(String)
    /// The render was stopped through its ``RenderCancellation``.
    case cancelled

    /// A sentence naming the file and the problem.
    public var description: String {
        switch self {
        case .missingFile(let path): "\(path): no such file"
        case .emptyFile(let path): "\(path): the file is empty (0 bytes)"
        case .unreadableImage(let path, let reason): "\(path): not a readable image (\(reason))"
        case .imageTooLarge(let path, let width, let height, let limit):
            "\(path): \(width) × \(height) pixels is more than the limit of \(limit / 1_000_000) megapixels; "
                + "refusing to decode it"
        case .unresolvedReference(let reference, let reason): "cannot find the image \"\(reference)\": \(reason)"
        case .outputTooLarge(let size, let limit): "the output would be \(size) pixels, over the limit of \(limit)"
        case .invalidDocument(let issues): "the collage cannot be rendered: " + issues.joined(separator: "; ")
        case .invalidOptions(let message): message
        case .unsupportedFormat(let format, let reason):
            "this libvips cannot write \(format.rawValue.uppercased()): \(reason)"
        case .engineMissing(let message): message
        case .cannotWrite(let path, let reason): "\(path): cannot write the output (\(reason))"
        case .failed(let message): message
        case .cancelled: "the render was cancelled"
        }
    }

    /// The problem in words for the person who asked for the image: no file paths, no
    /// libvips names, and what they can do about it. ``description`` keeps the details.
    public var plainDescription: String {
        switch self {
        case .missingFile, .emptyFile, .unresolvedReference:
            "A photo in this collage is missing from your library. Replace it, or remove it, and export again."
        case .unreadableImage:
            "A photo in this collage could not be read (the file may be damaged). Replace it, and export again."
        case .imageTooLarge(_, let width, let height, _):
            "A photo in this collage is too large to use (\(width) × \(height) pixels). Replace it with a smaller copy."
        case .outputTooLarge: "That size is too large to export. Choose a smaller size."
        case .invalidDocument:
            "This collage has something in it that cannot be drawn. Undo the last change, and try again."
        case .invalidOptions(let message): "These export settings cannot be used: \(message)."
        case .unsupportedFormat(let format, _):
            "This computer cannot write \(format.rawValue.uppercased()) files. Choose JPEG, PNG or WebP."
        case .engineMissing:
            "This installation cannot make animations: its animation library is missing. Reinstall Collage."
        case .cannotWrite: "The image could not be saved (the disk may be full). Free some space, and try again."
        case .failed: "Something went wrong while the image was made. Try again; if it fails again, try another size."
        case .cancelled: "The export was cancelled."
        }
    }
}
