import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import CollageTestSupport
import Foundation
import Stickers

@testable import CollageServer

/// A real server on a free loopback port over a temporary library, and a plain socket client
/// that can send anything (wrong Host headers, truncated bodies) the way a hostile client would.
final class LiveServer: @unchecked Sendable {
    // @unchecked: every stored property is a constant; the library and server are thread-safe.
    private let folder: TemporaryFolder
    var directory: URL { folder.url }
    let library: Library
    let server: CollageServer
    var port: Int { server.port }
    var token: String { server.app.token }

    init(model: SubjectModel? = nil) throws {
        folder = try TemporaryFolder("collage-server")
        library = try Library(root: folder.file("library"))
        server = try CollageServer(
            workspace: Workspace(
                library: library, model: model, licences: LicenceStore(folder: folder.file("config/collage"))),
            port: 0)
    }

    deinit {
        server.stop()
        library.close()
    }

    typealias Response = TestResponse

    /// Sends one request and reads the whole response (the connection closes after it).
    func send(
        _ method: String, _ path: String, body: Data = Data(), headers: [String: String] = [:], host: String? = nil,
        token useToken: Bool = true
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        var all = headers
        if useToken, method != "GET" || path.contains("/export") {
            all["X-Collage-Token"] = all["X-Collage-Token"] ?? token
        }
        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
            all["Content-Length"] = "\(body.count)"
        }
        for (name, value) in all { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return try raw(Data(head.utf8) + body)
    }

    func json(_ method: String, _ path: String, _ value: String, token useToken: Bool = true) throws -> Response {
        try send(method, path, body: Data(value.utf8), headers: ["Content-Type": "application/json"], token: useToken)
    }

    /// Writes bytes to a fresh connection and reads until the server closes it.
    func raw(_ bytes: Data, closeAfterWriting: Bool = false) throws -> Response {
        let socket = try connect()
        defer { close(socket) }
        _ = bytes.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        if closeAfterWriting { return Response(status: 0, headers: [:], body: Data()) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return Self.parse(data)
    }

    /// A connection from `source` (another loopback address stands for another client).
    func connect(from source: String? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else { throw POSIXError(.ECONNREFUSED) }
        return socket
    }

    static func parse(_ data: Data) -> Response {
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else {
            return Response(status: 0, headers: [:], body: data)
        }
        let head = String(decoding: data[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: Data(data[split.upperBound...]))
    }

    func photoData(_ color: [UInt8], width: Int = 320, height: Int = 240) throws -> Data {
        try TestPhotos.jpegData(color, width: width, height: height)
    }

    /// Uploads photos and returns their ids.
    func upload(_ files: [(name: String, data: Data)]) throws -> Response {
        try send(
            "POST", "/api/photos", body: MultipartBody.make(files),
            headers: ["Content-Type": "multipart/form-data; boundary=collage-test-boundary"])
    }
}
