import CollageCore
import Foundation

/// How a sheet's stickers are cut.
public enum CutMode: String, Sendable, CaseIterable {
    /// Through the sticker layer only: the stickers stay on one backing sheet.
    case kiss
    /// Through the backing too: each sticker comes off as a single.
    case die

    /// The gap between cut lines when none is asked for: print shops ask about 3 mm between
    /// kiss cuts and about 6 mm (a quarter inch) between die-cut singles.
    public var defaultGap: Double { self == .kiss ? 3 : 6 }
}

/// Where a sheet's stickers go and what else is on its pages.
public struct SheetOptions: Hashable, Sendable {
    /// The page's width in millimetres.
    public var pageWidth: Double
    /// The page's height in millimetres.
    public var pageHeight: Double
    /// The least distance between two cut lines, in millimetres.
    public var gap: Double
    /// Kept free along every edge (a home printer cannot print there), in millimetres.
    public var margin: Double
    /// Kiss or die cut.
    public var cut: CutMode
    /// Print-then-cut registration marks on every page (see ``RegistrationMarks``).
    public var registrationMarks: Bool
    /// Whether a sticker may be turned a quarter to fit better. Off, every sticker keeps the
    /// orientation it has on the collage, as people expect to peel it off.
    public var turnsToFit: Bool

    /// A4, kiss cut with 3 mm between lines, 6 mm margins, no registration marks, upright.
    public init(
        pageWidth: Double = 210, pageHeight: Double = 297, gap: Double? = nil, margin: Double = 6,
        cut: CutMode = .kiss, registrationMarks: Bool = false, turnsToFit: Bool = false
    ) {
        self.turnsToFit = turnsToFit
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        self.gap = gap ?? cut.defaultGap
        self.margin = margin
        self.cut = cut
        self.registrationMarks = registrationMarks
    }
}

/// Print-then-cut registration marks, laid out as Silhouette Studio's "Type 1": a filled square
/// in the top-left corner and L-shaped marks in the top-right and bottom-left corners, each
/// ``inset`` from the page's edges. In Studio, choose Type 1 with the same length, thickness and
/// inset, and the cutter's optical eye finds the printed marks.
public enum RegistrationMarks {
    /// From the page's edges to the marks' outer sides, in millimetres.
    public static let inset = 10.0
    /// The legs of the L marks, in millimetres.
    public static let length = 20.0
    /// The legs' thickness, in millimetres.
    public static let thickness = 0.5
    /// The side of the top-left square, in millimetres.
    public static let square = 5.0

    /// The marks as filled rectangles (x, y, width, height) in millimetres from the page's top-left.
    public static func rectangles(pageWidth: Double, pageHeight: Double) -> [(Double, Double, Double, Double)] {
        let right = pageWidth - inset
        let bottom = pageHeight - inset
        return [
            (inset, inset, square, square),
            (right - length, inset, length, thickness), (right - thickness, inset, thickness, length),
            (inset, bottom - thickness, length, thickness), (inset, bottom - length, thickness, length),
        ]
    }
}

/// One sticker on a page: where its canvas's top-left corner lies after it is turned.
public struct SheetPlacement: Hashable, Sendable {
    /// Which sticker (its index in the list given).
    public let sticker: Int
    /// Which page, from 0.
    public let page: Int
    /// The turned canvas's left edge, in millimetres from the page's left.
    public let x: Double
    /// The turned canvas's top edge, in millimetres from the page's top.
    public let y: Double
    /// Clockwise quarter turns, 0 to 3.
    public let quarterTurns: Int
}

/// Stickers packed onto pages, and the means to map each one's drawing onto its page.
public struct SheetLayout: Sendable {
    /// The stickers, as given.
    public let stickers: [CutSticker]
    /// Their places, one each.
    public let placements: [SheetPlacement]
    /// The options packed with.
    public let options: SheetOptions
    /// How many pages.
    public let pageCount: Int

    /// Maps a point of sticker `placement.sticker`'s canvas, in millimetres, onto its page.
    public func pagePoint(_ point: Point, of placement: SheetPlacement) -> Point {
        let (width, height) = stickers[placement.sticker].sizeInMillimetres
        let turned: Point =
            switch placement.quarterTurns {
            case 1: Point(x: height - point.y, y: point.x)
            case 2: Point(x: width - point.x, y: height - point.y)
            case 3: Point(x: point.y, y: width - point.x)
            default: point
            }
        return Point(x: placement.x + turned.x, y: placement.y + turned.y)
    }

    /// A sticker's cut line on its page, in millimetres.
    public func pagePath(of placement: SheetPlacement) -> CutPath {
        stickers[placement.sticker].pathInMillimetres.mapped { pagePoint($0, of: placement) }
    }

    /// The area inside sticker `index`'s cut line, in square millimetres.
    public func area(of index: Int) -> Double {
        let sticker = stickers[index]
        let cell = 1 / sticker.options.pixelsPerMillimetre
        return Double(sticker.inside.lazy.filter { $0 }.count) * cell * cell
    }

    /// The share of the pages' area inside the cut lines (what the packing achieves).
    public var coverage: Double {
        let insideArea = stickers.indices.reduce(0.0) { $0 + area(of: $1) }
        return insideArea / (Double(max(1, pageCount)) * options.pageWidth * options.pageHeight)
    }
}
