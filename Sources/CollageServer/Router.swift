import CollageCore
import Foundation

/// One API route: what it answers, and what the OpenAPI document says about it.
struct Route: Sendable {
    let method: String
    /// Path segments; `{name}` segments capture a parameter.
    let segments: [String]
    let operationID: String
    let summary: String
    /// A short description of the JSON body, or "multipart" for uploads; `nil` for none.
    let body: String?
    /// Status codes it answers with, beyond the errors every route may give.
    let responses: [Int: String]
    let handler: @Sendable (CollageApp, HTTPRequest) throws(HTTPError) -> HTTPResponse
    /// Whether a read needs the page's token too: it starts expensive work (an export), which a
    /// page on another site must not be able to start with an `<img>` tag.
    let isExpensive: Bool
    /// The JSON body's fields: the body is checked against them before the handler runs
    /// (``CheckedBody``), and the OpenAPI document says them.
    let fields: [Field]?
    /// Whether a body with every field left out may be left out whole (`{}` is meant).
    let bodyIsOptional: Bool
    /// The status of a body whose field has the wrong JSON type: 400, but 422 for the sheet
    /// routes, which have always answered so.
    let wrongTypeStatus: HTTPStatus
    /// The query parameters, for the OpenAPI document (their values are read by CollageKit's
    /// request types, which check them in the words the command line's flags share).
    let query: [Field]
    /// Who may call it from the home network (loopback clients may call every route).
    let access: RouteAccess

    init(
        _ method: String, _ path: String, _ operationID: String, _ summary: String, body: String? = nil,
        fields: [Field]? = nil, bodyIsOptional: Bool = false, wrongTypeStatus: HTTPStatus = .badRequest,
        query: [Field] = [], expensive: Bool = false, access: RouteAccess = .pairedDevices, responses: [Int: String],
        handler: @escaping @Sendable (CollageApp, HTTPRequest) throws(HTTPError) -> HTTPResponse
    ) {
        self.wrongTypeStatus = wrongTypeStatus
        self.access = access
        self.isExpensive = expensive
        self.fields = fields
        self.bodyIsOptional = bodyIsOptional
        self.query = query
        self.method = method
        self.segments = path.split(separator: "/").map(String.init)
        self.operationID = operationID
        self.summary = summary
        self.body = body
        self.responses = responses
        self.handler = handler
    }

    var path: String { "/" + segments.joined(separator: "/") }

    /// Whether the request changes something, and so needs the page's token.
    var isStateChanging: Bool { !["GET", "HEAD"].contains(method) }

    /// Whether the request must carry the page's token: it changes something, or is expensive.
    /// Pairing is the one change made before there is a page: its code is its proof.
    var needsToken: Bool { (isStateChanging || isExpensive) && access != .anyone }

    /// Whether the body is an upload streamed to disk (multipart) rather than JSON.
    var takesUpload: Bool { body == "multipart" }

    /// The path parameters when `segments` matches this route's pattern.
    func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, value) in zip(segments, pathSegments) {
            if pattern.hasPrefix("{"), pattern.hasSuffix("}") {
                guard !value.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = value
            } else if pattern != value {
                return nil
            }
        }
        return parameters
    }
}

/// Who may call a route from another device on the home network (`collage serve --lan`).
enum RouteAccess: Sendable {
    /// Devices paired with the library (the library's own routes).
    case pairedDevices
    /// This computer only: pairing and revoking devices.
    case thisComputer
    /// Any device, paired or not: pairing itself.
    case anyone
}

/// Routes, matched in order; built once, then read-only.
struct Router: Sendable {
    let routes: [Route]

    enum Match {
        case found(Route, [String: String])
        case wrongMethod(allowed: [String])
        case notFound
    }

    func match(method: String, segments: [String]) -> Match {
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.match(segments) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .wrongMethod(allowed: allowed)
    }

    /// The OpenAPI 3 document describing every route, generated from the same table that
    /// dispatches requests, so the two cannot drift apart.
    func openAPI(version: String) -> JSONValue {
        var paths: [String: JSONValue] = [:]
        for route in routes {
            var operation: [String: JSONValue] = [
                "operationId": .string(route.operationID), "summary": .string(route.summary),
            ]
            let parameters = route.segments.filter { $0.hasPrefix("{") }.map { segment -> JSONValue in
                .object([
                    "name": .string(String(segment.dropFirst().dropLast())), "in": "path", "required": .bool(true),
                    "schema": .object(["type": "string"]),
                ])
            }
            let query = route.query.map(\.queryParameter)
            if !(parameters + query).isEmpty { operation["parameters"] = .array(parameters + query) }
            if let body = route.body {
                let media = body == "multipart" ? "multipart/form-data" : "application/json"
                operation["requestBody"] = .object([
                    "required": .bool(!route.bodyIsOptional), "description": .string(body),
                    "content": .object([
                        media: .object(["schema": route.fields.map(Field.objectSchema) ?? .object(["type": "object"])])
                    ]),
                ])
            }
            if route.needsToken {
                operation["security"] = .array([.object(["pageToken": .array([])])])
            }
            var responses: [String: JSONValue] = [:]
            for (code, description) in route.responses {
                responses[String(code)] = .object(["description": .string(description)])
            }
            for (code, description) in [
                (400, "malformed request (the message names the problem)"),
                (403, "missing or wrong page token"), (421, "the Host header is not this editor's address"),
                (401, "from another device: it is not paired (open the pairing link first)"),
            ] where route.needsToken || code == 400 || code == 421 || (code == 401 && route.access != .anyone) {
                responses[String(code)] = .object([
                    "description": .string(description),
                    "content": .object([
                        "application/json": .object(["schema": .object(["$ref": "#/components/schemas/Error"])])
                    ]),
                ])
            }
            operation["responses"] = .object(responses)
            var item: [String: JSONValue] = [:]
            if case .object(let existing) = paths[route.path] { item = existing }
            item[route.method.lowercased()] = .object(operation)
            paths[route.path] = .object(item)
        }
        return .object([
            "openapi": "3.0.3",
            "info": .object([
                "title": "Collage editor API", "version": .string(version),
                "description": .string(
                    "The JSON API behind the Collage web editor. It binds 127.0.0.1 by default; with "
                        + "`collage serve --lan` other devices on the home network reach it over HTTPS once paired."),
            ]),
            "paths": .object(paths),
            "components": .object([
                "securitySchemes": .object([
                    "pageToken": .object([
                        "type": "apiKey", "in": "header", "name": "X-Collage-Token",
                        "description": "The per-server token the page receives (GET /api/session).",
                    ])
                ]),
                "schemas": .object([
                    "Error": .object([
                        "type": "object",
                        "properties": .object([
                            "error": .object([
                                "type": "object",
                                "properties": .object([
                                    "message": .object(["type": "string"]), "status": .object(["type": "integer"]),
                                ]),
                            ])
                        ]),
                    ])
                ]),
            ]),
        ])
    }
}
