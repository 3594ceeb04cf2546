import CollageCore
import CollageKit
import Foundation

/// The `--library` option every library command takes, and opening the library it names.
enum LibraryAccess {
    static let option = OptionSpec.value(
        "--library", "DIR", "The library folder (default: $COLLAGE_LIBRARY, else $XDG_DATA_HOME/collage)")

    /// The workspace over the library `--library` names (or the default one), without a model.
    /// Only the commands `creating` one (import, new, serve) make a library in a folder that
    /// `--library` or `$COLLAGE_LIBRARY` names and that holds none (neither its database nor its
    /// photos and previews, as after a damaged database was set aside for `doctor --repair`):
    /// for the others it is a mistyped path (`doctor` made an empty library there and called it
    /// healthy). The default folder is made by any command, as on a first run.
    /// - Throws: ``Failure`` (exit 66) naming the folder, where it was named, and how a library
    ///   is made.
    static func open(_ arguments: ParsedArguments, creating: Bool = false) throws(Failure) -> Workspace {
        let folder = arguments.value("--library").map { URL(fileURLWithPath: $0) }
        let named =
            folder.map { ($0, "--library") }
            ?? ProcessInfo.processInfo.environment["COLLAGE_LIBRARY"].flatMap {
                $0.isEmpty ? nil : (URL(fileURLWithPath: $0), "$COLLAGE_LIBRARY")
            }
        if let (chosen, source) = named, !creating, !Workspace.holdsLibrary(chosen) {
            let exists = FileManager.default.fileExists(atPath: chosen.path)
            let inside = exists ? "no \(Workspace.databaseFileName) nor photos in it" : "no such folder"
            throw .noInput(
                "\(chosen.path): no Collage library there (\(inside)); check \(source), or make one there with "
                    + "'collage import --library \(chosen.path) PHOTO…' or 'collage serve --library \(chosen.path)'")
        }
        return try Workspace.open(folder: folder)
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
