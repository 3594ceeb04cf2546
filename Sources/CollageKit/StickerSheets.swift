import CollageCore
import CollageLibrary
import CollageRender
import Foundation
import StickerPrint
import Synchronization

/// A sticker sheet to make, as either face asks for one (`collage sheet`, `POST /api/sheets`),
/// checked when it is made: which stickers, the paper, the stickers' size and the cut.
public struct SheetRequest: Sendable {
    /// Where one sticker of the sheet comes from.
    public enum Source: Sendable, Equatable {
        /// A sticker picture file (a PNG or WebP with alpha), at `size` mm or the sheet's size.
        case file(URL, size: Double?)
        /// A library sticker, by id or unique prefix, at `size` mm or the sheet's size.
        case sticker(String, size: Double?)
    }

    /// The stickers listed, in order.
    public let sources: [Source]
    /// A library collage whose stickers are printed as they look on it (outline, shadow,
    /// effect), after the listed ones.
    public let collage: String?
    /// Each sticker's cut shape's longer side, in millimetres, unless its source says otherwise.
    public let size: Double
    /// The paper, the gap between cut lines, the margins and the cut.
    public let options: SheetOptions
    /// How far outside each subject the cut line runs, and the pictures' resolution.
    public let cutLine: CutLineOptions

    /// A request, checked; what is not given takes the defaults (A4, 50 mm, kiss cut with
    /// 3 mm gaps, 6 mm margins, a 2 mm cut line, 300 dpi).
    /// - Parameters:
    ///   - everything: with no sources and no collage, every library sticker (at most
    ///     ``CollageCore/Limits/maximumSheetStickers``, newest first) instead of a refusal.
    ///   - page: a4, a5, a3, letter, legal, or `WxHmm` (cm and in too).
    /// - Throws: ``Failure`` `invalidOption` naming the field and its range, `malformed` when
    ///   nothing is named to print.
    public init(
        sources: [Source] = [], collage: String? = nil, everything: Bool = false, page: String? = nil,
        size: Double? = nil, gap: Double? = nil, margin: Double? = nil, cut: String? = nil, marks: Bool = false,
        turnsToFit: Bool = false, offset: Double? = nil, dotsPerInch: Double? = nil, whiteBacking: Bool = false
    ) throws(Failure) {
        guard !sources.isEmpty || collage != nil || everything else {
            throw Failure(.invalidInput, "there are no stickers to print: name at least one, or a collage")
        }
        guard sources.count <= Limits.maximumSheetStickers else {
            throw Failure(
                .invalidOption,
                "at most \(Limits.maximumSheetStickers) stickers make one sheet, and \(sources.count) were named")
        }
        func checked(_ value: Double?, _ field: String, _ range: ClosedRange<Double>) throws(Failure) -> Double? {
            guard let value else { return nil }
            guard value.isFinite, range.contains(value) else {
                throw Failure(
                    .invalidOption,
                    "expects a number of millimetres from \(PrintLength.format(range.lowerBound)) to "
                        + "\(PrintLength.format(range.upperBound)), got \(JSONValue.format(value))",
                    field: field)
            }
            return value
        }
        guard let mode = CutMode(rawValue: cut ?? "kiss") else {
            throw Failure(.invalidOption, "expects kiss or die, got \"\((cut ?? "").prefix(40))\"", field: "cut")
        }
        let paper: (width: Double, height: Double)
        do throws(PrintError) {
            paper = try PrintLength.page(page ?? "a4")
        } catch {
            throw Failure(.invalidOption, error.description)
        }
        for source in sources {
            switch source {
            case .file(_, let size?), .sticker(_, let size?): _ = try checked(size, "size", Limits.stickerPrintSize)
            default: break
            }
        }
        if let dotsPerInch, !(dotsPerInch.isFinite && Limits.printDotsPerInch.contains(dotsPerInch)) {
            throw Failure(
                .invalidOption,
                "expects a resolution in dots per inch \(Limits.describe(Limits.printDotsPerInch)), got \(JSONValue.format(dotsPerInch))",
                field: "dpi")
        }
        self.sources = sources
        self.collage = collage
        self.size = try checked(size, "size", Limits.stickerPrintSize) ?? 50
        self.options = SheetOptions(
            pageWidth: paper.width, pageHeight: paper.height, gap: try checked(gap, "gap", Limits.cutLineGap),
            margin: try checked(margin, "margin", Limits.sheetMargin) ?? 6, cut: mode, registrationMarks: marks,
            turnsToFit: turnsToFit)
        self.cutLine = CutLineOptions(
            offset: try checked(offset, "offset", Limits.cutLineOffset) ?? 2, dotsPerInch: dotsPerInch ?? 300,
            whiteBacking: whiteBacking)
    }

