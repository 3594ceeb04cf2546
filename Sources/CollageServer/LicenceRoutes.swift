import CollageCore
import CollageKit
import CollageLicence

/// The licence resource: whether Collage Premium is unlocked here, adding a key, removing it.
enum LicenceRoutes {
    static let all: [Route] = [
        Route(
            "GET", "/api/licence", "getLicence", "Whether Collage Premium is unlocked on this machine, and for whom",
            responses: [200: "{unlocked, licence?, problem?, premiumLayouts}"]
        ) { app, _ in licenceResponse(app) },
        Route(
            "POST", "/api/licence", "addLicence", "Unlock Collage Premium with a licence key (kept for this user)",
            body: "{key}", fields: [.string("key", required: true, "the licence key, as the seller sent it")],
            responses: [200: "{unlocked, licence, premiumLayouts}", 422: "the key was refused; nothing changed"]
        ) { app, request throws(HTTPError) in try addLicence(app, request) },
        Route(
            "DELETE", "/api/licence", "removeLicence", "Remove this user's licence (premium layouts lock again)",
            responses: [200: "{unlocked: false, premiumLayouts}"]
        ) { app, _ throws(HTTPError) in try removeLicence(app) },
    ]

    /// `{unlocked, licence?, problem?, premiumLayouts}`: what the Unlock sheet shows.
    static func licenceJSON(_ state: LicenceState) -> JSONValue {
        var members: [String: JSONValue] = [
            "unlocked": .bool(false),
            "premiumLayouts": .array(Workspace.premiumLayouts.map(JSONValue.string)),
        ]
        switch state {
        case .none: break
        case .valid(let licence):
            members["unlocked"] = .bool(true)
            members["licence"] = .object([
                "id": .string(licence.id), "licensee": .string(licence.licensee), "issued": .string(licence.issued),
            ])
        case .invalid(let error):
            members["problem"] = .string(error.description)
        }
        return .object(members)
    }

    static func licenceResponse(_ app: CollageApp) -> HTTPResponse { .json(licenceJSON(app.workspace.licence())) }

    static func addLicence(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let key = request.fields.string("key") ?? ""
        let licence = try APIRoutes.kit { () throws(Failure) in try app.workspace.addLicence(key) }
        return .json(licenceJSON(.valid(licence)))
    }

    static func removeLicence(_ app: CollageApp) throws(HTTPError) -> HTTPResponse {
        try APIRoutes.kit { () throws(Failure) in try app.workspace.removeLicence() }
        return licenceResponse(app)
    }
}
