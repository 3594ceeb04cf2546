import CollageCore
import CollageKit
import CollageLibrary
import Foundation
import StickerPrint
import Synchronization

/// Sticker sheets the editor made, the last few kept in memory, so that what the page shows and
/// what its downloads hold are one sheet.
final class SheetStore: Sendable {
    private let sheets = Mutex<[(id: String, sheet: MadeSheet)]>([])
    /// How many sheets are kept (each holds its stickers' print pixels).
    static let kept = 2
    /// The most print pixels the kept sheets hold together (5 bytes each); the newest sheet is
    /// always kept, older ones go first.
    static let pixelBudget = 150_000_000

    func add(_ sheet: MadeSheet) -> String {
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

    func sheet(_ id: String) -> MadeSheet? { sheets.withLock { list in list.first { $0.id == id }?.sheet } }

    /// Where a kept sheet's PDF is written, once, on its first download.
    static func pdfFile(of id: String) -> URL {
        ScratchSpace.folder.appendingPathComponent("sheet-\(id.filter { $0.isLetter || $0.isNumber }).pdf")
    }
}

/// Stickers cut for print, kept from sheet to sheet. Sizing each sticker and finding its cut
/// line is what a sheet takes its time over, and changing the paper, the gap, the cut or the
/// marks changes neither: the editor's sheet then only packs again.
final class CutStickerCache: Sendable {
    /// A sticker file as it was when cut (a file replaced under the same id is cut again), at one size.
    private struct Key: Hashable {
        let path: String
        let bytes: Int
        let modified: Double
        let size: Double
    }

    private struct Entry {
        let key: Key
        let sticker: CutSticker
        let pixels: Int
    }

    /// Oldest use first.
    private let entries = Mutex<[Entry]>([])
    private let cuts = Atomic<Int>(0)
    /// The most canvas pixels kept (each is 5 bytes: RGBA and whether it is inside the cut).
    static let pixelBudget = 64_000_000

    /// How many stickers were cut (rather than found here), so tests can tell.
    var cutCount: Int { cuts.load(ordering: .relaxed) }

    /// The sticker in `file` cut at `size` mm: kept, or made by `cut` and kept.
    func sticker(
        file: URL, size: Double, cut: () throws(PrintError) -> CutSticker
    ) throws(PrintError) -> CutSticker {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let key = Key(
            path: file.path, bytes: (attributes?[.size] as? Int) ?? -1,
            modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0, size: size)
        let found = entries.withLock { list -> CutSticker? in
            guard let index = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: index)
            list.append(entry)
            return entry.sticker
        }
        if let found { return found }
        // Cut outside the lock: other sheets go on meanwhile (two may cut the same sticker once each).
        let made = try cut()
        cuts.add(1, ordering: .relaxed)
        let pixels = made.image.width * made.image.height
        entries.withLock { list in
            list.removeAll { $0.key == key }
            list.append(Entry(key: key, sticker: made, pixels: pixels))
            var total = list.reduce(0) { $0 + $1.pixels }
            while total > Self.pixelBudget, list.count > 1 {
                total -= list.removeFirst().pixels
            }
        }
        return made
    }
}

/// A packed sheet and the library stickers on it.
struct MadeSheet: Sendable {
    let layout: SheetLayout
    let stickerIDs: [String]
    /// Each sticker's picture as it is printed (a collage's sticker drawn in its look, or the
    /// library's own), in the order of ``stickerIDs``.
    var pictures: [URL] = []

    /// The print pixels the sheet holds.
    var pixels: Int { layout.stickers.reduce(0) { $0 + $1.image.width * $1.image.height } }
}

extension APIRoutes {
    /// The most stickers one sheet may hold.
    static let sheetStickerLimit = Limits.maximumSheetStickers

    static let sheetRoutes: [Route] = [
        Route("GET", "/api/stickers", "listStickers", "The library's stickers, newest first", responses: [200: "list"])
        {
            app, _ throws(HTTPError) in
            let stickers = try library { () throws(LibraryError) in try app.library.stickers() }
            return .json(
                .array(
                    stickers.map { record in
                        RecordJSON.adding(
                            ["image": .string("/api/stickers/\(record.id)/image")], to: RecordJSON.sticker(record))
                    }))
        },
        Route(
            "POST", "/api/sheets", "makeSheet",
            "Pack the library's stickers (or those listed) onto pages to print and cut: each sized so its cut "
                + "line's longer side is `size` mm, cut lines `gap` mm apart; the layout to draw, and its downloads",
            body: "{stickers?: [id] | collage?: id, page?, size?, gap?, cut?: kiss|die, marks?, turnToFit?}",
            schema: Schema.object([
                "stickers": .object([
                    "type": "array", "items": Schema.string, "maxItems": .number(Double(Limits.maximumSheetStickers)),
                ]),
                "collage": Schema.string,
                "page": Schema.string, "size": Schema.number(Limits.stickerPrintSize),
                "gap": Schema.number(Limits.cutLineGap),
                "cut": .object(["type": "string", "enum": .array([.string("kiss"), .string("die")])]),
                "marks": .object(["type": "boolean"]), "turnToFit": .object(["type": "boolean"]),
            ]),
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
            query: [Schema.query("page", Schema.integer(1...100), "which page (default 1)")],
            expensive: true, responses: [200: "image/svg+xml, as a download", 404: "no such sheet or page"]
        ) { app, request throws(HTTPError) in try sheetFile(app, request, pdf: false) },
        Route(
            "GET", "/api/sheets/{id}/pictures/{index}", "sheetPicture",
            "A sticker's picture as the sheet prints it (a collage's sticker in its look): index 0…",
            responses: [200: "image/png", 404: "no such sheet or sticker"]
        ) { app, request throws(HTTPError) in try sheetPicture(app, request) },
    ]

