import CollageKit

/// Why a command failed; each case maps to one exit code from `sysexits.h`, listed in `--help`.
enum CLIError: Error, Sendable {
    /// The photo has no subject to lift (or none where asked): exit 3.
    case noSubject(String)
    /// The command line itself is wrong (unknown command or option, missing value): exit 64.
    case usage(String)
    /// An input file's contents are wrong (invalid document, corrupt image): exit 65.
    case data(String)
    /// An input file does not exist or cannot be read: exit 66.
    case noInput(String)
    /// A needed service is missing (an encoder this libvips lacks): exit 69.
    case unavailable(String)
    /// An output file cannot be written: exit 73.
    case cannotCreate(String)
    /// Reading or writing the library failed: exit 74.
    case ioError(String)
    /// Something changed meanwhile (a stale version); trying again can work: exit 75.
    case tempFailure(String)
    /// It needs Collage Premium, which is not unlocked here (a premium layout): exit 77.
    case locked(String)
    /// Anything else that went wrong while working: exit 1.
    case failure(String)

    var exitCode: Int32 {
        switch self {
        case .usage: ExitCode.usage
        case .noSubject: ExitCode.noSubject
        case .data: ExitCode.dataError
        case .noInput: ExitCode.noInput
        case .unavailable: ExitCode.unavailable
        case .cannotCreate: ExitCode.cannotCreate
        case .ioError: ExitCode.ioError
        case .tempFailure: ExitCode.tempFailure
        case .locked: ExitCode.locked
        case .failure: ExitCode.failure
        }
    }

    var message: String {
        switch self {
        case .usage(let message), .noSubject(let message), .data(let message), .noInput(let message),
            .unavailable(let message),
            .cannotCreate(let message), .ioError(let message), .tempFailure(let message), .locked(let message),
            .failure(let message):
            message
        }
    }
}

/// The exit codes `collage` uses.
enum ExitCode {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let noSubject: Int32 = 3
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let tempFailure: Int32 = 75
    static let locked: Int32 = 77

    /// The table printed at the end of `collage --help`.
    static let summary = """
        Exit codes:
          0   success
          1   the work failed (the message says why)
          3   no subject found in the photo (collage sticker); nothing was written
          64  usage error: unknown command or option, missing or malformed value
          65  data error: an input is invalid (a document, an image, an edit), or some imports failed
          66  an input does not exist: a file, or a collage or photo id
          69  a needed part is missing: the subject model, or a HEIC/AVIF encoder
          73  an output file or the library cannot be written
          74  the library database could not be read or written
          75  the collage changed since its version was read: reload and try again
          77  a premium layout needs Collage Premium: unlock it with 'collage licence add KEY'
        """
}

extension Failure {
    /// How the command line reports this failure: its exit code, and the field named as the flag.
    var cliError: CLIError { cliError(spelling: [:]) }

    /// The same, for a command whose flags name some fields otherwise (`new --layout` sets the
    /// API's `template`).
    func cliError(spelling flags: [String: String]) -> CLIError {
        var failure = self
        if let field, let flag = flags[field] { failure = Failure(kind, message, field: flag) }
        let text = failure.text(optionPrefix: "--")
        return switch kind {
        case .malformed, .invalidOption: .usage(text)
        case .invalidInput: .data(text)
        case .notFound: .noInput(text)
        case .unavailable: .unavailable(text)
        case .noSubject: .noSubject(text)
        case .cannotWrite: .cannotCreate(text)
        case .storage: .ioError(text)
        case .conflict, .busy: .tempFailure(text)
        case .locked: .locked(text + "; unlock every premium layout with 'collage licence add KEY'")
        case .failed: .failure(text)
        }
    }
}
