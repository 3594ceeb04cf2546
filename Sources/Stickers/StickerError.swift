import CSegmentInterface
import CollageLibrary
import CollageRender
import Foundation

/// Why subject lifting failed.
public enum StickerError: Error, Sendable, CustomStringConvertible {
    /// The model file is missing.
    case modelMissing(path: String)
    /// The model file is there but is not the expected model (wrong hash, truncated, corrupt).
    case modelInvalid(path: String, reason: String)
    /// The subject-lifting library (OpenCV behind the shim) could not be opened.
    case engineMissing(String)
    /// The photo has no subject the model can find (empty or uniform).
    case noSubject(String)
    /// `--at` pointed where there is no subject.
    case noSubjectAt(x: Int, y: Int, path: String)
    /// `--instance` asked for a subject that does not exist.
    case noSuchInstance(Int, available: Int)
    /// The photo could not be read, or the sticker written.
    case image(RenderError)
    /// OpenCV reported an error.
    case inference(String)
    /// The library refused (unknown photo, unwritable folder).
    case library(LibraryError)
    /// An option is out of range (see ``CollageCore/Limits``); the message names the range.
    case invalidOptions(String)

    /// A sentence saying what went wrong and, for the model, the command that fixes it.
    public var description: String {
        switch self {
        case .modelMissing(let path):
            "the subject model is missing at \(path) (u2netp.onnx, SHA-256 \(SubjectModel.expectedSHA256)); "
                + "run '\(SubjectModel.fetchCommand)' to fetch it, or point --model / COLLAGE_MODEL at it"
        case .modelInvalid(let path, let reason):
            "the subject model at \(path) is not usable (\(reason)); expected u2netp.onnx with SHA-256 "
                + "\(SubjectModel.expectedSHA256). Delete it and run '\(SubjectModel.fetchCommand)' to fetch it again"
        case .engineMissing(let problem):
            "the subject-lifting library \(CSEGMENT_LIBRARY_NAME) could not be loaded (\(problem)); build it with "
                + "'swift build -c release --product CollageSegment' (make does) next to collage, "
                + "or point COLLAGE_SEGMENT_LIBRARY at it"
        case .noSubject(let path):
            "\(path): no subject found (nothing in the photo stands out from the rest); no sticker made"
        case .noSubjectAt(let x, let y, let path): "\(path): no subject at (\(x), \(y))"
        case .noSuchInstance(let index, let available):
            available == 0
                ? "no subjects found" : "there is no subject \(index); the photo has \(available) (1 is the largest)"
        case .image(let error): error.description
        case .inference(let message): "the subject model failed: \(message)"
        case .library(let error): error.description
        case .invalidOptions(let message): message
        }
    }
}
