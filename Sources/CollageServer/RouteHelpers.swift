import CollageCore
import CollageKit
import CollageRender
import Foundation
import Synchronization

/// What the route files share to answer with files and read JSON bodies.
extension APIRoutes {
    static let immutableCache = "private, max-age=31536000, immutable"

    static func fileResponse(_ file: URL, type: String, tag: String, immutable: Bool) throws(HTTPError) -> HTTPResponse
    {
        guard let data = try? Data(contentsOf: file) else {
            throw HTTPError(.notFound, "the image file is missing on disk")
        }
        return HTTPResponse(
            headers: [
                "Content-Type": type, "ETag": tag, "Cache-Control": immutable ? immutableCache : "private, no-cache",
            ], body: data)
    }

    static func mimeType(_ format: OutputFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}

extension JSONValue {
    func member(_ key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var stringValue: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var numberValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }
}

/// Watches for a client hanging up while its request is worked on, and calls `gone` once if it does.
final class ClientWatch: Sendable {
    private let watching = Mutex(true)

    init(_ isClientGone: @escaping @Sendable () -> Bool, gone: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            while watching.withLock({ $0 }) {
                if isClientGone() {
                    gone()
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// Stops watching; the request is answered.
    func stop() { watching.withLock { $0 = false } }
}
