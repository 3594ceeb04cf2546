import Foundation

/// The folder of the running executable, where the libraries it loads on demand lie beside it.
public enum ExecutableFolder {
    /// The folder; found from `/proc/self/exe`, also when the binary was replaced (an upgrade)
    /// after the process started, which the kernel shows as "PATH (deleted)".
    public static func current() -> URL {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else {
            return URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        }
        var path = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return URL(fileURLWithPath: path).deletingLastPathComponent()
    }
}

/// A shared object opened when it is first needed (OpenCV behind the subject model, FFmpeg behind
/// animations), so commands that never need it do not pay for loading it. It is never closed.
public struct OnDemandLibrary: @unchecked Sendable {
    // @unchecked: a dlopen handle, never closed, whose functions are looked up by name.
    private let handle: UnsafeMutableRawPointer

    /// The function `name`, as the C type `type`, or nil when the library has none by that name.
    public func function<T>(_ name: String, as type: T.Type) -> T? {
        dlsym(handle, name).map { unsafeBitCast($0, to: type) }
    }

    /// The first of `candidates` that opens and from which `bind` takes what it needs.
    /// - Returns: what `bind` made, or every candidate's problem in one sentence.
    public static func open<Bound>(
        _ candidates: [String], bind: (OnDemandLibrary) -> Bound?
    ) -> Result<Bound, OnDemandLibraryProblem> {
        var problems: [String] = []
        for path in candidates {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                problems.append(dlerror().map { String(cString: $0) } ?? "\(path): cannot be opened")
                continue
            }
            guard let bound = bind(OnDemandLibrary(handle: handle)) else {
                problems.append("\(path) lacks the functions it should have (a different build?)")
                continue
            }
            return .success(bound)
        }
        return .failure(OnDemandLibraryProblem(description: problems.joined(separator: "; ")))
    }
}

/// Why no candidate of an ``OnDemandLibrary`` could be used, each one's problem said.
public struct OnDemandLibraryProblem: Error, CustomStringConvertible {
    /// The problems, one per candidate.
    public let description: String
}
