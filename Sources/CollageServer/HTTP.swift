import CollageCore
import Foundation

/// An HTTP request as handlers see it: no sockets, so handlers can be tested directly.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The decoded path, e.g. `/api/collages/abc`.
    public var path: String
    /// Query parameters (the last value wins).
    public var query: [String: String]
    /// Headers with lowercased names.
    public var headers: [String: String]
    /// The body, when it was small enough to keep in memory.
    public var body: Data
    /// The body on disk, for uploads that are streamed to a file.
    public var bodyFile: URL?
    /// Values the router took from the path, e.g. `id`.
    public var parameters: [String: String] = [:]
    /// Whether the client has closed the connection (gave up waiting); long jobs check it to
    /// stop working for nobody. Always `false` for requests made in code.
    public var isClientGone: @Sendable () -> Bool = { false }
    /// The client's address (`192.168.1.20`, `::1`); `nil` for requests made in code, which are
    /// this machine's own.
    public var clientAddress: String?
    /// Whether the request came over TLS.
    public var isSecure = false
    /// Whether it came to the home network's listener (`--lan`) rather than the loopback one:
    /// each accepts its own `Host` and `Origin` values.
    public var arrivedOnHomeNetwork = false
    /// The JSON body checked against its route's fields, once the router has done so.
    var checkedBody: CheckedBody?

    /// A request.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), bodyFile: URL? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }

    /// The body parsed as JSON.
    /// - Throws: 400 naming the problem when it is not JSON.
    public func json() throws(HTTPError) -> JSONValue {
        guard !body.isEmpty else { throw HTTPError(.badRequest, "the request needs a JSON body") }
        do {
            return try JSONValue.parse(body)
        } catch {
            throw HTTPError(.badRequest, "the body is not valid JSON: \(error.description)")
        }
    }

    /// A path parameter.
    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}

/// A status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable {
    /// The numeric code.
    public let code: Int
    /// The standard phrase.
    public let reason: String

    /// 200.
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201.
    public static let created = HTTPStatus(code: 201, reason: "Created")
    /// 204.
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 304.
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// 400.
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 403.
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404.
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405.
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 409.
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 401: a device on the home network that is not paired.
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 429: too many wrong pairing codes from one address.
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    /// 402: the request needs Collage Premium.
    public static let paymentRequired = HTTPStatus(code: 402, reason: "Payment Required")
    /// 413.
    public static let payloadTooLarge = HTTPStatus(code: 413, reason: "Payload Too Large")
    /// 415.
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    /// 421.
    public static let misdirected = HTTPStatus(code: 421, reason: "Misdirected Request")
    /// 422.
    public static let unprocessable = HTTPStatus(code: 422, reason: "Unprocessable Content")
    /// 500.
    public static let internalError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 503.
    public static let unavailable = HTTPStatus(code: 503, reason: "Service Unavailable")

    /// The status with `code`, among those above (500 for any other).
    public static func of(_ code: Int) -> HTTPStatus {
        [
            ok, created, noContent, notModified, badRequest, unauthorized, paymentRequired, forbidden, notFound,
            methodNotAllowed, conflict, tooManyRequests,
            payloadTooLarge, unsupportedMediaType, misdirected, unprocessable, internalError, unavailable,
        ].first { $0.code == code } ?? internalError
    }
}

/// An HTTP response.
public struct HTTPResponse: Sendable {
    /// The status.
    public var status: HTTPStatus
    /// Headers to send.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// A file sent as the body instead of ``body``: read from disk as the client takes it, so a
    /// large export or sheet is never held in memory whole.
    public var bodyFile: BodyFile?

    /// A response.
    public init(status: HTTPStatus = .ok, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is `file`'s bytes.
    public init(status: HTTPStatus = .ok, headers: [String: String] = [:], file: BodyFile) {
        self.init(status: status, headers: headers)
        bodyFile = file
    }

    /// A JSON response.
    public static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json; charset=utf-8"],
            body: Data(value.utf8()))
    }
}

/// A file a response sends as its body.
public struct BodyFile: Sendable {
    /// Where it is.
    public let url: URL
    /// Whether it is this response's alone, to be removed once opened for sending.
    public let isTemporary: Bool

    /// A file to send; a temporary one is removed as soon as it is opened (the open descriptor
    /// keeps its bytes until they are sent), so no path is left behind whatever the client does.
    public init(_ url: URL, isTemporary: Bool) {
        self.url = url
        self.isTemporary = isTemporary
    }
}

/// An error a handler answers with: a status and a message a person can act on, sent as
/// `{"error": {"message": …}}` (plus any extra members, such as the current document on 409).
public struct HTTPError: Error, Sendable {
    /// The status to answer with.
    public let status: HTTPStatus
    /// What went wrong and what to do.
    public let message: String
    /// Extra members of the error body.
    public var extra: [String: JSONValue] = [:]
    /// Extra response headers, such as `Retry-After` on 503.
    public var headers: [String: String] = [:]

    /// An error.
    public init(_ status: HTTPStatus, _ message: String, extra: [String: JSONValue] = [:]) {
        self.status = status
        self.message = message
        self.extra = extra
    }

    /// The response that carries it.
    public var response: HTTPResponse {
        var error: [String: JSONValue] = ["message": .string(message), "status": .number(Double(status.code))]
        for (key, value) in extra { error[key] = value }
        var response = HTTPResponse.json(.object(["error": .object(error)]), status: status)
        response.headers.merge(headers) { _, new in new }
        return response
    }
}
