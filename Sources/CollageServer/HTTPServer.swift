import CMicroHTTPD
import CollageCore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A running HTTP server over GNU libmicrohttpd: one thread per connection, requests handed to a
/// Swift closure. Owns the daemon; ``stop()`` (or deinit) shuts it down after in-flight requests.
///
/// Each request is judged on its request line and headers first (``ServerContext/admit``): a
/// request the app would refuse is answered before a byte of its body is read or stored.
final class HTTPServer: Sendable {
    /// The running daemon; `nil` once stopped.
    private let daemon: Mutex<OpaquePointer?>
    private let context: Unmanaged<ServerContext>
    /// The port it listens on.
    let port: Int
    /// The address it listens on.
    let host: String
    /// Whether it speaks TLS.
    let isSecure: Bool
    /// The PEM key and certificate libmicrohttpd reads while the daemon runs; freed after it stops.
    private let tlsTexts: TLSTexts?

    struct Limits: Sendable {
        /// The largest request body kept in memory (JSON and the like).
        var maximumBodyBytes: Int
        /// The largest upload streamed to disk.
        var maximumUploadBytes: Int
        /// Connections open at once, from everyone.
        var connectionLimit: UInt32 = 1000
        /// Connections open at once from one address, so one client cannot starve the others.
        var connectionsPerAddress: UInt32 = 64
        /// A connection idle this long is closed.
        var timeoutSeconds: UInt32 = 60
        /// A connection must deliver a request's headers within this time of opening (or of its
        /// previous response), however slowly it trickles them.
        var headerDeadline: Duration = .seconds(10)
        /// A body may start slowly for this long before its rate is judged.
        var bodyGrace: Duration = .seconds(15)
        /// The least average rate a body must keep after the grace period.
        var minimumBodyBytesPerSecond = 1024
    }

    /// Starts listening on `host`:`port` (0 picks a free port).
    /// - Parameters:
    ///   - admit: judges a request from its line and headers alone; a response refuses it.
    ///   - handler: answers a request whose body is in.
    /// - Parameters:
    ///   - tls: the key and certificate to speak TLS with; plain HTTP when `nil`.
    ///   - isHomeNetwork: whether this is the home network's listener; its requests say so.
    init(
        host: String, port: Int, limits: Limits, tls: TLSIdentity? = nil, isHomeNetwork: Bool = false,
        admit: @escaping @Sendable (HTTPRequest) -> HTTPResponse? = { _ in nil },
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(ServerError) {
        let watch = ConnectionWatch(headerDeadline: limits.headerDeadline)
        let context = Unmanaged.passRetained(
            ServerContext(
                admit: admit, handler: handler, limits: limits, watch: watch, isSecure: tls != nil,
                isHomeNetwork: isHomeNetwork))
        let texts = tls.map { TLSTexts(key: $0.keyPEM, certificate: $0.certificatePEM) }
        let started = CMicroHTTPD_start(
            host, UInt16(clamping: port), accessHandler, context.toOpaque(), requestCompleted, context.toOpaque(),
            requestLine, connectionChanged, limits.connectionLimit, limits.connectionsPerAddress,
            limits.timeoutSeconds, texts?.key, texts?.certificate)
        guard let started else {
            context.release()
            texts?.free()
            throw ServerError.cannotListen(host: host, port: port)
        }
        self.tlsTexts = texts
        self.isSecure = tls != nil
        self.port = Int(CMicroHTTPD_bound_port(started))
        self.daemon = Mutex(started)
        self.context = context
        self.host = host
        watch.start()
    }

    deinit { stop() }

    /// Stops accepting, waits for the requests in flight, and frees the daemon.
    func stop() {
        daemon.withLock { daemon in
            guard let running = daemon else { return }
            context.takeUnretainedValue().watch.stop()
            MHD_stop_daemon(running)
            daemon = nil
            context.release()
            tlsTexts?.free()
        }
    }
}

/// Why the server could not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The address or port is taken or not valid.
    case cannotListen(host: String, port: Int)
    /// Binding a non-loopback address without `--lan`.
    case remoteNotAllowed(String)
    /// The home network's TLS certificate could not be made or read.
    case certificate(String)

