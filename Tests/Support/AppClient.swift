import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageServer
import Foundation
import Stickers

/// An HTTP answer as a test reads it, from the in-process app or a real socket.
public struct TestResponse: Sendable {
    /// The status code.
    public let status: Int
    /// Headers, names lowercased.
    public let headers: [String: String]
    /// The body.
    public let body: Data

    /// A response.
    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as JSON.
    public var json: JSONBox { JSONBox(body) }
    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// The editor's API without a socket: a temporary library and a ``CollageApp`` whose handler is
/// called directly, judged first by the same admission rules the server applies to headers.
/// Tests of what the API answers use this; tests of what needs a connection (slow or vanishing
/// clients, many at once) use a live server. Its calls throw, as a socket client's do, so a test
/// moves between the two by changing the line that makes the client.
public final class AppClient: Sendable {
    /// The folder that holds the library; removed when the client is released.
    public let folder: TemporaryFolder
    /// The library the app serves.
    public let library: Library
    /// The app.
    public let app: CollageApp
    /// The Host every request names.
    public static let host = "test.local"

    /// Where the app keeps the user's licence: a folder of the client's own, empty at first
    /// (premium locked), whatever licence the machine's user has.
    public let licences: LicenceStore

    /// An app over a fresh library; `unlocked` stores a valid test licence first.
    public init(model: SubjectModel? = nil, unlocked: Bool = false) throws {
        folder = try TemporaryFolder("collage-app")
        library = try Library(root: folder.file("library"))
        licences = LicenceStore(folder: folder.file("config/collage"))
        if unlocked { try licences.add(TestLicence.key()) }
        app = CollageApp(
            workspace: Workspace(library: library, model: model, licences: licences), allowedHosts: [Self.host])
    }

    deinit { library.close() }

    /// The folder tests may write their own files into.
    public var directory: URL { folder.url }
    /// The token the page is given.
    public var token: String { app.token }

    /// The bytes of a one-colour JPEG.
    public func photoData(_ color: [UInt8], width: Int = 320, height: Int = 240) throws -> Data {
        try TestPhotos.jpegData(color, width: width, height: height)
    }

    /// Sends one request. The token is added to every request that changes something (and to
    /// exports and drawings) unless `token` is `false`, as the page does.
    public func send(
        _ method: String, _ target: String, body: Data = Data(), headers: [String: String] = [:],
        token useToken: Bool = true
    ) throws -> TestResponse {
        var all = ["host": Self.host]
        for (name, value) in headers { all[name.lowercased()] = value }
        if useToken,
            method != "GET" || target.contains("/export") || target.contains("/drawn")
                || target.contains("/background") || target.contains("/auto-adjustments")
        {
            all["x-collage-token"] = all["x-collage-token"] ?? app.token
        }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { all["content-length"] = "\(body.count)" }
        let components = URLComponents(string: target)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var request = HTTPRequest(
            method: method, path: components?.percentEncodedPath.removingPercentEncoding ?? target, query: query,
            headers: all, body: body)
        // The server spools multipart bodies to a file before the handler sees them.
        if all["content-type"]?.lowercased().hasPrefix("multipart/form-data") == true {
            let spool = folder.file("upload-\(UUID().uuidString)")
            try body.write(to: spool)
            request.body = Data()
            request.bodyFile = spool
        }
        let response = app.admit(request) ?? app.handle(request)
        var names: [String: String] = [:]
        for (name, value) in response.headers { names[name.lowercased()] = value }
        var body = response.body
        // A body sent from a file is read as the server's connection would, and a temporary
        // one removed as it does.
        if let file = response.bodyFile {
            body = try Data(contentsOf: file.url)
            if file.isTemporary { try FileManager.default.removeItem(at: file.url) }
        }
        return TestResponse(status: response.status.code, headers: names, body: body)
    }

    /// Sends a JSON body.
    public func json(
        _ method: String, _ target: String, _ text: String, token useToken: Bool = true
    ) throws
        -> TestResponse
    {
        try send(method, target, body: Data(text.utf8), headers: ["Content-Type": "application/json"], token: useToken)
    }

    /// Uploads files as the page's picker does.
    public func upload(_ files: [(name: String, data: Data)]) throws -> TestResponse {
        try send(
            "POST", "/api/photos", body: MultipartBody.make(files),
            headers: ["Content-Type": "multipart/form-data; boundary=\(MultipartBody.boundary)"])
    }
}

/// `multipart/form-data` bodies as browsers send them.
public enum MultipartBody {
    /// The boundary ``make(_:boundary:)`` uses by default.
    public static let boundary = "collage-test-boundary"

    /// A body holding each file as a `photos` part.
    public static func make(_ files: [(name: String, data: Data)], boundary: String = MultipartBody.boundary) -> Data {
        var body = Data()
        for file in files {
            body += Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"photos\"; filename=\"\(file.name)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8)
            body += file.data
            body += Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }
}