    static func makeSheet(_ app: CollageApp, _ request: HTTPRequest) throws(HTTPError) -> HTTPResponse {
        let body = request.body.isEmpty ? JSONValue.object([:]) : try request.json()
        guard case .object = body else { throw HTTPError(.badRequest, "expected a JSON object") }
        func number(_ name: String, _ range: ClosedRange<Double>, _ fallback: Double) throws(HTTPError) -> Double {
            guard let value = body.member(name) else { return fallback }
            guard let number = value.numberValue, number.isFinite, range.contains(number) else {
                throw HTTPError(
                    .unprocessable,
                    "\(name): expected a number of millimetres from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        // A collage's stickers are printed as they look on it (outline, shadow, effect).
        var collage: Collage?
        if let value = body.member("collage") {
            guard let id = value.stringValue else { throw HTTPError(.unprocessable, "collage: expected a collage id") }
            collage = try library { () throws(LibraryError) in try app.library.collage(id).collage }
        }
        var ids: [String]
        if let collage {
            ids = collage.items.compactMap { if case .sticker(let id) = $0.content { id } else { nil } }
            guard ids.count <= sheetStickerLimit else {
                throw HTTPError(.unprocessable, "collage: at most \(sheetStickerLimit) stickers make one sheet")
            }
        } else if let listed = body.member("stickers") {
            guard case .array(let values) = listed, values.count <= sheetStickerLimit else {
                throw HTTPError(.unprocessable, "stickers: expected a list of at most \(sheetStickerLimit) sticker ids")
            }
            ids = []
            for value in values {
                guard let id = value.stringValue else {
                    throw HTTPError(.unprocessable, "stickers: expected sticker ids")
                }
                ids.append(id)
            }
        } else {
            ids = try library { () throws(LibraryError) in try app.library.stickers().map(\.id) }
            ids = Array(ids.prefix(sheetStickerLimit))
        }
        let cut: CutMode
        if let value = body.member("cut") {
            guard let name = value.stringValue, let mode = CutMode(rawValue: name) else {
                throw HTTPError(.unprocessable, "cut: expected kiss or die")
            }
            cut = mode
        } else {
            cut = .kiss
        }
        var marks = false
        if let value = body.member("marks") {
            guard case .bool(let flag) = value else { throw HTTPError(.unprocessable, "marks: expected true or false") }
            marks = flag
        }
        var turnsToFit = false
        if let value = body.member("turnToFit") {
            guard case .bool(let flag) = value else {
                throw HTTPError(.unprocessable, "turnToFit: expected true or false")
            }
            turnsToFit = flag
        }
        let page: (width: Double, height: Double)
        do throws(PrintError) {
            // Named or measured paper only: a number (or anything else) is refused, never read as A4.
            if let value = body.member("page"), value.stringValue == nil {
                throw PrintError.invalidOption("page: expected a paper such as a4, letter or 100x150mm")
            }
            page = try PrintLength.page(body.member("page")?.stringValue ?? "a4")
        } catch {
            throw HTTPError(.unprocessable, error.description)
        }
        let size = try number("size", Limits.stickerPrintSize, 50)
        let gap = try number("gap", Limits.cutLineGap, cut.defaultGap)
        let options = SheetOptions(
            pageWidth: page.width, pageHeight: page.height, gap: gap, cut: cut, registrationMarks: marks,
            turnsToFit: turnsToFit)
        // Every sticker's pixels at print size together, bounded before any is made.
        do throws(PrintError) {
            try SheetStickers.checkSheetPixels(count: ids.count, size: size, options: CutLineOptions())
        } catch {
            throw HTTPError(.unprocessable, error.description)
        }
        let files: [URL]
        if let collage {
            // Drawing is rendering: it waits its turn with the exports, and not for a client gone.
            files = try app.exports.run { () throws(HTTPError) -> [URL] in
                if request.isClientGone() { throw HTTPError(.badRequest, "the client closed the connection") }
                return try kit { () throws(Failure) in
                    try StickerPrints.draw(
                        collage, photos: app.photoSource, into: ScratchSpace.folder.appendingPathComponent("looks"),
                        size: size
                    ).map(\.file)
                }
            }
        } else {
            files = try ids.map { id throws(HTTPError) in
                try library { () throws(LibraryError) in app.library.stickerFile(of: try app.library.sticker(id)) }
            }
        }
        let names = ids.map { "sticker \($0.prefix(12))" }
        func cutStickers(at size: Double) throws(PrintError) -> [CutSticker] {
            try zip(names, files).map { name, file throws(PrintError) in
                try app.sheetCuts.sticker(file: file, size: size) { () throws(PrintError) in
                    try SheetStickers.prepare(file: file, name: name, size: size, options: CutLineOptions())
                }
            }
        }
        let (layout, suggestion) = try app.exports.run {
            () throws(HTTPError) -> (SheetLayout, SheetPacker.FewerPages?) in
            do throws(PrintError) {
                let usable = max(page.width, page.height) - 2 * options.margin
                guard size <= usable else {
                    throw PrintError.tooLarge(
                        "at \(Int(size)) mm a sticker does not fit on the page; choose a smaller size")
                }
                let layout = try SheetPacker.pack(try cutStickers(at: size), names: names, options: options)
                return (
                    layout,
                    try SheetPacker.fewerPages(
                        than: layout, size: size, names: names, options: options, cut: cutStickers)
                )
            } catch {
                throw error.failure.httpError
            }
        }
        let id = app.sheets.add(MadeSheet(layout: layout, stickerIDs: ids, pictures: files))
        func round(_ value: Double) -> JSONValue { .number((value * 1000).rounded() / 1000) }
        let placements: [JSONValue] = layout.placements.map { placement in
            let sticker = layout.stickers[placement.sticker]
            let (width, height) = sticker.sizeInMillimetres
            let origin = layout.pagePoint(Point(x: 0, y: 0), of: placement)
            let across = layout.pagePoint(Point(x: 1, y: 0), of: placement)
            let down = layout.pagePoint(Point(x: 0, y: 1), of: placement)
            let perMillimetre = sticker.options.pixelsPerMillimetre
            return .object([
                "sticker": .string(ids[placement.sticker]), "page": .number(Double(placement.page + 1)),
                // A collage's sticker is printed in its look: the picture to draw is the sheet's own.
                "picture": collage == nil
                    ? .string("/api/stickers/\(ids[placement.sticker])/image")
                    : .string("/api/sheets/\(id)/pictures/\(placement.sticker)"),
                // Maps the sticker's canvas (millimetres, unturned) onto the page, as SVG's matrix().
                "matrix": .array(
                    [
                        across.x - origin.x, across.y - origin.y, down.x - origin.x, down.y - origin.y, origin.x,
                        origin.y,
                    ]
                    .map(round)),
                "canvas": .object(["width": round(width), "height": round(height)]),
                // Where the library's sticker picture lies on that canvas.
                "image": .object([
                    "x": round(sticker.pictureFrame.x / perMillimetre),
                    "y": round(sticker.pictureFrame.y / perMillimetre),
                    "width": round(sticker.pictureFrame.width / perMillimetre),
                    "height": round(sticker.pictureFrame.height / perMillimetre),
                ]),
                "cutLine": .string(layout.pagePath(of: placement).svgData(decimals: 2)),
            ])
        }
        return .json(
            .object([
                "id": .string(id), "pageWidth": round(page.width), "pageHeight": round(page.height),
                "pages": .number(Double(layout.pageCount)), "coverage": round(layout.coverage),
                "marks": .array(
                    marks
                        ? RegistrationMarks.rectangles(pageWidth: page.width, pageHeight: page.height).map {
                            .array([round($0.0), round($0.1), round($0.2), round($0.3)])
                        } : []),
                "placements": .array(placements),
                "pdf": .string("/api/sheets/\(id)/pdf"), "svg": .string("/api/sheets/\(id)/svg"),
                "suggestion": suggestion.map { suggestion in
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
            let file = SheetStore.pdfFile(of: request.parameter("id"))
            if !FileManager.default.fileExists(atPath: file.path) {
                try app.exports.run { () throws(HTTPError) in
                    guard !FileManager.default.fileExists(atPath: file.path) else { return }
                    do throws(PrintError) {
                        try SheetPDF.write(sheet.layout, title: "Sticker sheet", to: file)
                    } catch {
                        throw HTTPError(.internalError, error.description)
                    }
                }
            }
            // A sheet let go while its PDF was written leaves no file behind once it is sent.
            let kept = app.sheets.sheet(request.parameter("id")) != nil
            return HTTPResponse(
                headers: [
                    "Content-Type": "application/pdf",
                    "Content-Disposition": "attachment; filename=\"sticker-sheet.pdf\"",
                ], file: BodyFile(file, isTemporary: !kept))
        }
        let pageText = request.query["page"] ?? "1"
        guard let page = Int(pageText), page >= 1, page <= sheet.layout.pageCount else {
            throw HTTPError(.notFound, "page: the sheet has pages 1 to \(sheet.layout.pageCount)")
        }
        let svg = SheetSVG.page(page - 1, of: sheet.layout, title: "Sticker sheet")
        return HTTPResponse(
            headers: [
                "Content-Type": "image/svg+xml",
                "Content-Disposition": "attachment; filename=\"sticker-sheet-cut-page-\(page).svg\"",
            ], body: Data(svg.utf8))
    }
}
