import CollageCore
import CollageKit
import Foundation

/// The `--library` option every library command takes, and opening the library it names.
enum LibraryAccess {
    static let option = OptionSpec.value(
        "--library", "DIR", "The library folder (default: $COLLAGE_LIBRARY, else $XDG_DATA_HOME/collage)")

    /// The workspace over the library `--library` names (or the default one), without a model.
    static func open(_ arguments: ParsedArguments) throws(Failure) -> Workspace {
        try Workspace.open(folder: arguments.value("--library").map { URL(fileURLWithPath: $0) })
    }
}

/// Dates in listings: local time to the minute, year first so they sort as text.
func displayDate(_ date: Date) -> String {
    let parts = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute], from: date)
    return String(
        format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
        parts.minute ?? 0)
}

/// Whether a file descriptor is a terminal (a person is watching, so progress and prompts make sense).
func terminalIsInteractive(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
