import CollageCore
import CollageKit
import Foundation

/// Phones and tablets on the home network (`collage serve --lan`): this computer's editor asks
/// for a pairing code and lists and revokes devices; a device pairs with a code.
enum PairingRoutes {
    static let all: [Route] = [
        Route(
            "POST", "/api/pairing-codes", "newPairingCode",
            "A one-time code (five minutes) and its link and QR code, to pair a phone on the home network",
            access: .thisComputer,
            responses: [
                201: "{code, link, expires, qr (SVG), fingerprint?, fingerprintLines?, secure}",
                409: "the editor is not on the home network (start it with --lan)",
            ]
        ) { app, _ throws(HTTPError) in try newCode(app) },
        Route(
            "POST", "/api/pair", "pairDevice", "Pair this device with a code: it gets its cookie",
            body: "{code}", fields: [.string("code", required: true, "the code from the pairing link")],
            access: .anyone,
            responses: [
                200: "{device} and the device's cookie", 401: "the code is wrong, used or expired",
                409: "the editor is not on the home network", 429: "too many wrong codes from here (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try pair(app, request) },
        Route(
            "GET", "/api/devices", "listDevices", "The paired devices, most recently seen first",
            access: .thisComputer, responses: [200: "{devices, homeNetwork?}"]
        ) { app, _ throws(HTTPError) in try devices(app) },
        Route(
            "DELETE", "/api/devices/{id}", "revokeDevice", "Revoke a device: its cookie opens nothing from now on",
            access: .thisComputer, responses: [200: "{devices}", 404: "no such device"]
        ) { app, request throws(HTTPError) in
            try APIRoutes.kit { () throws(Failure) in try app.workspace.revokeDevice(request.parameter("id")) }
            return try devices(app)
        },
    ]

    static let notOnHomeNetwork = HTTPError(
        .conflict,
        "the editor serves this computer only; start it with 'collage serve --lan' to pair a phone or tablet")

    static func newCode(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        guard let desk = app.homeNetwork else { throw notOnHomeNetwork }
        let (code, link, expires) = desk.newCode()
        var members: [String: JSONValue] = [
            "code": .string(code), "link": .string(link), "expires": .string(CollageDocument.jsonDate(expires)),
            "secure": .bool(desk.usesTLS), "qr": .string(QRCode(link)?.svg() ?? ""),
        ]
        if let fingerprint = desk.fingerprint {
            members["fingerprint"] = .string(fingerprint)
            members["fingerprintLines"] = .array(TLSIdentity.lines(of: fingerprint).map(JSONValue.string))
        }
        return .json(.object(members), status: .created)
    }

    static func pair(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        guard let desk = app.homeNetwork else { throw notOnHomeNetwork }
        let code = (request.fields.string("code") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        do throws(PairingDesk.Refusal) {
            try desk.redeem(code, from: request.clientAddress ?? "this computer")
        } catch {
            switch error {
            case .wrongCode:
                throw HTTPError(
                    .unauthorized,
                    "this pairing code is not valid: a code works once, for five minutes. On the computer, "
                        + "choose Pair a phone for a new one")
            case .tooManyTries(let seconds):
                var refusal = HTTPError(
                    .tooManyRequests,
                    "too many wrong pairing codes; try again in \((seconds + 59) / 60) minute\(seconds > 60 ? "s" : "")"
                )
                refusal.headers["Retry-After"] = String(seconds)
                throw refusal
            }
        }
        let name = PairingDesk.deviceName(userAgent: request.headers["user-agent"] ?? "")
        let paired = try APIRoutes.kit { () throws(Failure) in try app.workspace.pairDevice(named: name) }
        var response = HTTPResponse.json(.object(["device": RecordJSON.device(paired.device)]))
        response.headers["Set-Cookie"] = desk.cookie(for: paired)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    static func devices(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        let devices = try APIRoutes.kit { () throws(Failure) in try app.workspace.devices() }
        var members: [String: JSONValue] = ["devices": .array(devices.map(RecordJSON.device))]
        if let desk = app.homeNetwork {
            var network: [String: JSONValue] = ["origin": .string(desk.origin), "secure": .bool(desk.usesTLS)]
            if let fingerprint = desk.fingerprint { network["fingerprint"] = .string(fingerprint) }
            members["homeNetwork"] = .object(network)
        }
        return .json(.object(members))
    }
}
