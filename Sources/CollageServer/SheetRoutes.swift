import CollageCore
import CollageKit
import Foundation
import Synchronization

/// Sticker sheets the editor made, the last few kept in memory, so that what the page shows and
/// what its downloads hold are one sheet.
final class SheetStore: Sendable {
    private let sheets = Mutex<[(id: String, sheet: StickerSheet)]>([])
    /// How many sheets are kept (each holds its stickers' print pixels).
    static let kept = 2
    /// The most print pixels the kept sheets hold together (5 bytes each); the newest sheet is
    /// always kept, older ones go first.
    static let pixelBudget = 150_000_000

    func add(_ sheet: StickerSheet) -> String {
        let id = CollageApp.newToken().prefix(16).description
        let dropped = sheets.withLock { list -> [String] in
            list.append((id, sheet))
            var dropped: [String] = []
            while list.count > 1,
                list.count > Self.kept || list.reduce(0, { $0 + $1.sheet.pixels }) > Self.pixelBudget
            {
                dropped.append(list.removeFirst().id)
            }
            return dropped
        }
        for old in dropped { try? FileManager.default.removeItem(at: Self.pdfFile(of: old)) }
        return id
    }

    func sheet(_ id: String) -> StickerSheet? { sheets.withLock { list in list.first { $0.id == id }?.sheet } }

    /// Where a kept sheet's PDF is written, once, on its first download.
    static func pdfFile(of id: String) -> URL {
        ScratchSpace.folder.appendingPathComponent("sheet-\(id.filter { $0.isLetter || $0.isNumber }).pdf")
    }
}

/// The sheet resource: packing stickers onto pages to print and cut, and the sheet's PDF, cut
/// lines and pictures.
enum SheetRoutes {
    static let all: [Route] = [
        Route(
            "POST", "/api/sheets", "makeSheet",
            "Pack the library's stickers (or those listed) onto pages to print and cut: each sized so its cut "
                + "line's longer side is `size` mm, cut lines `gap` mm apart; the layout to draw, and its downloads",
            body: "{stickers?: [id] | collage?: id, page?, size?, gap?, cut?: kiss|die, marks?, turnToFit?}",
            fields: sheetFields, bodyIsOptional: true, wrongTypeStatus: .unprocessable,
            expensive: true,
            responses: [
                201: "{id, pageWidth, pageHeight, pages, coverage, placements, pdf, svg}",
                404: "a listed sticker is not in the library", 422: "bad options, no stickers, or one too large",
                503: "too many exports at once (Retry-After)",
            ]
        ) { app, request throws(HTTPError) in try makeSheet(app, request) },
        Route(
            "GET", "/api/sheets/{id}/pdf", "sheetPDF",
            "The sheet as a PDF: pictures, and cut lines in the spot colour CutContour (with marks when asked)",
            expensive: true,
            responses: [200: "application/pdf, as a download", 404: "no such sheet (kept: the last 2)"]
        ) { app, request throws(HTTPError) in try sheetFile(app, request, pdf: true) },
        Route(
            "GET", "/api/sheets/{id}/svg", "sheetSVG",
            "One page's cut lines (and registration marks) as SVG for a cutting machine: ?page=1…",
            query: [.integer("page", 1...Limits.maximumSheetStickers, "which page (default 1)")],
            expensive: true, responses: [200: "image/svg+xml, as a download", 404: "no such sheet or page"]
        ) { app, request throws(HTTPError) in try sheetFile(app, request, pdf: false) },
        Route(
            "GET", "/api/sheets/{id}/pictures/{index}", "sheetPicture",
            "A sticker's picture as the sheet prints it (a collage's sticker in its look): index 0…",
            responses: [200: "image/png", 404: "no such sheet or sticker"]
        ) { app, request throws(HTTPError) in try sheetPicture(app, request) },
    ]

    /// What `POST /api/sheets` takes: which stickers (listed, a collage's, or else every one),
    /// the paper, their size and the cut.
    static let sheetFields: [Field] = [
        Field(
            "stickers", .array(.string(choices: nil), maxItems: Limits.maximumSheetStickers),
            "library sticker ids (default: every sticker, newest first)"),
        .string("collage", "a collage whose stickers are printed as they look on it"),
        .string("page", "a4 (default), a5, a3, letter, legal, or WxH in mm, cm or in (100x150mm)"),
        .number("size", Limits.stickerPrintSize, "each sticker's cut line's longer side in mm (default 50)"),
        .number("gap", Limits.cutLineGap, "the least distance between cut lines in mm (default 3 kiss, 6 die)"),
        .string("cut", choices: ["kiss", "die"], "kiss cut (a sheet of stickers, the default) or die cut"),
        .boolean("marks", "registration marks for a cutting machine"),
        .boolean("turnToFit", "stickers may turn a quarter where that packs them tighter"),
    ]

    /// The body as a CollageKit ``SheetRequest``.
    static func sheetRequest(_ body: CheckedBody) throws(HTTPError) -> SheetRequest {
        let collage = body.string("collage")
        // A collage's stickers are the sheet: a list beside it is not added to them.
        let listed = collage == nil ? body.strings("stickers") ?? [] : []
        let sources = listed.map { SheetRequest.Source.sticker($0, size: nil) }
        return try APIRoutes.kit { () throws(Failure) in
            try SheetRequest(
                sources: sources, collage: collage, everything: !body.has("stickers") && collage == nil,
                page: body.string("page"), size: body.number("size"), gap: body.number("gap"), cut: body.string("cut"),
                marks: body.bool("marks") ?? false, turnsToFit: body.bool("turnToFit") ?? false)
        }
    }

