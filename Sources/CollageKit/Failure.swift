import CollageCore
import CollageLibrary
import CollageLicence
import CollageRender
import StickerPrint
import Stickers

/// A failure of any use case, sorted into the kinds that decide how each face reports it: the
/// command line's exit code and the API's HTTP status are both read from here, so the two
/// faces cannot disagree about what a failure is.
public struct Failure: Error, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: Sendable, CaseIterable {
        /// The request itself is malformed: an unknown command, a missing field, JSON that is not.
        case malformed
        /// An option's value is out of range or unreadable (a scale of 1e300, quality 0).
        case invalidOption
        /// An input is invalid: a document, an image, an edit.
        case invalidInput
        /// Something named does not exist: a file, a collage, a photo.
        case notFound
        /// A needed part is missing: the subject model, an encoder.
        case unavailable
        /// The photo has no subject to lift.
        case noSubject
        /// An output or the library cannot be written.
        case cannotWrite
        /// The library's database failed.
        case storage
        /// The collage changed since the version the request names.
        case conflict
        /// Too much work at once; try again shortly.
        case busy
        /// It needs Collage Premium, which this machine has not unlocked (a premium layout).
        case locked
        /// The work was stopped before it finished (the client went away); nothing was kept.
        case cancelled
        /// Anything else: the message says why.
        case failed
    }

    /// The kind, which decides the exit code and the HTTP status.
    public let kind: Kind
    /// The option or field the failure is about (`scale`, `quality`), when there is one: each
    /// face names it its own way (`--scale` on the command line).
    public let field: String?
    /// What is wrong, in words that name no flag or button; other options it mentions are
    /// marked `«name»`, for each face to spell its own way (see ``text(optionPrefix:)``).
    public let message: String
    /// The problem in words for a person looking at the editor, when ``message`` holds details
    /// (file paths, libvips' words) that are for the command line and logs.
    public let plainMessage: String?

    /// A failure.
    public init(_ kind: Kind, _ message: String, field: String? = nil, plainMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
        self.plainMessage = plainMessage
    }

    /// The message, with the field first when there is one (`scale expects …`).
    public var description: String { text(optionPrefix: "") }

    /// The message as a face shows it, options spelled with `optionPrefix` (`--` on the command line).
    public func text(optionPrefix: String) -> String {
        var text = field.map { "«\($0)» \(message)" } ?? message
        while let open = text.range(of: "«"), let close = text.range(of: "»", range: open.upperBound..<text.endIndex) {
            text.replaceSubrange(
                open.lowerBound..<close.upperBound, with: optionPrefix + text[open.upperBound..<close.lowerBound])
        }
        return text
    }

    /// The exit code `collage` ends with (`sysexits.h`).
    public var exitCode: Int32 {
        switch kind {
        case .malformed, .invalidOption: 64
        case .invalidInput: 65
        case .notFound: 66
        case .unavailable: 69
        case .noSubject: 3
        case .cannotWrite: 73
        case .storage: 74
        case .conflict, .busy: 75
        case .locked: 77
        case .cancelled, .failed: 1
        }
    }

    /// The HTTP status the API answers with.
    public var httpStatus: Int {
        switch kind {
        case .malformed, .cancelled: 400
        case .invalidOption, .invalidInput, .noSubject: 422
        case .notFound: 404
        case .unavailable, .busy: 503
        case .conflict: 409
        case .locked: 402
        case .cannotWrite, .storage, .failed: 500
        }
    }
}

extension LibraryError {
    /// The failure this library error is.
    public var failure: Failure {
        switch self {
        case .unknownCollage, .unknownPhoto, .unknownSticker, .unknownDevice, .missingPhotoFile:
            Failure(.notFound, description)
        case .notALibrary, .newerSchema, .edit, .image, .invalidCollage, .emptyHistory:
            Failure(.invalidInput, description)
        case .unwritable: Failure(.cannotWrite, description)
        case .staleVersion: Failure(.conflict, description)
        case .database: Failure(.storage, description)
        case .invalid: Failure(.malformed, description)
        }
    }
}

extension RenderError {
    /// The failure this render error is.
    public var failure: Failure {
        let kind: Failure.Kind =
            switch self {
            case .missingFile, .emptyFile: .notFound
            case .unreadableImage, .imageTooLarge, .unresolvedReference, .invalidDocument: .invalidInput
            case .outputTooLarge, .invalidOptions: .invalidOption
            case .unsupportedFormat, .engineMissing: .unavailable
            case .cannotWrite: .cannotWrite
            case .failed: .failed
            case .cancelled: .cancelled
            }
        return Failure(kind, description, plainMessage: plainDescription)
    }
}

extension StickerError {
    /// The failure this sticker error is.
    public var failure: Failure {
        switch self {
        case .modelMissing, .modelInvalid, .engineMissing: Failure(.unavailable, description)
        case .noSubjectAt:
            Failure(
                .noSubject, description,
                plainMessage:
                    "There is no subject just there. Click or tap the subject itself, or choose Every subject.")
        case .noSubject, .noSuchInstance: Failure(.noSubject, description)
        case .image(let error): error.failure
        case .inference: Failure(.failed, description)
        case .library(let error): error.failure
        case .invalidOptions: Failure(.invalidOption, description)
        }
    }
}

extension DocumentError {
    /// The failure this document error is: every problem, one per line.
    public var failure: Failure { Failure(.invalidInput, description) }
}

extension PrintError {
    /// The failure this sticker-print error is, for both faces: a sheet the person asked for
    /// that cannot be made is their input's fault; a file that cannot be written is not.
    public var failure: Failure {
        switch self {
        case .invalidOption: Failure(.invalidOption, description)
        case .noSubject: Failure(.noSubject, description)
        case .tooLarge, .empty, .unreadable: Failure(.invalidInput, description)
        case .tracing: Failure(.failed, description)
        case .unwritable: Failure(.cannotWrite, description)
        case .cancelled: Failure(.cancelled, "the client closed the connection")
        }
    }
}

extension LicenceError {
    /// The failure this licence error is, for both faces: a refused key is the input's fault, a
    /// licence file that cannot be written or read is the machine's.
    public var failure: Failure {
        switch self {
        case .cannotWrite: Failure(.cannotWrite, description)
        case .unreadable: Failure(.storage, description)
        default: Failure(.invalidInput, description)
        }
    }
}
