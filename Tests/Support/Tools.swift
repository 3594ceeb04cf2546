import Foundation

/// Runs command-line tools the way a person would, for inputs the project's API does not make
/// and checks it should not make for itself (libvips' `vips` and `vipsheader`).
public enum Tools {
    /// What a tool printed on standard output, trimmed, and its exit status.
    public static func run(
        _ tool: String, _ arguments: [String], in directory: URL? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
}