    /// A sentence saying what to do.
    public var description: String {
        switch self {
        case .cannotListen(let host, let port):
            "cannot listen on \(host):\(port) (is the port in use, or the address not one of this machine's?); "
                + "choose another with --port or --host"
        case .remoteNotAllowed(let host):
            "\(host) is not a loopback address: the editor would be open to every device that can reach it. "
                + "Use --lan, which lets in only the phones and tablets you pair"
        case .certificate(let reason):
            "the editor's certificate for the home network: \(reason)"
        }
    }
}

/// What the C callbacks reach through their context pointer.
final class ServerContext: Sendable {
    let admit: @Sendable (HTTPRequest) -> HTTPResponse?
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let limits: HTTPServer.Limits
    let watch: ConnectionWatch
    /// Whether the daemon speaks TLS: its requests are marked so.
    let isSecure: Bool
    /// Whether it is the home network's listener: its requests are marked so.
    let isHomeNetwork: Bool

    init(
        admit: @escaping @Sendable (HTTPRequest) -> HTTPResponse?,
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: HTTPServer.Limits, watch: ConnectionWatch,
        isSecure: Bool, isHomeNetwork: Bool
    ) {
        self.isHomeNetwork = isHomeNetwork
        self.admit = admit
        self.handler = handler
        self.limits = limits
        self.watch = watch
        self.isSecure = isSecure
    }
}

/// A TLS key and certificate as C strings that outlive the daemon reading them.
private final class TLSTexts: Sendable {
    nonisolated(unsafe) let key: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) let certificate: UnsafeMutablePointer<CChar>?

    init(key: String, certificate: String) {
        self.key = strdup(key)
        self.certificate = strdup(certificate)
    }

    /// Called once, after the daemon has stopped (or never started). The key is wiped first.
    func free() {
        if let key { explicit_bzero(key, strlen(key)) }
        Glibc.free(key)
        Glibc.free(certificate)
    }
}

/// One request being received: created on the first callback, released when MHD says it is done.
final class RequestState {
    /// The URI exactly as it came on the request line, before any decoding.
    let rawURI: String
    var request = HTTPRequest(method: "GET", path: "/")
    /// Whether the headers have been read and judged.
    var admitted = false
    var upload: FileHandle?
    var uploadFile: URL?
    var received = 0
    var tooLarge = false
    var uploadFailed = false
    /// When the body's first bytes came: a body must then keep up a least rate.
    var bodyStarted: ContinuousClock.Instant?

    init(rawURI: String) {
        self.rawURI = rawURI
    }

    func discardUpload() {
        try? upload?.close()
        upload = nil
        if let uploadFile { try? FileManager.default.removeItem(at: uploadFile) }
    }
}