    static func makeSheet(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let sheetRequest = try sheetRequest(request.fields)
        // Drawing and cutting are rendering: the sheet waits its turn with the exports, and stops
        // for a client gone.
        let sheet = try app.exports.run { () throws(HTTPError) -> StickerSheet in
            do throws(Failure) {
                return try app.workspace.makeSheet(
                    sheetRequest, looks: app.sheetLooks, cache: app.sheetCuts, isCancelled: request.isClientGone)
            } catch {
                if error.kind == .cancelled { throw APIRoutes.clientGone }
                throw error.httpError
            }
        }
        let id = app.sheets.add(sheet)
        func round(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        let placements: [JSONValue] = sheet.placements.map { placement in
            let stickerID = sheet.stickerIDs[placement.sticker] ?? ""
            return .object([
                "sticker": .string(stickerID), "page": .number(Double(placement.page)),
                // A collage's sticker is printed in its look: the picture to draw is the sheet's own.
                "picture": sheet.isFromCollage
                    ? .string("/api/sheets/\(id)/pictures/\(placement.sticker)")
                    : .string("/api/stickers/\(stickerID)/image"),
                "matrix": .array(placement.matrix.map(round)),
                "canvas": .object(["width": round(placement.canvas.width), "height": round(placement.canvas.height)]),
                // Where the library's sticker picture lies on that canvas.
                "image": .object([
                    "x": round(placement.picture.x), "y": round(placement.picture.y),
                    "width": round(placement.picture.width), "height": round(placement.picture.height),
                ]),
                "cutLine": .string(placement.cutLine),
            ])
        }
        return .json(
            .object([
                "id": .string(id), "pageWidth": round(sheet.pageWidth), "pageHeight": round(sheet.pageHeight),
                "pages": .number(Double(sheet.pageCount)), "coverage": round(sheet.coverage),
                "marks": .array(
                    sheet.registrationMarks.map {
                        .array([round($0.x), round($0.y), round($0.width), round($0.height)])
                    }
                ),
                "placements": .array(placements),
                "pdf": .string("/api/sheets/\(id)/pdf"), "svg": .string("/api/sheets/\(id)/svg"),
                "suggestion": sheet.suggestion.map { suggestion in
                    var members: [String: JSONValue] = [
                        "pages": .number(Double(suggestion.pages)), "text": .string(suggestion.text),
                    ]
                    if let size = suggestion.size { members["size"] = .number(size) }
                    if suggestion.turnsToFit { members["turnToFit"] = .bool(true) }
                    return .object(members)
                } ?? .null,
            ]), status: .created)
    }

    static func sheetPicture(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        guard let sheet = app.sheets.sheet(request.parameter("id")) else {
            throw HTTPError(.notFound, "no such sheet: make it again (the editor keeps the last \(SheetStore.kept))")
        }
        guard let index = Int(request.parameter("index")), sheet.pictures.indices.contains(index),
            let data = try? Data(contentsOf: sheet.pictures[index])
        else { throw HTTPError(.notFound, "no such sticker on the sheet") }
        return HTTPResponse(
            headers: ["Content-Type": "image/png", "Cache-Control": "private, max-age=3600"], body: data)
    }

    static func sheetFile(_ app: CollageApp, _ request: HTTPRequest, pdf: Bool) throws(HTTPError) -> HTTPResponse {
        guard let sheet = app.sheets.sheet(request.parameter("id")) else {
            throw HTTPError(.notFound, "no such sheet: make it again (the editor keeps the last \(SheetStore.kept))")
        }
        if pdf {
            // Written once, a picture at a time, and sent from disk: a sheet of a hundred large
            // stickers costs one picture's memory, however often it is downloaded.
            let id = request.parameter("id")
            let file = SheetStore.pdfFile(of: id)
            if !FileManager.default.fileExists(atPath: file.path) {
                try app.exports.run { () throws(HTTPError) in
                    guard !FileManager.default.fileExists(atPath: file.path) else { return }
                    try APIRoutes.kit { () throws(Failure) in try sheet.writePDF(to: file, title: "Sticker sheet") }
                }
            }
            // The sheet can be let go, and its PDF removed, at any moment from here on (a newer
            // sheet, or another download of a sheet already let go): this response sends a link
            // of its own, which keeps the bytes whatever happens to the shared name.
            let own = ScratchSpace.folder.appendingPathComponent("sending-\(UUID().uuidString).pdf")
            guard link(file.path, own.path) == 0 else {
                throw HTTPError(
                    .notFound, "no such sheet: make it again (the editor keeps the last \(SheetStore.kept))")
            }
            // A sheet let go while its PDF was written leaves no file behind.
            if app.sheets.sheet(id) == nil { try? FileManager.default.removeItem(at: file) }
            return HTTPResponse(
                headers: [
                    "Content-Type": "application/pdf",
                    "Content-Disposition": "attachment; filename=\"sticker-sheet.pdf\"",
                ], file: BodyFile(own, isTemporary: true))
        }
        let pageText = request.query["page"] ?? "1"
        guard let page = Int(pageText), page >= 1, page <= sheet.pageCount else {
            throw HTTPError(.notFound, "page: the sheet has pages 1 to \(sheet.pageCount)")
        }
        let svg = sheet.cutSVG(page: page - 1, title: "Sticker sheet")
        return HTTPResponse(
            headers: [
                "Content-Type": "image/svg+xml",
                "Content-Disposition": "attachment; filename=\"sticker-sheet-cut-page-\(page).svg\"",
            ], body: Data(svg.utf8))
    }
}
