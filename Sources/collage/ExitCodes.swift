import CollageKit

// A command fails with a CollageKit ``Failure``, like every use case: its kind is the exit code
// (``Failure/exitCode``, the one table both faces read). These name the kinds as `sysexits.h`
// does, for the failures only the command line has (a missing flag, a file it cannot write).
extension Failure {
    /// The command line itself is wrong (unknown command or option, missing value): exit 64.
    static func usage(_ message: String) -> Failure { Failure(.malformed, message) }
    /// An input's contents are wrong (an invalid document, a corrupt image), or some imports failed: exit 65.
    static func data(_ message: String) -> Failure { Failure(.invalidInput, message) }
    /// An input file, collage or photo does not exist: exit 66.
    static func noInput(_ message: String) -> Failure { Failure(.notFound, message) }
    /// A needed part is missing (the model, an encoder): exit 69.
    static func unavailable(_ message: String) -> Failure { Failure(.unavailable, message) }
    /// An output file cannot be written: exit 73.
    static func cannotCreate(_ message: String) -> Failure { Failure(.cannotWrite, message) }
    /// The photo has no subject to lift: exit 3.
    static func noSubject(_ message: String) -> Failure { Failure(.noSubject, message) }
    /// Anything else that went wrong while working: exit 1.
    static func failed(_ message: String) -> Failure { Failure(.failed, message) }

    /// The same failure for a command whose flags name some fields otherwise (`new --layout`
    /// sets the API's `template`).
    func spelled(_ flags: [String: String]) -> Failure {
        guard let field, let flag = flags[field] else { return self }
        return Failure(kind, message, field: flag, plainMessage: plainMessage)
    }

    /// The message as the command line prints it: fields and options as flags, and what to do
    /// about a locked layout.
    var commandLineText: String {
        let text = text(optionPrefix: "--")
        return kind == .locked ? text + "; unlock every premium layout with 'collage licence add KEY'" : text
    }
}

/// The exit codes `collage` uses.
enum ExitCode {
    static let success: Int32 = 0

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
