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
    static func writeRendered(to file: URL, _ save: (String) throws(RenderError) -> Void) throws(RenderError) {
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
