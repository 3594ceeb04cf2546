import CollageCore
import CollageLibrary
import CollageRender
import Dispatch
import Foundation

/// `collage import`: photos into the library, many at once, in parallel.
enum ImportCommand: Command {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Import photos (files, folders, or a list on stdin) into the library",
        usage: "[--library DIR] [--json] (file | folder | -)…",
        options: [LibraryAccess.option, .flag("--json", "Print one result per file as JSON")],
        discussion: """
            Folders are searched recursively for \(extensions.sorted().joined(separator: ", ")) files;
            '-' reads one path per line from standard input. The same bytes imported twice are one
            photo. Photos are imported in parallel, with a progress bar on a terminal. A file that
            fails does not stop the others: failures are listed at the end, and the exit code is 65.
            """,
        positionals: 1...Int.max
    )

    static let extensions: Set<String> = ["jpg", "jpeg", "png", "heic", "heif", "avif", "webp", "tif", "tiff", "gif"]

    /// One file's outcome, in input order.
    enum Outcome: Sendable {
        case imported(ImportResult)
        case failed(String)
    }

    static func run(_ arguments: ParsedArguments) throws(CLIError) {
        let library = try LibraryAccess.open(arguments)
        let files = try collectFiles(arguments.positionals)
        guard !files.isEmpty else {
            throw .noInput("no photos found in \(arguments.positionals.joined(separator: ", "))")
        }
        let progress = Progress(total: files.count, interactive: terminalIsInteractive(STDERR_FILENO))
        let outcomes = importAll(files, into: library, progress: progress)
        progress.finish()
        report(files: files, outcomes: outcomes, json: arguments.has("--json"))
        let failures = outcomes.filter { if case .failed = $0 { true } else { false } }.count
        if failures > 0 {
            throw .data("\(failures) of \(files.count) file\(files.count == 1 ? "" : "s") could not be imported")
        }
    }

    /// Imports on as many threads as there are cores; each result lands in its own slot.
    static func importAll(_ files: [URL], into library: Library, progress: Progress) -> [Outcome] {
        let results = OutcomeSlots(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let outcome: Outcome
            do throws(LibraryError) {
                outcome = .imported(try library.importPhoto(from: files[index]))
            } catch {
                outcome = .failed(error.description)
            }
            results.set(index, outcome)
            progress.advance()
        }
        return results.values
    }

    static func collectFiles(_ inputs: [String]) throws(CLIError) -> [URL] {
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

    static func report(files: [URL], outcomes: [Outcome], json: Bool) {
        if json {
            Output.printJSON(
                .array(
                    zip(files, outcomes).map { file, outcome in
                        switch outcome {
                        case .imported(let result):
                            .object([
                                "file": .string(file.path), "id": .string(result.photo.id), "new": .bool(result.isNew),
                                "width": .number(Double(result.photo.width)),
                                "height": .number(Double(result.photo.height)),
                                "format": .string(result.photo.format),
                            ])
                        case .failed(let reason): .object(["file": .string(file.path), "error": .string(reason)])
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
            case .failed(let reason): failures.append(reason)
            }
        }
        var summary = "Imported \(new) new photo\(new == 1 ? "" : "s")"
        if known > 0 { summary += ", \(known) already in the library" }
        if !failures.isEmpty { summary += ", \(failures.count) failed" }
        Output.print(summary + ".")
        for failure in failures { Output.printError("  failed: \(failure)") }
    }
}

/// Results written by many threads, one slot each.
final class OutcomeSlots: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private var slots: [ImportCommand.Outcome?]
    private let lock = NSLock()

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ outcome: ImportCommand.Outcome) {
        lock.withLock { slots[index] = outcome }
    }

    var values: [ImportCommand.Outcome] {
        lock.withLock { slots.map { $0 ?? .failed("not imported") } }
    }
}

/// A progress bar on standard error: count, rate and time left. Silent when not on a terminal.
final class Progress: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let total: Int
    private let interactive: Bool
    private let started = Date()
    private var done = 0
    private var lastDraw = Date.distantPast
    private let lock = NSLock()

    init(total: Int, interactive: Bool) {
        self.total = total
        self.interactive = interactive
    }

    func advance() {
        lock.withLock {
            done += 1
            guard interactive, done == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            draw()
        }
    }

    func finish() {
        guard interactive else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw() {
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