    /// The range of each length a sheet takes, in millimetres, by field.
    public static let lengthRanges: [String: ClosedRange<Double>] = [
        "size": Limits.stickerPrintSize, "gap": Limits.cutLineGap, "margin": Limits.sheetMargin,
        "offset": Limits.cutLineOffset,
    ]

    /// Reads a length as the command line writes it (`50mm`, `0.5cm`, `1in`) in millimetres,
    /// within the field's range (``lengthRanges``).
    /// - Parameter label: how the message names the value, when not by its field (`red.png@4mm`).
    /// - Throws: ``Failure`` `invalidOption` naming the field (or `label`), the text and the range.
    public static func millimetres(_ text: String, field: String, label: String? = nil) throws(Failure) -> Double {
        do throws(PrintError) {
            return try PrintLength.millimetres(
                text, option: label ?? "«\(field)»",
                range: lengthRanges[field] ?? 0...Limits.stickerPrintSize.upperBound)
        } catch {
            throw Failure(.invalidOption, error.description)
        }
    }

    /// Reads a resolution (`300` or `300dpi`).
    /// - Throws: ``Failure`` `invalidOption` naming `dpi`.
    public static func dotsPerInch(_ text: String) throws(Failure) -> Double {
        do throws(PrintError) {
            return try PrintLength.dotsPerInch(text)
        } catch {
            throw Failure(.invalidOption, error.description)
        }
    }
}

/// A packed sticker sheet: what the pages hold, and the files made from it.
public struct StickerSheet: Sendable {
    /// The packed pages.
    let layout: SheetLayout
    /// Each sticker's name, as messages and the JSON say it (`red.png`, `sticker 1a2b3c`).
    public let names: [String]
    /// Each sticker's library id, or `nil` for a file.
    public let stickerIDs: [String?]
    /// Each sticker's picture as it is printed (a collage's sticker drawn in its look).
    public let pictures: [URL]
    /// When the last page holds one sticker alone, how to fit them all on fewer pages.
    public let suggestion: Suggestion?
    /// What the person should know before printing: a soft picture, a cut line changed.
    public let warnings: [String]
    /// How long packing took, in milliseconds.
    public let packMilliseconds: Double
    /// Whether the stickers come from a collage, drawn in their looks.
    public let isFromCollage: Bool

    /// A way to save a page.
    public struct Suggestion: Sendable, Equatable {
        /// How many pages it would take.
        public let pages: Int
        /// The size that does it, when a smaller size does.
        public let size: Double?
        /// Whether turning stickers to fit does it.
        public let turnsToFit: Bool
        /// The advice in words.
        public let text: String
    }

    /// Where one sticker lies on its page, in millimetres from the page's top-left.
    public struct Placement: Sendable {
        /// Which sticker (an index into ``StickerSheet/names``).
        public let sticker: Int
        /// The page, from 1.
        public let page: Int
        /// The sticker canvas's top-left on the page.
        public let x: Double
        /// The same, down.
        public let y: Double
        /// Quarter turns clockwise.
        public let quarterTurns: Int
        /// Maps the sticker's canvas (millimetres, unturned) onto the page, as SVG's `matrix()`.
        public let matrix: [Double]
        /// The sticker canvas's size in millimetres.
        public let canvas: Size
        /// Where the sticker's picture lies on its canvas, in millimetres.
        public let picture: Rect
        /// The cut line on the page, as SVG path data.
        public let cutLine: String
        /// The cut line's bounding box on the page.
        public let cutBounds: Rect
        /// The area inside the cut line, in square millimetres.
        public let area: Double
    }

    /// The page's width in millimetres.
    public var pageWidth: Double { layout.options.pageWidth }
    /// The page's height in millimetres.
    public var pageHeight: Double { layout.options.pageHeight }
    /// How many pages.
    public var pageCount: Int { layout.pageCount }
    /// How much of the paper the cut shapes cover, 0 to 1.
    public var coverage: Double { layout.coverage }
    /// The print pixels the sheet holds (each held as colour and as inside-the-cut while it is kept).
    public var pixels: Int { layout.stickers.reduce(0) { $0 + $1.image.width * $1.image.height } }

