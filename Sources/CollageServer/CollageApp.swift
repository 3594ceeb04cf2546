import CollageCore
import CollageKit
import CollageRender
import Foundation
import Synchronization

/// The web editor's server side: the JSON API over the library, and the page itself.
///
/// Requests go through ``handle(_:)``, which needs no socket, so tests can call it directly;
/// ``CollageServer`` puts it on a real port.
public final class CollageApp: Sendable {
    /// The library, model and licence every route's use case works on.
    let workspace: Workspace
    /// The per-server token state-changing requests must carry (`X-Collage-Token`).
    public let token: String
    /// The `Host` values the loopback listener accepts; the home network's are its desk's.
    let allowedHosts: Set<String>
    /// The `Origin` values a change through the loopback listener may carry: this editor's own
    /// pages there.
    let allowedOrigins: Set<String>
    /// Who may reach the editor from the home network; `nil` when it serves this computer only.
    let homeNetwork: PairingDesk?
    let web: WebResources
    let version: String
    /// Finds the photos' subjects in the background, when asked to (``startAnalysingPhotos()``).
    let analyser: SubjectAnalyser?

    /// An app over `workspace` (its library, its subject model, and this user's licence, read
    /// afresh for every request that needs it: a key added on the command line or in another
    /// tab unlocks this editor at once).
    /// - Parameters:
    ///   - allowedHosts: the `Host` header values accepted, e.g. `127.0.0.1:8080`, `localhost:8080`.
    ///   - homeNetwork: lets paired devices on the home network in (`collage serve --lan`); without
    ///     it, a request from any address but this computer's own is refused.
    public init(
        workspace: Workspace, allowedHosts: Set<String>, token: String = CollageApp.newToken(),
        version: String = "0.1.0", homeNetwork: PairingDesk? = nil
    ) {
        self.workspace = workspace
        self.token = token
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedOrigins = Set(self.allowedHosts.map { "http://\($0)" })
        self.homeNetwork = homeNetwork
        self.web = WebResources()
        self.version = version
        self.analyser = SubjectAnalyser(workspace)
    }

    /// Starts finding the subjects of the library's photos in the background, lowest priority,
    /// one at a time, beginning with those imported first and going on with every upload, so
    /// lifts answer at once. Without a model it does nothing.
    public func startAnalysingPhotos() { analyser?.start() }

    /// Stops the background analysis after the photo under way.
    public func stopAnalysingPhotos() { analyser?.stop() }

    /// Makes uploaded photos' previews in the background, one photo at a time; a page that asks
    /// for one first has it made then (and one being made is waited for, not made twice).
    func makePreviewsSoon(of photos: [PhotoRecord]) {
        guard !photos.isEmpty else { return }
        previews.async { [self] in workspace.makePreviews(of: photos) { previewsStopped.withLock { $0 } } }
    }
    private let previews = DispatchQueue(label: "collage.previews", qos: .utility)
    private let previewsStopped = Mutex(false)

    /// Stops making previews after the one under way, and waits for it: a stopping server never
    /// exits in the middle of writing one.
    public func stopMakingPreviews() {
        previewsStopped.withLock { $0 = true }
        previews.sync {}
    }

    /// Every API route; the same table answers requests and writes the OpenAPI document.
    static let router = Router(routes: APIRoutes.all)

    /// 32 random hex characters.
    public static func newToken() -> String { Secrets.randomHex(bytes: 16) }

    /// The largest body of a pairing request, which anyone on the home network may send.
    static let maximumPairingBodyBytes = 1024

    /// The largest JSON body a request may carry.
    public static let maximumBodyBytes = 2 * 1024 * 1024
    /// The largest photo upload (all files of one request together).
    public static let maximumUploadBytes = 300 * 1024 * 1024

    /// The sticker sheets made lately.
    let sheets = SheetStore()
    /// Stickers cut for print lately, so a sheet made again with other paper or gaps only packs.
    let sheetCuts = CutStickerCache()
    /// Where a collage's stickers are drawn in their looks for its sheets.
    var sheetLooks: URL { ScratchSpace.folder.appendingPathComponent("looks") }
    /// Exports run two at a time (one per core here), eight more wait their turn.
    let exports = WorkGate(name: "exports", running: 2, waiting: 8)
    /// Collage thumbnails, likewise.
    let thumbnails = WorkGate(name: "thumbnails", running: 2, waiting: 32)
    /// Sticker lifts: the model runs on every core already, so one at a time.
    let lifts = WorkGate(name: "sticker lifts", running: 1, waiting: 4)
    /// Photo imports (decoding, thumbnails, previews): one upload's files are imported on every
    /// core, so one upload at a time; others wait their turn (a large one can take minutes).
    let imports = WorkGate(name: "photo imports", running: 1, waiting: 8, patience: .seconds(300))

