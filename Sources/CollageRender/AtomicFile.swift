import Foundation

/// Writes a file by saving to a hidden temporary name in the same folder and renaming it into
/// place, so readers see the old file or the whole new one, never a partial image.
enum AtomicFile {
    static func write(to file: URL, _ save: (String) throws(VipsError) -> Void) throws(RenderError) {
        let directory = file.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .cannotWrite(file.path, reason: "the folder \(directory.path) does not exist") }
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).partial")
        do {
            try save(temporary.path)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(file.path, reason: error.message)
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .cannotWrite(file.path, reason: reason)
        }
    }
}