    /// The registration marks' rectangles (x, y, width, height in mm), when the sheet has marks.
    public var registrationMarks: [Rect] {
        guard layout.options.registrationMarks else { return [] }
        return RegistrationMarks.rectangles(pageWidth: pageWidth, pageHeight: pageHeight).map {
            Rect(x: $0.0, y: $0.1, width: $0.2, height: $0.3)
        }
    }

    /// Every sticker's place, page by page.
    public var placements: [Placement] {
        layout.placements.map { placement in
            let sticker = layout.stickers[placement.sticker]
            let (width, height) = sticker.sizeInMillimetres
            let origin = layout.pagePoint(Point(x: 0, y: 0), of: placement)
            let across = layout.pagePoint(Point(x: 1, y: 0), of: placement)
            let down = layout.pagePoint(Point(x: 0, y: 1), of: placement)
            let perMillimetre = sticker.options.pixelsPerMillimetre
            let path = layout.pagePath(of: placement)
            let bounds = path.bounds
            return Placement(
                sticker: placement.sticker, page: placement.page + 1, x: placement.x, y: placement.y,
                quarterTurns: placement.quarterTurns,
                matrix: [
                    across.x - origin.x, across.y - origin.y, down.x - origin.x, down.y - origin.y, origin.x, origin.y,
                ],
                canvas: Size(width: width, height: height),
                picture: Rect(
                    x: sticker.pictureFrame.x / perMillimetre, y: sticker.pictureFrame.y / perMillimetre,
                    width: sticker.pictureFrame.width / perMillimetre,
                    height: sticker.pictureFrame.height / perMillimetre),
                cutLine: path.svgData(decimals: 2),
                cutBounds: Rect(
                    x: bounds.minX, y: bounds.minY, width: bounds.maxX - bounds.minX, height: bounds.maxY - bounds.minY),
                area: layout.area(of: placement.sticker))
        }
    }

    /// Writes the sheet as a PDF (pictures, and cut lines in the spot colour CutContour), one
    /// picture at a time.
    /// - Throws: ``Failure`` `cannotWrite`.
    public func writePDF(to file: URL, title: String) throws(Failure) {
        do throws(PrintError) {
            try SheetPDF.write(layout, title: title, to: file)
        } catch {
            throw error.failure
        }
    }

    /// One page's cut lines (and registration marks) as SVG for a cutting machine; `page` from 0.
    public func cutSVG(page: Int, title: String) -> String { SheetSVG.page(page, of: layout, title: title) }

    /// Writes a page's preview (the pictures and cut lines as a PNG); `page` from 0.
    /// - Throws: ``Failure`` `cannotWrite`.
    public func writePreview(page: Int, to file: URL) throws(Failure) {
        do throws(PrintError) {
            try SheetPreview.write(page: page, of: layout, to: file)
        } catch {
            throw error.failure
        }
    }

    /// Writes the PDF, a preview PNG per page beside it (`NAME-page-N.png`) and, when `svg` is
    /// given, the cut lines per page (`svg`, or `NAME-page-N.svg` for more than one page). All
    /// are written under temporary names first and renamed together: nothing half-written is
    /// left behind.
    /// - Returns: the previews and the SVG files, in page order.
    /// - Throws: ``Failure`` `cannotWrite`; nothing is left behind then.
    public func write(pdf output: URL, svg: URL?) throws(Failure) -> (previews: [URL], svg: [URL]) {
        let title = output.deletingPathExtension().lastPathComponent
        let previews = (0..<pageCount).map { page in
            output.deletingLastPathComponent().appendingPathComponent("\(title)-page-\(page + 1).png")
        }
        let svgFiles =
            svg.map { file in
                pageCount == 1
                    ? [file]
                    : (0..<pageCount).map { page in
                        file.deletingLastPathComponent().appendingPathComponent(
                            "\(file.deletingPathExtension().lastPathComponent)-page-\(page + 1).svg")
                    }
            } ?? []
        var written: [(staged: URL, final: URL)] = []
        func staged(_ file: URL) -> URL {
            let staged = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).partial")
            written.append((staged, file))
            return staged
        }
        do throws(Failure) {
            try writePDF(to: staged(output), title: title)
            for (page, preview) in previews.enumerated() { try writePreview(page: page, to: staged(preview)) }
            for (page, file) in svgFiles.enumerated() {
                let target = staged(file)
                do {
                    try Data(cutSVG(page: page, title: title).utf8).write(to: target)
                } catch {
                    throw Failure(.cannotWrite, "\(file.path): \(error.localizedDescription)")
                }
            }
            for (staged, final) in written where rename(staged.path, final.path) != 0 {
                throw Failure(.cannotWrite, "\(final.path): \(String(cString: strerror(errno)))")
            }
        } catch {
            for (staged, _) in written { try? FileManager.default.removeItem(at: staged) }
            throw error
        }
        return (previews, svgFiles)
    }
}