    /// Refuses expensive work from now on, queued or new, so that stopping waits only for the
    /// jobs already running.
    func stopAcceptingWork() {
        for gate in [exports, thumbnails, lifts, imports] { gate.close() }
    }

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
        // Each listener answers to its own names: the loopback one to this computer's, the home
        // network's to the addresses and names a phone uses.
        let desk = request.arrivedOnHomeNetwork ? homeNetwork : nil
        guard (desk?.hosts ?? allowedHosts).contains(host) else {
            let home = desk.map { "\($0.origin)/" } ?? allowedHosts.sorted().first.map { "http://\($0)/" }
            throw HTTPError(
                .misdirected,
                "the Host header \"\(host)\" is not the address this editor serves; open it at "
                    + (home ?? "its own address"))
        }
        let segments = try Self.segments(of: request.path)
        let declaresBody =
            request.headers["transfer-encoding"] != nil
            || (request.headers["content-length"].map { $0 != "0" } ?? false)
        let caller = try identify(request)
        if case .stranger = caller, !Self.openToStrangers.contains(segments) {
            // A browser opening the editor's address on a device not paired yet is shown how to
            // pair; nothing it sends is read.
            if request.method == "GET", !declaresBody, (request.headers["accept"] ?? "").contains("text/html") {
                return .page(web.pairingPage(status: .unauthorized, fingerprint: homeNetwork?.fingerprint))
            }
            throw Self.notPaired
        }
        let isMultipart = request.headers["content-type"]?.lowercased().hasPrefix("multipart/") ?? false
        if request.method == "GET" || request.method == "HEAD",
            let page = try web.response(for: segments, token: token, fingerprint: homeNetwork?.fingerprint)
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
            if case .device = caller, route.access == .thisComputer {
                throw HTTPError(
                    .forbidden, "only the computer running Collage can pair and revoke devices; use its editor")
            }
            if case .stranger = caller, route.access != .anyone { throw Self.notPaired }
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
            }
            // Every change must come from this editor's own pages, pairing included: another
            // site must not spend a phone's tries at a code.
            if route.needsToken || route.isStateChanging { try checkSameOrigin(request) }
            if route.access == .anyone {
                guard let declared = request.headers["content-length"], let length = Int(declared),
                    (0...Self.maximumPairingBodyBytes).contains(length)
                else {
                    throw HTTPError(
                        .payloadTooLarge,
                        "pairing takes a JSON body of at most \(Self.maximumPairingBodyBytes) bytes, with its length")
                }
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

    /// Who is asking: this computer, a paired device, or a device that is neither.
    enum Caller {
        case thisComputer
        case device(PairedDevice)
        case stranger
    }

    /// Who sent `request`: a request from another address than this computer's own is a paired
    /// device's only with its cookie.
    func identify(_ request: HTTPRequest) throws(HTTPError) -> Caller {
        guard let address = request.clientAddress, !PairingDesk.isLoopback(address) else { return .thisComputer }
        guard let homeNetwork else {
            throw HTTPError(.forbidden, "this editor serves only the computer it runs on")
        }
        if let device = homeNetwork.device(for: request, in: workspace) { return .device(device) }
        return .stranger
    }

    /// What a device that is not paired may ask for: the pairing page, its script and style, and
    /// pairing. None of them says anything of the library.
    static let openToStrangers: Set<[String]> = [
        ["pair"], ["static", "pair.js"], ["static", "pair.css"], ["api", "pair"],
    ]

    /// The answer to a device that is not paired, for anything but pairing.
    static let notPaired = HTTPError(
        .unauthorized,
        "this device is not paired with this Collage editor: on the computer running Collage, choose "
            + "Pair a phone and scan its code (or open its link) here")

    /// A request with the token that a browser says comes from another site is refused: the
    /// token should never leave this editor's pages, and this catches it if it does.
    private func checkSameOrigin(_ request: HTTPRequest) throws(HTTPError) {
        if let origin = request.headers["origin"]?.lowercased() {
            let origins = request.arrivedOnHomeNetwork ? homeNetwork?.origins ?? [] : allowedOrigins
            guard origins.contains(origin) else {
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
            // The body is checked against the route's fields once, here, before any handler reads it.
            if let fields = route.fields {
                let json = request.body.isEmpty && route.bodyIsOptional ? JSONValue.object([:]) : try request.json()
                request.checkedBody = try CheckedBody(json, fields: fields, status: route.wrongTypeStatus)
            }
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

    /// The OpenAPI document for this server's routes.
    public var openAPIDocument: JSONValue { Self.router.openAPI(version: version) }
}

extension Failure {
    /// How the API reports this failure: its status (the table is CollageKit's), fields by name.
    var httpError: HTTPError {
        var text = text(optionPrefix: "")
        if kind == .locked { text += "; add a licence key (POST /api/licence) to unlock every premium layout" }
        var error = HTTPError(HTTPStatus.of(httpStatus), text)
        // What a person is shown: the reason without paths or libvips' words.
        if let plainMessage { error.extra["plain"] = .string(plainMessage) }
        return error
    }
}
