import CollageCore
import CollageKit
import CollageRender
import Dispatch
import Foundation
import Synchronization

/// `collage import`: photos into the library, many at once, in parallel.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import photos (files, folders, or a list on stdin) into the library",
        usage: "[--library DIR] [--json] [--no-analyse] (file | folder | -)…",
        options: [
            LibraryAccess.option, .flag("--json", "Print one result per file as JSON"),
            .flag("--no-analyse", "Do not find the photos' subjects now (the editor finds them in the background)"),
        ],
        discussion: """
            Folders are searched recursively for \(extensions.sorted().joined(separator: ", ")) files;
            '-' reads one path per line from standard input. The same bytes imported twice are one
            photo. Photos are imported in parallel, with a progress bar on a terminal. A file that
            fails does not stop the others: failures are listed at the end, and the exit code is 65.
            Then, when the subject model is installed, each new photo's subjects are found and kept,
            one photo at a time, so a lift in the editor answers at once ('collage photos' shows
            which are ready); stopping it loses nothing, and the editor finishes the rest.
            """,
        positionals: 1...Int.max
    )

    static let extensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif", "avif", "webp", "tif", "tiff", "gif"]

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments, creating: true)
        let files = try collectFiles(arguments.positionals)
        guard !files.isEmpty else {
            throw .noInput("no photos found in \(arguments.positionals.joined(separator: ", "))")
        }
        let progress = Progress(total: files.count, interactive: terminalIsInteractive(STDERR_FILENO))
        let outcomes = workspace.importPhotos(files) { progress.advance() }
        progress.finish()
        report(files: files, outcomes: outcomes, json: arguments.has("--json"))
        if !arguments.has("--no-analyse") {
            let photos = outcomes.compactMap { outcome -> PhotoRecord? in
                if case .imported(let result) = outcome { result.photo } else { nil }
            }
            analyse(photos, in: workspace)
        }
        let failed = zip(files, outcomes).compactMap { file, outcome in
            if case .failed = outcome { file } else { nil }
        }
        if !failed.isEmpty {
            let message = "\(failed.count) of \(files.count) file\(files.count == 1 ? "" : "s") could not be imported"
            // Files that are not there are exit 66, as for every other command; any other failure 65.
            if failed.allSatisfy({ !FileManager.default.fileExists(atPath: $0.path) }) { throw .noInput(message) }
            throw .data(message)
        }
    }

    /// Finds the subjects of `photos` with the installed model, if there is one; a photo that
    /// cannot be analysed is left for a lift to report.
    static func analyse(_ photos: [PhotoRecord], in workspace: Workspace) {
        var progress: Progress?
        workspace.findSubjects(
            of: photos,
            starting: { progress = Progress(total: $0, interactive: terminalIsInteractive(STDERR_FILENO)) },
            progress: { progress?.advance() })
        progress?.finish()
    }

    static func collectFiles(_ inputs: [String]) throws(Failure) -> [URL] {
        var files: [URL] = []
        var paths = inputs
        if let dash = paths.firstIndex(of: "-") {
            paths.remove(at: dash)
            let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            paths += text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        }
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                files.append(URL(fileURLWithPath: path))  // reported as a failure with the others
                continue
            }
            if !isDirectory.boolValue {
                files.append(URL(fileURLWithPath: path).standardizedFileURL)
                continue
            }
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: path), includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
            let found = (enumerator?.compactMap { $0 as? URL } ?? [])
                .filter { extensions.contains($0.pathExtension.lowercased()) }
                .sorted { $0.path < $1.path }
            files += found.map(\.standardizedFileURL)
        }
        return files
    }

    static func report(files: [URL], outcomes: [PhotoImport.Outcome], json: Bool) {
        if json {
            Output.printJSON(
                .array(
                    zip(files, outcomes).map { file, outcome in
                        switch outcome {
                        case .imported(let result):
                            RecordJSON.adding(["file": .string(file.path)], to: RecordJSON.imported(result))
                        case .failed(let failure):
                            .object(["file": .string(file.path), "error": .string(failure.description)])
                        }
                    }))
            return
        }
        var new = 0
        var known = 0
        var failures: [String] = []
        for outcome in outcomes {
            switch outcome {
            case .imported(let result): if result.isNew { new += 1 } else { known += 1 }
            case .failed(let failure): failures.append(failure.description)
            }
        }
        var summary = "Imported \(new) new photo\(new == 1 ? "" : "s")"
        if known > 0 { summary += ", \(known) already in the library" }
        if !failures.isEmpty { summary += ", \(failures.count) failed" }
        Output.print(summary + ".")
        for failure in failures { Output.printError("  failed: \(failure)") }
    }
}

/// A progress bar on standard error: count, rate and time left. Silent when not on a terminal.
final class Progress: Sendable {
    private struct Count {
        var done = 0
        var lastDraw = Date.distantPast
    }

    private let total: Int
    private let interactive: Bool
    private let started = Date()
    private let count = Mutex(Count())

    init(total: Int, interactive: Bool) {
        self.total = total
        self.interactive = interactive
    }

    func advance() {
        count.withLock { count in
            count.done += 1
            guard interactive, count.done == total || Date().timeIntervalSince(count.lastDraw) > 0.1 else { return }
            count.lastDraw = Date()
            draw(done: count.done)
        }
    }

    func finish() {
        guard interactive else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(done: Int) {
        let elapsed = max(0.001, Date().timeIntervalSince(started))
        let rate = Double(done) / elapsed
        let remaining = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = String(format: "\r%@ %d/%d  %.1f/s  %@ left ", bar, done, total, rate, Self.duration(remaining))
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }
}
