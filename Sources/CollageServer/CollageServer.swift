import CollageKit
import Foundation
import Synchronization

/// The editor on a real port: ``CollageApp`` behind libmicrohttpd.
public final class CollageServer: Sendable {
    /// The app answering requests.
    public let app: CollageApp
    private let server: HTTPServer
    /// The home network side, when there is one (`--lan`).
    private let homeServer: HTTPServer?

    /// The address to open in a browser on this computer.
    public var url: URL {
        let host = server.host.contains(":") ? "[\(server.host)]" : server.host
        return URL(string: "http://\(host):\(server.port)/") ?? URL(fileURLWithPath: "/")
    }

    /// The port it listens on (useful with port 0).
    public var port: Int { server.port }

    /// The home network certificate's SHA-256 fingerprint, when it speaks TLS.
    public var fingerprint: String? { app.homeNetwork?.fingerprint }

    /// A new one-time pairing code's link and QR code (`nil` without `--lan`).
    public func newPairingLink() -> (link: String, qr: QRCode?, expires: Date)? {
        guard let desk = app.homeNetwork else { return nil }
        let (_, link, expires) = desk.newCode()
        return (link, QRCode(link), expires)
    }

    /// Starts serving `workspace`'s library on `host`:`port` (0 picks a free port).
    /// - Parameters:
    ///   - host: a loopback address: other devices come in only through `homeNetwork`.
    ///   - homeNetwork: also listen on the home network, where devices get in once paired (their
    ///     TLS certificate is made on first use and kept in the library's folder).
    ///   - analysesPhotos: find the photos' subjects in the background (see
    ///     ``CollageApp/startAnalysingPhotos()``).
    public init(
        workspace: Workspace, host: String = "127.0.0.1", port: Int = 8080,
        homeNetwork: HomeNetworkSettings? = nil, analysesPhotos: Bool = true
    ) throws(ServerError) {
        guard host == "localhost" || PairingDesk.isLoopback(host) else { throw .remoteNotAllowed(host) }
        let bindHost = host == "localhost" ? "127.0.0.1" : host
        // Makes this server's scratch folder now, which also removes what killed servers left.
        _ = ScratchSpace.folder
        // The Host header is checked against the port before it is known, so bind first.
        let holder = AppHolder()
        // One pair of body limits: the app's, which admission checks against Content-Length.
        let limits = HTTPServer.Limits(
            maximumBodyBytes: CollageApp.maximumBodyBytes, maximumUploadBytes: CollageApp.maximumUploadBytes)
        server = try HTTPServer(
            host: bindHost, port: port, limits: limits, admit: { request in holder.admit(request) },
            handler: { request in holder.handle(request) })
        var desk: PairingDesk?
        if let homeNetwork {
            let identity =
                homeNetwork.usesTLS
                ? try TLSIdentity.loadOrCreate(
                    in: workspace.folder, addresses: [homeNetwork.address],
                    names: HomeNetworkSettings.hostName().map { [$0, "\($0).local"] } ?? [])
                : nil
            let started = try HTTPServer(
                host: homeNetwork.listenAddress, port: homeNetwork.port, limits: limits, tls: identity,
                isHomeNetwork: true, admit: { request in holder.admit(request) },
                handler: { request in holder.handle(request) })
            homeServer = started
            desk = PairingDesk(settings: homeNetwork, port: started.port, fingerprint: identity?.fingerprint)
        } else {
            homeServer = nil
        }
        let boundPort = server.port
        var hosts: Set<String> = ["127.0.0.1:\(boundPort)", "localhost:\(boundPort)", "[::1]:\(boundPort)"]
        hosts.insert((bindHost.contains(":") ? "[\(bindHost)]" : bindHost) + ":\(boundPort)")
        app = CollageApp(workspace: workspace, allowedHosts: hosts, homeNetwork: desk)
        holder.set(app)
        if analysesPhotos { app.startAnalysingPhotos() }
    }

    /// Stops accepting connections and waits for the requests in flight.
    public func stop() {
        app.stopAcceptingWork()
        app.stopAnalysingPhotos()
        app.stopMakingPreviews()
        homeServer?.stop()
        server.stop()
    }
}

/// Lets the server start before the app (which needs the bound port) exists.
private final class AppHolder: Sendable {
    private let app = Mutex<CollageApp?>(nil)

    func set(_ app: CollageApp) { self.app.withLock { $0 = app } }

    func admit(_ request: HTTPRequest) -> HTTPResponse? {
        guard let app = app.withLock({ $0 }) else { return Self.starting }
        return app.admit(request)
    }

    /// Refused before its body is read: nothing is admitted until the app is there to judge it.
    static let starting = HTTPError(.unavailable, "the editor is starting; try again in a moment").response

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let app = app.withLock({ $0 }) else { return Self.starting }
        return app.handle(request)
    }
}
