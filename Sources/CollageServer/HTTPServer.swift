import CMicroHTTPD
import Foundation

/// A running HTTP server over GNU libmicrohttpd: one thread per connection, requests handed to a
/// Swift closure. Owns the daemon; ``stop()`` (or deinit) shuts it down after in-flight requests.
final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is written once at start and once at stop, under `lock`.
    private var daemon: OpaquePointer?
    private let context: Unmanaged<ServerContext>
    private let lock = NSLock()
    /// The port it listens on.
    let port: Int
    /// The address it listens on.
    let host: String

    struct Limits {
        /// The largest request body kept in memory (JSON and the like).
        var maximumBodyBytes = 2 * 1024 * 1024
        /// The largest upload streamed to disk.
        var maximumUploadBytes = 300 * 1024 * 1024
        var connectionLimit: UInt32 = 256
        var timeoutSeconds: UInt32 = 60
    }

    /// Starts listening on `host`:`port` (0 picks a free port).
    init(
        host: String, port: Int, limits: Limits = Limits(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws(ServerError) {
        let context = Unmanaged.passRetained(ServerContext(handler: handler, limits: limits))
        let started = CMicroHTTPD_start(
            host, UInt16(clamping: port), accessHandler, context.toOpaque(), requestCompleted, context.toOpaque(),
            limits.connectionLimit, limits.timeoutSeconds)
        guard let started else {
            context.release()
            throw ServerError.cannotListen(host: host, port: port)
        }
        self.daemon = started
        self.context = context
        self.host = host
        self.port = Int(CMicroHTTPD_bound_port(started))
    }

    deinit { stop() }

    /// Stops accepting, waits for the requests in flight, and frees the daemon.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let daemon else { return }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        context.release()
    }
}

/// Why the server could not start.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The address or port is taken or not valid.
    case cannotListen(host: String, port: Int)
    /// Binding a non-loopback address without `--allow-remote`.
    case remoteNotAllowed(String)

    /// A sentence saying what to do.
    public var description: String {
        switch self {
        case .cannotListen(let host, let port):
            "cannot listen on \(host):\(port) (is the port in use, or the address not one of this machine's?); "
                + "choose another with --port or --host"
        case .remoteNotAllowed(let host):
            "\(host) is not a loopback address: the editor would be reachable from other machines. "
                + "Pass --allow-remote if you mean it"
        }
    }
}

/// What the C callbacks reach through their context pointer.
final class ServerContext: Sendable {
    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let limits: HTTPServer.Limits

    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: HTTPServer.Limits) {
        self.handler = handler
        self.limits = limits
    }
}

extension HTTPServer.Limits: Sendable {}

/// One request being received: created on the first callback, released when MHD says it is done.
final class RequestState {
    var request: HTTPRequest
    var upload: FileHandle?
    var uploadFile: URL?
    var received = 0
    var tooLarge = false
    var uploadFailed = false

    init(request: HTTPRequest) {
        self.request = request
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

    guard let existing = requestPointer.pointee else {
        // First call: headers are in, the body (if any) comes in later calls.
        let state = RequestState(request: makeRequest(connection, url: url, method: method))
        let contentType = state.request.headers["content-type"] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("collage-upload-\(UUID().uuidString)")
            if FileManager.default.createFile(atPath: file.path, contents: nil),
                let handle = try? FileHandle(forWritingTo: file)
            {
                state.upload = handle
                state.uploadFile = file
            } else {
                state.uploadFailed = true
            }
        }
        requestPointer.pointee = Unmanaged.passRetained(state).toOpaque()
        return .YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()

    let size = uploadDataSize.pointee
    if size > 0, let uploadData {
        state.received += size
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

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestPointer, _ in
    guard let requestPointer, let state = requestPointer.pointee else { return }
    // Whether it completed or the client went away mid-upload, nothing is left behind.
    let request = Unmanaged<RequestState>.fromOpaque(state)
    request.takeUnretainedValue().discardUpload()
    request.release()
    requestPointer.pointee = nil
}

private func makeRequest(
    _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?
) -> HTTPRequest {
    var request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/")
    let headers = Box<[String: String]>([:])
    let query = Box<[String: String]>([:])
    let collect: MHD_KeyValueIterator = { box, _, key, value in
        guard let box, let key else { return .YES }
        let values = Unmanaged<Box<[String: String]>>.fromOpaque(box).takeUnretainedValue()
        values.value[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
        return .YES
    }
    let queryCollect: MHD_KeyValueIterator = { box, _, key, value in
        guard let box, let key else { return .YES }
        let values = Unmanaged<Box<[String: String]>>.fromOpaque(box).takeUnretainedValue()
        values.value[String(cString: key)] = value.map { String(cString: $0) } ?? ""
        return .YES
    }
    withExtendedLifetime((headers, query)) {
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND, collect, Unmanaged.passUnretained(headers).toOpaque())
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND, queryCollect, Unmanaged.passUnretained(query).toOpaque())
    }
    request.headers = headers.value
    request.query = query.value
    return request
}

private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
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
