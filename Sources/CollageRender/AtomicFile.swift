import Foundation

/// Writes a file by saving to a hidden temporary name in the same folder and renaming it into
/// place, so readers see the old file or the whole new one, never a partial image.
enum AtomicFile {
    static func write(to file: URL, _ save: (String) throws(VipsError) -> Void) throws(RenderError) {
        try writeRendered(to: file) { path throws(RenderError) in
            do throws(VipsError) {
                try save(path)
            } catch {
                throw .cannotWrite(file.path, reason: error.message)
            }
        }
    }

    /// As ``write(to:_:)``, for a save that fails with its own ``RenderError`` (an animation
    /// stopped part way, an encoder's message), which is passed on as it is.
    static func writeRendered(to named: URL, _ save: (String) throws(RenderError) -> Void) throws(RenderError) {
        let file = try OutputTarget.resolve(named)
        let directory = file.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .cannotWrite(file.path, reason: "the folder \(directory.path) does not exist") }
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).partial")
        do throws(RenderError) {
            try save(temporary.path)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(file.path, reason: reason)
        }
    }
}

/// The file an output's name stands for, checked before anything is written there.
public enum OutputTarget {
    /// Where to write an output named `file`: through a symbolic link to what it names (a
    /// rename into place would replace the link itself), and never over a device, a pipe or a
    /// folder, which a rename would replace with an image (`-o /dev/full` did, run as root).
    /// - Throws: ``RenderError/cannotWrite(_:reason:)`` saying what the name is instead.
    public static func resolve(_ file: URL) throws(RenderError) -> URL {
        // Link by link, so that a link to a file yet to be made names where to make it; each link
        // read from its folder's real path, so `..` in it climbs from where the link really is.
        var target = file
        var links = 0
        while let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: target.path) {
            links += 1
            guard links <= 40 else {
                throw .cannotWrite(file.path, reason: "it is a loop of symbolic links; name a file to write")
            }
            let folder = target.deletingLastPathComponent().resolvingSymlinksInPath()
            target = URL(fileURLWithPath: destination, relativeTo: folder).standardizedFileURL
        }
        var status = stat()
        guard stat(target.path, &status) == 0 else { return target }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return target
        case S_IFDIR: kind = "a folder"
        case S_IFIFO: kind = "a named pipe"
        case S_IFSOCK: kind = "a socket"
        default: kind = "a device"
        }
        throw .cannotWrite(file.path, reason: "it is \(kind), not a file; name a file to write")
    }
}
