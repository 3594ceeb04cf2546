import Foundation

/// The editor's static files, read once from the package's resources: an allowlist, so no
/// request path ever reaches the file system.
struct WebResources: Sendable {
    private let files: [String: Data]

    init() {
        var files: [String: Data] = [:]
        if let folder = Bundle.module.url(forResource: "web", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        {
            for name in names where !name.hasPrefix(".") {
                files[name] = try? Data(contentsOf: folder.appendingPathComponent(name))
            }
        }
        self.files = files
    }

    /// The page for `/` (with the token filled in) and the files under `/static/`; `nil` for
    /// other paths, which are the API's.
    func response(for segments: [String], token: String, fingerprint: String?) throws(HTTPError) -> HTTPResponse? {
        if segments.isEmpty || segments == ["index.html"] {
            guard let page = files["index.html"] else {
                throw HTTPError(.internalError, "the editor's files are missing from this build")
            }
            let html = String(decoding: page, as: UTF8.self).replacingOccurrences(of: "{{TOKEN}}", with: token)
            return Self.page(
                html, status: .ok,
                policy: "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
                    + "frame-ancestors 'none'")
        }
        if segments == ["pair"] { return pairingPage(status: .ok, fingerprint: fingerprint) }
        guard segments.count == 2, segments[0] == "static" else { return nil }
        guard let data = files[segments[1]], !segments[1].hasSuffix(".html") else {
            throw HTTPError(.notFound, "no editor file named \"\(segments[1])\"")
        }
        return HTTPResponse(
            headers: [
                "Content-Type": Self.contentType(segments[1]), "Cache-Control": "no-cache",
                "X-Content-Type-Options": "nosniff",
            ], body: data)
    }

    /// The page that pairs a phone or tablet: it holds nothing of the library, and is what a
    /// device that is not paired sees wherever it goes.
    /// - Parameter fingerprint: the TLS certificate's, for the person to compare before pairing.
    func pairingPage(status: HTTPStatus, fingerprint: String?) -> HTTPResponse {
        let page = String(
            decoding: files["pair.html"] ?? Data("<!doctype html><title>Pair</title>".utf8), as: UTF8.self
        )
        .replacingOccurrences(
            of: "{{FINGERPRINT}}", with: fingerprint.map { TLSIdentity.lines(of: $0).joined(separator: "\n") } ?? "")
        return Self.page(
            page, status: status,
            policy: "default-src 'none'; img-src data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
                + "frame-ancestors 'none'")
    }

    /// An HTML page: never cached (it may hold the token), never sniffed or framed, and sent
    /// with no Referer onwards; `policy` is its Content-Security-Policy.
    private static func page(_ html: String, status: HTTPStatus, policy: String) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [
                "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                "Content-Security-Policy": policy, "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            ], body: Data(html.utf8))
    }

    static func contentType(_ name: String) -> String {
        switch URL(fileURLWithPath: name).pathExtension {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "html": "text/html; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
