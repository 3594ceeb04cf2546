import CollageCore
import CollageLibrary
import CollageRender
import Foundation
import Stickers

/// The web editor's server side: the JSON API over the library, and the page itself.
///
/// Requests go through ``handle(_:)``, which needs no socket, so tests can call it directly;
/// ``CollageServer`` puts it on a real port.
public final class CollageApp: Sendable {
    let library: Library
    let model: SubjectModel?
    /// The per-server token state-changing requests must carry (`X-Collage-Token`).
    public let token: String
    let allowedHosts: Set<String>
    let web: WebResources
    let version: String

    /// An app over `library`.
    /// - Parameters:
    ///   - model: the subject model for stickers and smart crops; `nil` turns both off.
    ///   - allowedHosts: the `Host` header values accepted, e.g. `127.0.0.1:8080`, `localhost:8080`.
    public init(
        library: Library, model: SubjectModel?, allowedHosts: Set<String>, token: String = CollageApp.newToken(),
        version: String = "0.1.0"
    ) {
        self.library = library
        self.model = model
        self.token = token
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.web = WebResources()
        self.version = version
    }

    /// Every API route; the same table answers requests and writes the OpenAPI document.
    static let router = Router(routes: APIRoutes.all)

    /// 32 random hex characters.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// Answers one request.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch {
            return error.response
        }
    }

    private func route(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let host = (request.headers["host"] ?? "").lowercased()
        guard allowedHosts.contains(host) else {
            throw HTTPError(
                .misdirected,
                "the Host header \"\(host)\" is not the address this editor serves; open it at "
                    + (allowedHosts.sorted().first.map { "http://\($0)/" } ?? "its own address"))
        }
        let segments = try Self.segments(of: request.path)
        if request.method == "GET" || request.method == "HEAD", let page = try web.response(for: segments, token: token)
        {
            return page
        }
        switch Self.router.match(method: request.method, segments: segments) {
        case .notFound:
            throw HTTPError(.notFound, "nothing at \(request.path)")
        case .wrongMethod(let allowed):
            var error = HTTPError(
                .methodNotAllowed, "\(request.method) is not allowed here; use \(allowed.joined(separator: " or "))")
            error.extra["allowed"] = .array(allowed.map(JSONValue.string))
            throw error
        case .found(let route, let parameters):
            if route.isStateChanging, request.headers["x-collage-token"] != token {
                throw HTTPError(
                    .forbidden,
                    "this request changes the library and needs the page's token in X-Collage-Token; reload the page")
            }
            var request = request
            request.parameters = parameters
            return try route.handler(self, request)
        }
    }

    /// Path segments, refusing `..`, `.`, backslashes and control characters before anything
    /// touches the disk.
    static func segments(of path: String) throws(HTTPError) -> [String] {
        guard path.hasPrefix("/") else { throw HTTPError(.badRequest, "the path must start with /") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for segment in segments {
            if segment == ".." || segment == "." || segment.contains("\\")
                || segment.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            {
                throw HTTPError(.badRequest, "the path \"\(path)\" is not allowed")
            }
        }
        return segments
    }

    /// How every render and every page crops photos: around their subject when there is a
    /// model, so the page, thumbnails and exports agree.
    var photoSource: LibrarySubjectFocusSource { LibrarySubjectFocusSource(library: library, model: model) }

    /// The OpenAPI document for this server's routes.
    public var openAPIDocument: JSONValue { Self.router.openAPI(version: version) }
}

extension LibraryError {
    /// The HTTP status and message for a library failure.
    var httpError: HTTPError {
        switch self {
        case .unknownCollage, .unknownPhoto, .unknownSticker, .missingPhotoFile: HTTPError(.notFound, description)
        case .edit, .image: HTTPError(.unprocessable, description)
        case .invalid: HTTPError(.badRequest, description)
        case .staleVersion: HTTPError(.conflict, description)
        case .unwritable, .notALibrary, .newerSchema, .database: HTTPError(.internalError, description)
        }
    }
}

/// Runs library work, answering its failures with fitting statuses.
func library<T>(_ body: () throws(LibraryError) -> T) throws(HTTPError) -> T {
    do {
        return try body()
    } catch {
        throw error.httpError
    }
}
