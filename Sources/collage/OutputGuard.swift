import CollageKit
import CollageRender
import Foundation

/// Keeps a command from writing over what it reads: `-o` naming one of its own photos replaced
/// the photo with the collage, and a sheet's page previews replaced the stickers they showed.
enum OutputGuard {
    /// Refuses when `output` is the same file as one of `inputs` (by device and inode, so a
    /// second name or a link to it counts), or, with `siblings`, when an input is a file the
    /// output writes beside itself (a name `siblings` accepts, in the output's folder).
    /// - Parameters:
    ///   - flag: how the person named the output (`-o`, `--save-document`).
    ///   - what: what the command writes there ("the collage", "the sheet").
    static func refuseOverwriting(
        _ inputs: [String], with output: URL, flag: String = "-o", what: String,
        siblings: ((String) -> Bool)? = nil
    ) throws(Failure) {
        let target = identity(of: output.path)
        let resolvedOutput = output.standardizedFileURL.resolvingSymlinksInPath()
        let folder = resolvedOutput.deletingLastPathComponent().path
        for input in inputs {
            let source = URL(fileURLWithPath: input)
            // The same file, or the same name of one still to be made (-o and --save-document
            // naming one new file).
            let sameName = source.standardizedFileURL.resolvingSymlinksInPath().path == resolvedOutput.path
            if sameName || (target != nil && identity(of: input) == target) {
                throw .usage(
                    "\(flag) \(output.path) is \(input), one of the files to read: write \(what) to another file")
            }
            let resolved = source.standardizedFileURL.resolvingSymlinksInPath()
            if let siblings, FileManager.default.fileExists(atPath: input),
                resolved.deletingLastPathComponent().path == folder, siblings(resolved.lastPathComponent)
            {
                throw .usage(
                    "\(what) writes \(resolved.lastPathComponent) beside \(output.path), and that is \(input), one of "
                        + "the files to read: write \(what) to another name or folder")
            }
        }
    }

    /// The file an output's name stands for (through symbolic links), refused when it is a
    /// device, a pipe or a folder (see ``OutputTarget/resolve(_:)``).
    static func target(_ output: URL) throws(Failure) -> URL {
        do throws(RenderError) {
            return try OutputTarget.resolve(output)
        } catch {
            throw error.failure
        }
    }

    /// A file's device and inode, or nil when there is no such file.
    private static func identity(of path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}