private let accessHandler: MHD_AccessHandlerCallback = {
    contextPointer, connection, url, method, _, uploadData, uploadDataSize, requestPointer in
    guard let contextPointer, let connection, let requestPointer, let uploadDataSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()

    guard let existing = requestPointer.pointee else { return .NO }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()

    if !state.admitted {
        // First call: the request line and headers are in, the body (if any) is not.
        state.admitted = true
        let socket = CMicroHTTPD_connection_socket(connection)
        context.watch.headersArrived(socket)
        var (request, repeated) = makeRequest(connection, url: url, method: method, socket: socket)
        request.isSecure = context.isSecure
        request.arrivedOnHomeNetwork = context.isHomeNetwork
        // An address that cannot be read is nobody's: never this computer's.
        request.clientAddress = clientAddress(connection) ?? "unknown"
        state.request = request
        if let refusal = refusal(rawURI: state.rawURI, repeatedHeaders: repeated) ?? context.admit(request) {
            return send(refusal, on: connection)
        }
        let contentType = state.request.headers["content-type"] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            let file = ScratchSpace.file("upload")
            if FileManager.default.createFile(atPath: file.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: file)
            {
                state.upload = handle
                state.uploadFile = file
            } else {
                state.uploadFailed = true
            }
        }
        return .YES
    }

    let size = uploadDataSize.pointee
    if size > 0, let uploadData {
        state.received += size
        // A body trickled a byte at a time keeps the idle timeout at bay, and a thread busy, for
        // ever: past a grace period, a body slower than the least rate is cut off (even a poor
        // phone connection sends a hundred times faster).
        let started = state.bodyStarted ?? .now
        state.bodyStarted = started
        let elapsed = ContinuousClock.now - started
        if elapsed > context.limits.bodyGrace {
            if Double(state.received) / elapsed.inSeconds < Double(context.limits.minimumBodyBytesPerSecond) {
                state.discardUpload()
                return .NO
            }
        }
        let limit = state.upload == nil ? context.limits.maximumBodyBytes : context.limits.maximumUploadBytes
        if state.received > limit {
            state.tooLarge = true
            state.discardUpload()
        } else if !state.tooLarge {
            let chunk = Data(bytes: uploadData, count: size)
            if let upload = state.upload {
                do {
                    try upload.write(contentsOf: chunk)
                } catch {
                    state.uploadFailed = true
                }
            } else {
                state.request.body.append(chunk)
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    // Last call: the whole body is in; answer.
    let response: HTTPResponse
    if state.tooLarge {
        let limit = state.upload == nil ? context.limits.maximumBodyBytes : context.limits.maximumUploadBytes
        response =
            HTTPError(.payloadTooLarge, "the request body is over the limit of \(limit / 1_048_576) MB").response
    } else if state.uploadFailed {
        response = HTTPError(.internalError, "the upload could not be stored on disk").response
    } else {
        if let upload = state.upload {
            try? upload.close()
            state.upload = nil
            state.request.bodyFile = state.uploadFile
        }
        response = context.handler(state.request)
    }
    return send(response, on: connection)
}

private let requestCompleted: MHD_RequestCompletedCallback = { contextPointer, connection, requestPointer, _ in
    if let contextPointer, let connection {
        let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()
        context.watch.requestFinished(CMicroHTTPD_connection_socket(connection))
    }
    guard let requestPointer, let state = requestPointer.pointee else { return }
    // Whether it completed or the client went away mid-upload, nothing is left behind.
    let request = Unmanaged<RequestState>.fromOpaque(state)
    request.takeUnretainedValue().discardUpload()
    request.release()
    requestPointer.pointee = nil
}

/// Called with each request line's URI before anything is decoded; what it returns is the
/// request's state for the callbacks that follow.
private let requestLine:
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
        _, uri, _ in
        Unmanaged.passRetained(RequestState(rawURI: uri.map { String(cString: $0) } ?? "")).toOpaque()
    }

private let connectionChanged: MHD_NotifyConnectionCallback = { contextPointer, connection, _, change in
    guard let contextPointer, let connection else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(contextPointer).takeUnretainedValue()
    let socket = CMicroHTTPD_connection_socket(connection)
    if change == .CONNECTION_NOTIFY_STARTED {
        context.watch.opened(socket)
    } else {
        context.watch.closed(socket)
    }
}

/// Headers whose repetition makes a request ambiguous: which Host, which token, which length?
private let singleHeaders: Set<String> = [
    "host", "content-length", "content-type", "transfer-encoding", "origin", "sec-fetch-site", "x-collage-token",
]

/// A refusal for what is wrong with the request line or headers themselves.
private func refusal(rawURI: String, repeatedHeaders: Set<String>) -> HTTPResponse? {
    if let name = repeatedHeaders.sorted().first {
        return HTTPError(.badRequest, "the request has more than one \(name) header").response
    }
    if containsControlCharacter(rawURI) {
        return HTTPError(.badRequest, "the address holds a control character (such as %00); it is not allowed")
            .response
    }
    return nil
}

/// Whether a raw URI holds a control character, literally or percent-encoded (%00–%1F, %7F).
func containsControlCharacter(_ rawURI: String) -> Bool {
    let bytes = Array(rawURI.utf8)
    for (index, byte) in bytes.enumerated() {
        if byte < 0x20 || byte == 0x7F { return true }
        guard byte == UInt8(ascii: "%"), index + 2 < bytes.count,
            let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
        else { continue }
        if value < 0x20 || value == 0x7F { return true }
    }
    return false
}

private func makeRequest(
    _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, socket: Int32
) -> (HTTPRequest, repeated: Set<String>) {
    var request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
    let headers = Box<[(String, String)]>([])
    let query = Box<[(String, String)]>([])
    let collect: MHD_KeyValueIterator = { box, _, key, value in
        guard let box, let key else { return .YES }
        let values = Unmanaged<Box<[(String, String)]>>.fromOpaque(box).takeUnretainedValue()
        values.value.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
        return .YES
    }
    withExtendedLifetime((headers, query)) {
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, collect, Unmanaged.passUnretained(headers).toOpaque())
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, collect, Unmanaged.passUnretained(query).toOpaque())
    }
    var seen: Set<String> = []
    var repeated: Set<String> = []
    for (name, value) in headers.value {
        let lowered = name.lowercased()
        if !seen.insert(lowered).inserted, singleHeaders.contains(lowered) { repeated.insert(lowered) }
        request.headers[lowered] = value
    }
    for (name, value) in query.value { request.query[name] = value }
    request.isClientGone = { peerHasClosed(socket) }
    return (request, repeated)
}

