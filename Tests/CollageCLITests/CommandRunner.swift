import CollageTestSupport
import Foundation

/// Runs the built `collage` executable as a user would, capturing its output and exit status.
enum CommandRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The `collage` binary next to the test bundle in the build folder.
    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [beside, beside.deletingLastPathComponent()].map { $0.appendingPathComponent("collage") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// A configuration folder with no licence in it.
    static let lockedConfig: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "collage-locked-config-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    static func run(
        _ arguments: [String], stdin: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        // Each run sees no licence unless the test gives one (XDG_CONFIG_HOME): the developer's
        // own licence, if any, must not change what a test sees.
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_CONFIG_HOME": lockedConfig.path].merging(environment) { $1 }
        ) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting so a chatty child cannot fill a pipe and stall.
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory, removed by the caller's `defer`.
    static func temporaryDirectory() throws -> URL { try TemporaryFolder.make("collage-cli") }
}
