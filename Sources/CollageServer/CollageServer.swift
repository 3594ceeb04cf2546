import CollageKit
import Foundation
import Synchronization

/// The editor on a real port: ``CollageApp`` behind libmicrohttpd.
public final class CollageServer: Sendable {
    /// The app answering requests.
    public let app: CollageApp
    private let server: HTTPServer

    /// The address to open in a browser.
    public var url: URL {
        let host = server.host.contains(":") ? "[\(server.host)]" : server.host
        return URL(string: "http://\(host):\(server.port)/") ?? URL(fileURLWithPath: "/")
    }

    /// The port it listens on (useful with port 0).
    public var port: Int { server.port }

    /// Starts serving `workspace`'s library on `host`:`port` (0 picks a free port).
    /// - Parameters:
    ///   - allowRemote: needed to bind anything but a loopback address.
    ///   - analysesPhotos: find the photos' subjects in the background (see
    ///     ``CollageApp/startAnalysingPhotos()``).
    public init(
        workspace: Workspace, host: String = "127.0.0.1", port: Int = 8080, allowRemote: Bool = false,
        analysesPhotos: Bool = true
    ) throws(ServerError) {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
        guard loopback || allowRemote else { throw .remoteNotAllowed(host) }
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
        let boundPort = server.port
        var hosts: Set<String> = ["127.0.0.1:\(boundPort)", "localhost:\(boundPort)", "[::1]:\(boundPort)"]
        hosts.insert((bindHost.contains(":") ? "[\(bindHost)]" : bindHost) + ":\(boundPort)")
        app = CollageApp(workspace: workspace, allowedHosts: hosts)
        holder.set(app)
        if analysesPhotos { app.startAnalysingPhotos() }
    }

    /// Stops accepting connections and waits for the requests in flight.
    public func stop() {
        app.stopAnalysingPhotos()
        server.stop()
    }
}

/// Lets the server start before the app (which needs the bound port) exists.
private final class AppHolder: Sendable {
    private let app = Mutex<CollageApp?>(nil)

    func set(_ app: CollageApp) { self.app.withLock { $0 = app } }

    func admit(_ request: HTTPRequest) -> HTTPResponse? {
        app.withLock { $0 }?.admit(request)
    }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard let app = app.withLock({ $0 }) else {
            return HTTPError(.unavailable, "the editor is starting; try again in a moment").response
        }
        return app.handle(request)
    }
}