/// Stickers cut for print, kept from sheet to sheet. Sizing each sticker and finding its cut
/// line is what a sheet takes its time over, and changing the paper, the gap, the cut or the
/// marks changes neither: a sheet made again then only packs.
public final class CutStickerCache: Sendable {
    /// A sticker file as it was when cut (a file replaced under the same id is cut again), at one
    /// size and cut line.
    private struct Key: Hashable {
        let path: String
        let bytes: Int
        let modified: Double
        let size: Double
        let cutLine: CutLineOptions
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
    public static let pixelBudget = 64_000_000

    /// An empty cache.
    public init() {}

    /// How many stickers were cut (rather than found here), so tests can tell.
    public var cutCount: Int { cuts.load(ordering: .relaxed) }

    func sticker(
        file: URL, size: Double, cutLine: CutLineOptions, cut: () throws(PrintError) -> CutSticker
    ) throws(PrintError) -> CutSticker {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        let key = Key(
            path: file.path, bytes: (attributes?[.size] as? Int) ?? -1,
            modified: (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0, size: size,
            cutLine: cutLine)
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

/// The sheet use case.
extension Workspace {
    /// Makes the sheet `request` asks for; see ``SheetRequest/make(in:looks:cache:isCancelled:)``.
    public func makeSheet(
        _ request: SheetRequest, looks: URL, cache: CutStickerCache? = nil,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> StickerSheet {
        try request.make(in: self, looks: looks, cache: cache, isCancelled: isCancelled)
    }
}

extension SheetRequest {
    /// Makes the sheet: every sticker's pixels at print size bounded before
    /// any is made, each sticker sized and cut around (or found in `cache`), then packed.
    /// - Parameters:
    ///   - workspace: the library the stickers and the collage named are in; `nil` for files only.
    ///   - warnsOfSoftPictures: say in ``StickerSheet/warnings`` which pictures have under 150
    ///     of their own pixels an inch on paper (reading each file once more).
    ///   - looks: the folder where a collage's stickers are drawn in their looks.
    ///   - isCancelled: asked before the expensive steps; `true` stops with `cancelled`.
    /// - Throws: ``Failure``: `notFound` for an unknown sticker, file or collage, `invalidInput`
    ///   for a sticker that cannot fit on the page or a sheet over its pixel budget, `noSubject`
    ///   for a clear picture.
    public func make(
        in workspace: Workspace?, looks: URL, cache: CutStickerCache? = nil, warnsOfSoftPictures: Bool = false,
        isCancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(Failure) -> StickerSheet {
        let request = self
        func library() throws(Failure) -> Workspace {
            guard let workspace else { throw Failure(.failed, "library stickers need a library") }
            return workspace
        }
        var collage: Collage?
        if let id = request.collage { collage = try library().collage(id).collage }
        let collageStickers = collage?.items.filter { if case .sticker = $0.content { true } else { false } } ?? []
        var sources = request.sources
        if request.sources.isEmpty, collage == nil {
            sources = try library().stickers().prefix(Limits.maximumSheetStickers).map { .sticker($0.id, size: nil) }
        }
        let count = sources.count + collageStickers.count
        guard count <= Limits.maximumSheetStickers else {
            throw Failure(
                .invalidOption, "at most \(Limits.maximumSheetStickers) stickers make one sheet, and there are \(count)"
            )
        }
        let sizes = sources.map { source -> Double in
            switch source {
            case .file(_, let size), .sticker(_, let size): size ?? request.size
            }
        }
        // A collage's stickers are drawn at the sheet's size.
        let allSizes = sizes + (collage == nil ? [] : [request.size])
        // Every sticker's pixels at print size together, bounded before any is made.
        do throws(PrintError) {
            try SheetStickers.checkSheetPixels(
                count: count, size: allSizes.max() ?? request.size, options: request.cutLine)
        } catch {
            throw error.failure
        }
        // A sticker larger than the page cannot be placed: refused before any is drawn or cut.
        let options = request.options
        let usable = max(options.pageWidth, options.pageHeight) - 2 * options.margin
        let names =
            sources.map { source in
                switch source {
                case .file(let file, _): file.lastPathComponent
                case .sticker(let id, _): "sticker \(id.prefix(40))"
                }
            } + (collage == nil ? [] : ["the collage's stickers"])
        for (name, size) in zip(names, allSizes) where size > usable {
            throw Failure(
                .invalidInput,
                "\(name): at \(PrintLength.format(size)) mm it does not fit on the page inside its margins "
                    + "(at most \(PrintLength.format(usable)) mm); choose a smaller «size» or a larger «page»")
        }
        var entries: [(name: String, id: String?, file: URL, size: Double)] = []
        for (source, size) in zip(sources, sizes) {
            switch source {
            case .file(let file, _):
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw Failure(.notFound, "\(file.path): no such file")
                }
                entries.append((file.lastPathComponent, nil, file, size))
            case .sticker(let id, _):
                let workspace = try library()
                let record = try workspace.sticker(id)
                entries.append(("sticker \(id.prefix(40))", record.id, workspace.stickerImage(of: record), size))
            }
        }
        if let collage {
            if isCancelled() { throw Failure(.cancelled, "the client closed the connection") }
            let prints = try StickerPrints.draw(
                collage, photos: try library().editorPhotos, into: looks, size: request.size,
                dotsPerInch: request.cutLine.dotsPerInch)
            let id = request.collage ?? collage.id
            entries += prints.map { ("\(id.prefix(40)) \($0.itemID)", $0.stickerID, $0.file, request.size) }
        }
        let stickerNames = entries.map(\.name)
        let cutLine = request.cutLine
        let toCut = entries
        // Every entry sized and cut (or found in `cache`), on all cores: a sheet spends most of its
        // time here and each sticker is cut on its own.
        @Sendable func cutAll(at sizes: [Double]) throws(PrintError) -> [CutSticker] {
            let slots = Mutex([Result<CutSticker, PrintError>?](repeating: nil, count: toCut.count))
            DispatchQueue.concurrentPerform(iterations: toCut.count) { index in
                let entry = toCut[index]
                let size = sizes[index]
                let result = Result { () throws(PrintError) -> CutSticker in
                    if isCancelled() { throw .cancelled }
                    let make = { () throws(PrintError) in
                        try SheetStickers.prepare(file: entry.file, name: entry.name, size: size, options: cutLine)
                    }
                    guard let cache else { return try make() }
                    return try cache.sticker(file: entry.file, size: size, cutLine: cutLine, cut: make)
                }
                slots.withLock { $0[index] = result }
            }
            // The first failure in the order given, as a one-by-one loop would have met it.
            return try slots.withLock { slots throws(PrintError) in
                try slots.map { slot throws(PrintError) in
                    guard let slot else { throw .cancelled }
                    return try slot.get()
                }
            }
        }
        if isCancelled() { throw Failure(.cancelled, "the client closed the connection") }
        do throws(PrintError) {
            let stickers = try cutAll(at: entries.map(\.size))
            var warnings: [String] = []
            for (entry, sticker) in zip(entries, stickers) {
                warnings += sticker.warnings
                if warnsOfSoftPictures, let resolution = sticker.pictureDotsPerInch, resolution < 150 {
                    warnings.append(
                        "\(entry.name) has only \(resolution < 10 ? String(format: "%.1f", resolution) : String(Int(resolution))) "
                            + "pixels an inch at "
                            + "\(PrintLength.format(entry.size)) mm; it will print soft")
                }
            }
            let started = ContinuousClock.now
            let layout = try SheetPacker.pack(stickers, names: stickerNames, options: options)
            let elapsed = ContinuousClock.now - started
            // One sticker alone on the last page: what would fit them all on fewer pages (when
            // every sticker has the one size a smaller size would change).
            var suggestion: StickerSheet.Suggestion?
            if entries.allSatisfy({ $0.size == request.size }),
                let fewer = try? SheetPacker.fewerPages(
                    than: layout, size: request.size, names: stickerNames, options: options,
                    cut: { size throws(PrintError) in
                        try cutAll(at: Array(repeating: size, count: entries.count))
                    })
            {
                suggestion = StickerSheet.Suggestion(
                    pages: fewer.pages, size: fewer.size, turnsToFit: fewer.turnsToFit, text: fewer.text)
            }
            return StickerSheet(
                layout: layout, names: stickerNames, stickerIDs: entries.map(\.id), pictures: entries.map(\.file),
                // A sticker placed twelve times is said to be soft once, not twelve times.
                suggestion: suggestion, warnings: warnings.reduce(into: []) { if !$0.contains($1) { $0.append($1) } },
                packMilliseconds: elapsed.inSeconds * 1000,
                isFromCollage: collage != nil)
        } catch {
            throw error.failure
        }
    }
}
