import CollageCore
import CollageKit
import Foundation

/// The JSON API: every route, grouped by the resource it is about, one file each
/// (`SessionRoutes`, `CollageRoutes`, `CollageImageRoutes`, `PhotoRoutes`, `StickerRoutes`,
/// `SheetRoutes`, `LicenceRoutes`, `PairingRoutes`). A handler turns its request into a CollageKit use case and
/// the use case's ``Failure`` into a status, nothing more.
enum APIRoutes {
    /// Every route, in the order the OpenAPI document lists them.
    static let all: [Route] =
        SessionRoutes.all + CollageRoutes.all + CollageImageRoutes.all + LicenceRoutes.all + PhotoRoutes.all
        + StickerRoutes.all + SheetRoutes.all + PairingRoutes.all

    /// Runs a use case, its failure becoming the API's answer.
    @discardableResult
    static func kit<T>(_ body: () throws(Failure) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch {
            throw error.httpError
        }
    }

    /// Runs a versioned change and answers with the new document; a stale version answers 409
    /// carrying the current document, so the page can catch up.
    static func saving(
        _ app: CollageApp, _ id: String, _ change: () throws(Failure) -> StoredCollage
    ) throws(HTTPError) -> HTTPResponse {
        let stored: StoredCollage
        do throws(Failure) {
            stored = try change()
        } catch {
            guard error.kind == .conflict else { throw error.httpError }
            let current = try kit { () throws(Failure) in try app.workspace.collage(id) }
            var conflict = error.httpError
            conflict.extra["current"] = try DocumentJSON.document(app, current)
            throw conflict
        }
        return try DocumentJSON.response(app, stored)
    }

    /// The client hung up: nothing is sent, and nothing was kept.
    static let clientGone = HTTPError(.badRequest, "the client closed the connection")
}
