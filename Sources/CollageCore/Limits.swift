/// Every bound on a number that reaches Collage from outside — a document, an edit, a query, a
/// flag — in one table, so the document validator, the edits, the renderer, the command line and
/// the API refuse the same values with the same words.
///
/// Each bound is chosen so that any value inside it renders in bounded time and memory, and so
/// that converting it to whole pixels can never overflow.
public enum Limits {
    /// A canvas side, in points. The lower end keeps pixels-per-point (and so every item's pixel
    /// position) bounded for the largest output.
    public static let canvasSide: ClosedRange<Double> = 10...20_000
    /// A canvas shape's width over its height, e.g. 1:20 (a tall strip) to 20:1 (a banner).
    public static let aspectRatio: ClosedRange<Double> = (1.0 / 20)...20
    /// Either term of an aspect ratio as typed (`4:5`, `1.91:1`).
    public static let aspectTerm: ClosedRange<Double> = 0.001...1_000_000
    /// The most items one collage may hold.
    public static let maximumItems = 200
    /// A frame may be at most this many canvases wide or tall, and its origin at most this many
    /// canvases away from the canvas.
    public static let canvasMultiple: Double = 10
    /// The longest side of a rendered image, in pixels.
    public static let maximumOutputSide = 32_000
    /// The most pixels in a rendered image (a 24 × 36 in poster at 300 DPI is 78 million).
    public static let maximumOutputPixels = 100_000_000
    /// Pixels per canvas point for an export by scale.
    public static let exportScale: ClosedRange<Double> = 0.01...100
    /// Encoder quality.
    public static let quality: ClosedRange<Int> = 1...100
    /// Dots per inch of a print.
    public static let dpi: ClosedRange<Double> = 10...1_200
    /// A print side, in inches (about 2.5 mm to 25 m; the pixel limits bind long before that).
    public static let printInches: ClosedRange<Double> = 0.1...1_000
    /// A sticker outline on a collage item, in points.
    public static let itemOutline: ClosedRange<Double> = 0...100
    /// The outline of a sticker file, in pixels of the sticker.
    public static let stickerOutline: ClosedRange<Double> = 0...200
    /// Which subject to lift, counting from the largest.
    public static let stickerInstance: ClosedRange<Int> = 1...1_000
    /// Strokes in one refine of a sticker (the refine brush's Done).
    public static let refineStrokes: ClosedRange<Int> = 1...500
    /// Points in all of one refine's strokes together.
    public static let refinePoints = 20_000
    /// The refine brush's radius, in pixels of the sticker.
    public static let refineRadius: ClosedRange<Double> = 0.5...1_000
    /// The pixels one refine may visit (every segment's reach and every stroke's box, summed): a
    /// few seconds' work, so a flood of long, wide strokes is refused rather than run for minutes.
    public static let refineWork = 1_500_000_000
    /// Spacing, padding and corner radius, in points.
    public static let styleLength: ClosedRange<Double> = 0...500
    /// How opaque an item is drawn: 0 is invisible, 1 as it is.
    public static let itemOpacity: ClosedRange<Double> = 0...1
    /// A photo background's blur, in points.
    public static let backgroundBlur: ClosedRange<Double> = 0...100
    /// A photo's own border width, in points.
    public static let photoBorder: ClosedRange<Double> = 0.5...200
    /// How far a background pattern repeats, in points.
    public static let patternScale: ClosedRange<Double> = 4...400
    /// A crop's zoom.
    public static let cropZoom: ClosedRange<Double> = 1...20
    /// The longest text of a text item, in characters: a long caption, not a book.
    public static let maximumTextLength = 2_000
    /// The most code points in a text: room for every character to carry a mark or a joiner.
    public static let maximumTextScalars = 8_000
    /// The most code points one character may join (the longest emoji sequences use ten).
    public static let maximumScalarsPerCharacter = 16
    /// A text's font size, in points.
    public static let textSize: ClosedRange<Double> = 4...1_000
    /// A text's weight, from thin to black.
    public static let textWeight: ClosedRange<Int> = 100...900
    /// A text's line spacing, as a multiple of the font's own.
    public static let textLineSpacing: ClosedRange<Double> = 0.5...4
    /// A text's letter spacing, as a fraction of its size.
    public static let textLetterSpacing: ClosedRange<Double> = -0.2...1
    /// The padding inside a text's background, in points.
    public static let textPadding: ClosedRange<Double> = 0...200
    /// A text's outline, in points.
    public static let textOutline: ClosedRange<Double> = 0...50
    /// A text shadow's blur, in points.
    public static let textShadowBlur: ClosedRange<Double> = 0...100
    /// How far a text shadow falls each way, in points.
    public static let textShadowOffset: ClosedRange<Double> = -200...200
    /// A sticker's longer side on a sheet, cut line included, in millimetres.
    public static let stickerPrintSize: ClosedRange<Double> = 10...1_000
    /// The least distance between two cut lines on a sheet, in millimetres.
    public static let cutLineGap: ClosedRange<Double> = 0.5...50
    /// How far outside a sticker's subject its cut line runs, in millimetres.
    public static let cutLineOffset: ClosedRange<Double> = 0...10
    /// The margin kept free along a sheet's edges, in millimetres.
    public static let sheetMargin: ClosedRange<Double> = 0...50
    /// A side of a sheet's paper, in millimetres.
    public static let paperSide: ClosedRange<Double> = 50...1_200
    /// A print's resolution, in dots per inch.
    public static let printDotsPerInch: ClosedRange<Double> = 72...1_200
    /// The most pixels one sticker may have at its print size (its subject and a margin).
    public static let maximumStickerPrintPixels = 64_000_000
    /// The most pixels one sheet's stickers may have together at print size: all are held while
    /// the sheet is packed and written (eleven A4 pages covered at 300 dpi).
    public static let maximumSheetPixels = 100_000_000
    /// The most stickers one sheet may hold.
    public static let maximumSheetStickers = 100
    /// An animated collage's length, in seconds.
    public static let motionDuration: ClosedRange<Double> = 2...15
    /// An animated collage's longer side, in pixels: 1,080 by default, 4K on request.
    public static let motionSide: ClosedRange<Int> = 64...3_840
    /// An animated collage's frames a second.
    public static let motionFramesPerSecond: ClosedRange<Int> = 5...60
    /// A live sticker's loop, in seconds (WhatsApp's longest; Telegram takes at most 3).
    public static let liveStickerDuration: ClosedRange<Double> = 1...10
    /// The most frames one animation renders (15 s at 60 frames a second).
    public static let maximumMotionFrames = 900
    /// The most pixels one animation draws in all its frames: 15 s of a 1,080 px square at 60
    /// frames a second, or about 5 s of 4K at 30. A job of this size takes a minute or two here.
    public static let maximumMotionPixels = 1_200_000_000
    /// A collage's version as clients send it back (every whole number a JSON double holds exactly).
    public static let version: ClosedRange<Int> = 1...(1 << 53)

    /// Whether `width` × `height` pixels is an output Collage renders.
    public static func allowsOutput(width: Double, height: Double) -> Bool {
        width >= 1 && height >= 1 && width <= Double(maximumOutputSide) && height <= Double(maximumOutputSide)
            && width * height <= Double(maximumOutputPixels)
    }

    /// "from 1 to 100": a range as messages say it.
    public static func describe<Bound: BinaryInteger>(_ range: ClosedRange<Bound>) -> String {
        "from \(range.lowerBound) to \(range.upperBound)"
    }

    /// "from 0 to 200": a range as messages say it.
    public static func describe(_ range: ClosedRange<Double>) -> String {
        "from \(JSONValue.format(range.lowerBound)) to \(JSONValue.format(range.upperBound))"
    }
}

extension Double {
    /// This number as an `Int` when it is whole and inside `range`; `nil` otherwise (including
    /// NaN, infinities and anything too large for an `Int`, which `Int(_:)` would trap on).
    public func wholeNumber(in range: ClosedRange<Int>) -> Int? {
        guard isFinite, self == rounded(), self >= Double(range.lowerBound), self <= Double(range.upperBound),
            let value = Int(exactly: self), range.contains(value)
        else { return nil }
        return value
    }
}
