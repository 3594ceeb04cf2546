import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
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
    /// The user's licence, read afresh for every request that needs it: a key added on the
    /// command line or in another tab unlocks this editor at once.
    let licences: LicenceStore
    /// Finds the photos' subjects in the background, when asked to (``startAnalysingPhotos()``).
    let analyser: SubjectAnalyser?

    /// An app over `library`.
    /// - Parameters:
    ///   - model: the subject model for stickers and smart crops; `nil` turns both off.
    ///   - allowedHosts: the `Host` header values accepted, e.g. `127.0.0.1:8080`, `localhost:8080`.
    ///   - licences: where the user's licence is kept (``LicenceStore/standard(environment:)`` by default).
    public init(
        library: Library, model: SubjectModel?, allowedHosts: Set<String>, token: String = CollageApp.newToken(),
        version: String = "0.1.0", licences: LicenceStore = .standard()
    ) {
        self.library = library
        self.model = model
        self.licences = licences
        self.token = token
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.web = WebResources()
        self.version = version
        self.analyser = model.map { SubjectAnalyser(library: library, model: $0) }
    }

    /// Starts finding the subjects of the library's photos in the background, lowest priority,
    /// one at a time, beginning with those imported first and going on with every upload, so
    /// lifts answer at once. Without a model it does nothing.
    public func startAnalysingPhotos() { analyser?.start() }

    /// Stops the background analysis after the photo under way.
    public func stopAnalysingPhotos() { analyser?.stop() }

    /// Every API route; the same table answers requests and writes the OpenAPI document.
    static let router = Router(routes: APIRoutes.all)

    /// 32 random hex characters.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// The largest JSON body a request may carry.
    public static let maximumBodyBytes = 2 * 1024 * 1024
    /// The largest photo upload (all files of one request together).
    public static let maximumUploadBytes = 300 * 1024 * 1024

    /// The sticker sheets made lately.
    let sheets = SheetStore()
    /// Stickers cut for print lately, so a sheet made again with other paper or gaps only packs.
    let sheetCuts = CutStickerCache()
    /// Exports run two at a time (one per core here), eight more wait their turn.
    let exports = WorkGate(name: "exports", running: 2, waiting: 8)
    /// Collage thumbnails, likewise.
    let thumbnails = WorkGate(name: "thumbnails", running: 2, waiting: 32)
    /// Sticker lifts: the model runs on every core already, so one at a time.
    let lifts = WorkGate(name: "sticker lifts", running: 1, waiting: 4)
    /// Photo imports (decoding, thumbnails, previews): one upload's files are imported on every
    /// core, so one upload at a time; others wait their turn (a large one can take minutes).
    let imports = WorkGate(name: "photo imports", running: 1, waiting: 8, patience: .seconds(300))

    /// Answers one request.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        do {
            response = try route(request)
        } catch {
            response = error.response
        }
        return Self.secured(response)
    }

    /// Judges a request from its line and headers alone, before its body is read: the Host, the
    /// path, the method, the token, where it comes from, and its declared size. `nil` admits it;
    /// a response refuses it (the server sends it without reading the body).
    public func admit(_ request: HTTPRequest) -> HTTPResponse? {
        do {
            _ = try admission(request)
            return nil
        } catch {
            return Self.secured(error.response)
        }
    }

    /// Every response forbids framing (clickjacking) and content sniffing.
    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        if response.headers["Content-Security-Policy"] == nil {
            response.headers["Content-Security-Policy"] = "default-src 'none'; frame-ancestors 'none'"
        }
        return response
    }

    /// What a request is, once its headers pass: a page, or an API route with its parameters.
    private enum Admitted {
        case page(HTTPResponse)
        case route(Route, [String: String])
    }

    private func admission(_ request: HTTPRequest) throws(HTTPError) -> Admitted {
        let host = (request.headers["host"] ?? "").lowercased()
        guard allowedHosts.contains(host) else {
            throw HTTPError(
                .misdirected,
                "the Host header \"\(host)\" is not the address this editor serves; open it at "
                    + (allowedHosts.sorted().first.map { "http://\($0)/" } ?? "its own address"))
        }
        let segments = try Self.segments(of: request.path)
        let declaresBody =
            request.headers["transfer-encoding"] != nil
            || (request.headers["content-length"].map { $0 != "0" } ?? false)
        let isMultipart = request.headers["content-type"]?.lowercased().hasPrefix("multipart/") ?? false
        if request.method == "GET" || request.method == "HEAD", let page = try web.response(for: segments, token: token)
        {
            guard !declaresBody else { throw HTTPError(.badRequest, "a page request carries no body") }
            return .page(page)
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
            if route.needsToken {
                guard request.headers["x-collage-token"] == token else {
                    throw HTTPError(
                        .forbidden,
                        route.isStateChanging
                            ? "this request changes the library and needs the page's token in X-Collage-Token; "
                                + "reload the page"
                            : "this request starts expensive work and needs the page's token in X-Collage-Token; "
                                + "reload the page")
                }
                try checkSameOrigin(request)
            }
            // Only the upload route's body is streamed to disk; elsewhere multipart is refused
            // before a byte of it is stored.
            if isMultipart, !route.takesUpload {
                throw HTTPError(.unsupportedMediaType, "only POST /api/photos takes multipart uploads")
            }
            if request.method == "GET" || request.method == "HEAD", declaresBody {
                throw HTTPError(.badRequest, "a \(request.method) request carries no body")
            }
            if let declared = request.headers["content-length"] {
                let limit = route.takesUpload ? Self.maximumUploadBytes : Self.maximumBodyBytes
                guard let length = Int(declared), length >= 0 else {
                    throw HTTPError(.badRequest, "Content-Length must be a whole number of bytes, got \"\(declared)\"")
                }
                guard length <= limit else {
                    throw HTTPError(
                        .payloadTooLarge,
                        "the request body is \(length) bytes, over the limit of \(limit / 1_048_576) MB")
                }
            }
            return .route(route, parameters)
        }
    }

    /// A request with the token that a browser says comes from another site is refused: the
    /// token should never leave this editor's pages, and this catches it if it does.
    private func checkSameOrigin(_ request: HTTPRequest) throws(HTTPError) {
        if let origin = request.headers["origin"]?.lowercased() {
            let allowed = allowedHosts.map { "http://\($0)" }
            guard allowed.contains(origin) else {
                throw HTTPError(.forbidden, "requests from \(origin) may not change this library")
            }
        }
        if let site = request.headers["sec-fetch-site"]?.lowercased(), !["same-origin", "none"].contains(site) {
            throw HTTPError(.forbidden, "requests from another site (\(site)) may not change this library")
        }
    }

    private func route(_ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        switch try admission(request) {
        case .page(let page):
            return page
        case .route(let route, let parameters):
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
    /// model and the subject is known, so the page, thumbnails and exports agree. A request
    /// never waits for the model: a photo not analysed yet is centred until the background
    /// analysis finds its subject (or, with `--no-analyse`, until a lift or `collage import` does).
    var photoSource: LibrarySubjectFocusSource {
        LibrarySubjectFocusSource(library: library, model: model, findsMissing: false)
    }

    /// What the stored licence allows now.
    var access: PremiumAccess { PremiumAccess(store: licences) }

    /// The OpenAPI document for this server's routes.
    public var openAPIDocument: JSONValue { Self.router.openAPI(version: version) }
}

extension Failure {
    /// How the API reports this failure: its status (the table is CollageKit's), fields by name.
    var httpError: HTTPError {
        var text = text(optionPrefix: "")
        if kind == .locked { text += "; add a licence key (POST /api/licence) to unlock every premium layout" }
        return HTTPError(HTTPStatus.of(httpStatus), text)
    }
}

extension LibraryError {
    /// The HTTP status and message for a library failure.
    var httpError: HTTPError { failure.httpError }
}

/// Runs library work, answering its failures with fitting statuses.
func library<T>(_ body: () throws(LibraryError) -> T) throws(HTTPError) -> T {
    do {
        return try body()
    } catch {
        throw error.httpError
    }
}

extension LicenceError {
    /// A refused key is the request's fault (422); a licence file that cannot be written is ours (500).
    var httpError: HTTPError { failure.httpError }
}