/// The client's address as numeric text, e.g. `192.168.1.20` or `::1`.
private func clientAddress(_ connection: OpaquePointer) -> String? {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    guard CMicroHTTPD_client_address(connection, &text, socklen_t(text.count)) == 1 else { return nil }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Whether the client closed its end of the connection (it gave up waiting).
private func peerHasClosed(_ socket: Int32) -> Bool {
    guard socket >= 0 else { return false }
    // POLLRDHUP (0x2000, Linux): the peer shut its writing side; Glibc's module does not export it.
    let peerClosed: Int16 = 0x2000
    var descriptor = pollfd(fd: socket, events: peerClosed, revents: 0)
    guard poll(&descriptor, 1, 0) == 1 else { return false }
    return descriptor.revents & (peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0
}

/// Closes connections that take longer than the header deadline to send a request's headers:
/// slow clients (a byte every few seconds keeps an idle timeout at bay) cannot hold
/// connections, and with them threads, for ever.
final class ConnectionWatch: Sendable {
    /// Sockets waiting for a request's headers, and since when.
    private let waiting = Mutex<[Int32: ContinuousClock.Instant]>([:])
    private let running = Mutex(true)
    let headerDeadline: Duration

    init(headerDeadline: Duration) {
        self.headerDeadline = headerDeadline
    }

    func opened(_ socket: Int32) { waiting.withLock { $0[socket] = .now } }
    func headersArrived(_ socket: Int32) { _ = waiting.withLock { $0.removeValue(forKey: socket) } }
    func requestFinished(_ socket: Int32) { waiting.withLock { $0[socket] = .now } }
    func closed(_ socket: Int32) { _ = waiting.withLock { $0.removeValue(forKey: socket) } }

    func start() {
        Thread.detachNewThread { [self] in
            while running.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: 0.25)
                let now = ContinuousClock.now
                waiting.withLock { waiting in
                    for (socket, since) in waiting where now - since > headerDeadline {
                        // The connection's own thread sees the shutdown and closes it; the socket
                        // stays open until then, so it cannot be reused under us.
                        shutdown(socket, Int32(SHUT_RDWR))
                        waiting[socket] = nil
                    }
                }
            }
        }
    }

    func stop() { running.withLock { $0 = false } }
}

private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    if let file = response.bodyFile {
        let descriptor = open(file.url.path, O_RDONLY | O_CLOEXEC)
        if file.isTemporary { unlink(file.url.path) }
        var status = stat()
        guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_size >= 0 else {
            if descriptor >= 0 { close(descriptor) }
            return send(HTTPError(.internalError, "the file to send went missing").response, on: connection)
        }
        // libmicrohttpd owns the descriptor from here and closes it once the response is gone.
        guard let created = MHD_create_response_from_fd(Int(status.st_size), descriptor) else {
            close(descriptor)
            return .NO
        }
        defer { MHD_destroy_response(created) }
        for (name, value) in response.headers { MHD_add_response_header(created, name, value) }
        return MHD_queue_response(connection, UInt32(response.status.code), created)
    }
    let body = response.body
    let created = body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers { MHD_add_response_header(created, name, value) }
    return MHD_queue_response(connection, UInt32(response.status.code), created)
}

/// A mutable value reachable from a C callback's context pointer.
private final class Box<Value> {
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
