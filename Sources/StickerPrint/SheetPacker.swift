import Foundation
import Synchronization

/// Packs stickers by their cut shapes, not their boxes: each page is a grid of millimetre cells,
/// each sticker (largest first, upright, or also in quarter turns when ``SheetOptions/turnsToFit``)
/// goes to the first place from the top-left where its shape, grown by the gap, meets no other
/// sticker's shape, and the turn that finds the highest place wins. Shapes interlock where boxes could not (a cat's ears beside
/// another's tail), and no two cut lines come closer than the gap.
public enum SheetPacker {
    /// The grid's cell, in millimetres: a shape's cells overstate it by up to a cell along its edge.
    static let cell = 0.5

    /// Packs `stickers` onto as few pages as it can.
    /// - Throws: ``PrintError/empty`` for no stickers; ``PrintError/tooLarge(_:)`` naming a
    ///   sticker that does not fit on an empty page in any turn.
    public static func pack(
        _ stickers: [CutSticker], names: [String], options: SheetOptions
    ) throws(PrintError)
        -> SheetLayout
    {
        guard !stickers.isEmpty else { throw .empty }
        guard options.gap.isFinite, options.gap > 0, options.gap <= 100, options.margin.isFinite, options.margin >= 0,
            options.pageWidth.isFinite, options.pageHeight.isFinite, (10...5000).contains(options.pageWidth),
            (10...5000).contains(options.pageHeight)
        else {
            throw .invalidOption(
                "a sheet needs a page of 10 to 5,000 mm, a gap of more than 0 and a margin of 0 or more")
        }
        let columns = Int((options.pageWidth / cell).rounded(.down))
        let rows = Int((options.pageHeight / cell).rounded(.down))
        // Upside down is never tried (see `turnPenalty`), so that turn is not made.
        // Each sticker's shapes are found on their own, on every core.
        let found = Mutex([[Shape?]](repeating: [], count: stickers.count))
        DispatchQueue.concurrentPerform(iterations: stickers.count) { index in
            let turns = (0..<4).map { $0 == 2 ? nil : Shape(stickers[index], quarterTurns: $0, gap: options.gap) }
            found.withLock { $0[index] = turns }
        }
        let shapes = found.withLock { $0 }
        let hard = hardCells(columns: columns, rows: rows, options: options)
        var pages: [Grid] = []
        var placements: [SheetPlacement?] = Array(repeating: nil, count: stickers.count)
        let order = stickers.indices.sorted { (shapes[$0][0]?.area ?? 0) > (shapes[$1][0]?.area ?? 0) }
        for index in order {
            var placed = false
            for page in 0...pages.count {
                if page == pages.count { pages.append(Grid(columns: columns, rows: rows)) }
                if let spot = bestSpot(
                    for: shapes[index], turns: options.turnsToFit ? [0, 1, 3] : [0], on: pages[page], hard: hard)
                {
                    pages[page].mark(shapes[index][spot.turn]?.cells ?? [], atX: spot.x, y: spot.y)
                    placements[index] = SheetPlacement(
                        sticker: index, page: page, x: Double(spot.x) * cell, y: Double(spot.y) * cell,
                        quarterTurns: spot.turn)
                    placed = true
                    break
                }
                if page == pages.count - 1, pages[page].isEmpty {
                    let (width, height) = stickers[index].sizeInMillimetres
                    throw .tooLarge(
                        "\(names[index]): at \(PrintLength.format(width)) × \(PrintLength.format(height)) mm it does not fit "
                            + "on a \(PrintLength.format(options.pageWidth)) × \(PrintLength.format(options.pageHeight)) mm page "
                            + "inside its margins; give a smaller --size or a larger --page")
                }
            }
            guard placed else { throw .tooLarge("\(names[index]): no place was found for it") }
        }
        return SheetLayout(
            stickers: stickers, placements: placements.compactMap { $0 }, options: options, pageCount: pages.count)
    }

    /// A sticker is turned only when that puts it at least this many cells higher: people read
    /// a sheet upright. Upside down is never tried.
    static let turnPenalty = 5

    private static func bestSpot(
        for shapes: [Shape?], turns: [Int], on page: Grid, hard: Grid
    ) -> (x: Int, y: Int, turn: Int)? {
        var best: (x: Int, y: Int, turn: Int, score: Int)?
        for turn in turns {
            guard let shape = shapes[turn] else { continue }
            let penalty = turn == 0 ? 0 : turnPenalty
            let lastRow = min(page.rows - shape.height, best.map { $0.score - penalty } ?? Int.max)
            guard lastRow >= 0, shape.width <= page.columns else { continue }
            search: for y in 0...lastRow {
                var x = 0
                while x <= page.columns - shape.width {
                    // A clash says how far right the next place that could avoid it is.
                    let skip = shape.clash(atX: x, y: y, on: page, hard: hard)
                    guard skip == 0 else {
                        x += skip
                        continue
                    }
                    if let current = best, (current.score, current.x) <= (y + penalty, x) { break search }
                    best = (x, y, turn, y + penalty)
                    break search
                }
            }
        }
        return best.map { ($0.x, $0.y, $0.turn) }
    }

    /// Cells no cut line may enter: the margins, and the registration marks with the gap around them.
    private static func hardCells(columns: Int, rows: Int, options: SheetOptions) -> Grid {
        var grid = Grid(columns: columns, rows: rows)
        let margin = Int((options.margin / cell).rounded(.up))
        for y in 0..<rows {
            for x in 0..<columns where x < margin || y < margin || x >= columns - margin || y >= rows - margin {
                grid.set(x, y)
            }
        }
        if options.registrationMarks {
            // The cutter's eye looks for each mark in the page's corner: those corners stay
            // clear up to the gap past the marks' legs, and so does the band outside them.
            let edge = RegistrationMarks.inset + RegistrationMarks.thickness + options.gap
            let corner = Int(((RegistrationMarks.inset + RegistrationMarks.length + options.gap) / cell).rounded(.up))
            let band = Int((edge / cell).rounded(.up))
            for y in 0..<rows {
                for x in 0..<columns {
                    let nearEdge = x < band || y < band || x >= columns - band || y >= rows - band
                    let left = x < corner
                    let top = y < corner
                    let right = x >= columns - corner
                    let bottom = y >= rows - corner
                    if nearEdge || (left && top) || (right && top) || (left && bottom) { grid.set(x, y) }
                }
            }
        }
        return grid
    }
}

/// A page's cells, a bit each.
struct Grid {
    let columns: Int
    let rows: Int
    let wordsPerRow: Int
    private(set) var words: [UInt64]
    private(set) var isEmpty = true

    init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        wordsPerRow = (self.columns + 63) / 64
        words = [UInt64](repeating: 0, count: wordsPerRow * self.rows)
    }

    mutating func set(_ x: Int, _ y: Int) {
        guard x >= 0, y >= 0, x < columns, y < rows else { return }
        words[y * wordsPerRow + x / 64] |= 1 << UInt64(x % 64)
    }

    /// The last set cell of row `y` from `start` up to `end` (exclusive), if any.
    func lastSet(row y: Int, from start: Int, to end: Int) -> Int? {
        let (low, high) = (max(0, start), min(columns, end))
        guard low < high, y >= 0, y < rows else { return nil }
        let base = y * wordsPerRow
        var index = high
        while index > low {
            let word = (index - 1) / 64
            let wordStart = word * 64
            let first = max(low, wordStart) - wordStart
            let last = index - wordStart
            let mask = (last == 64 ? ~UInt64(0) : (UInt64(1) << UInt64(last)) - 1) & ~((UInt64(1) << UInt64(first)) - 1)
            let hits = words[base + word] & mask
            if hits != 0 { return wordStart + 63 - hits.leadingZeroBitCount }
            index = wordStart + first
        }
        return nil
    }

    mutating func mark(_ runs: [(row: Int, start: Int, end: Int)], atX x: Int, y: Int) {
        for run in runs {
            for column in run.start..<run.end { set(x + column, y + run.row) }
        }
        isEmpty = false
    }
}

/// A sticker's cut shape in one quarter turn, as runs of cells, and the same grown by the gap.
struct Shape {
    let width: Int
    let height: Int
    let cells: [(row: Int, start: Int, end: Int)]
    let grown: [(row: Int, start: Int, end: Int)]
    let area: Int

    init(_ sticker: CutSticker, quarterTurns: Int, gap: Double) {
        let image = sticker.image
        let perCell = sticker.options.pixelsPerMillimetre * SheetPacker.cell
        let turnedWidth = quarterTurns % 2 == 0 ? image.width : image.height
        let turnedHeight = quarterTurns % 2 == 0 ? image.height : image.width
        width = Int((Double(turnedWidth) / perCell).rounded(.up))
        height = Int((Double(turnedHeight) / perCell).rounded(.up))
        var occupied = [Bool](repeating: false, count: width * height)
        // Every cell a pixel's square (and a pixel of slack for the traced curve) reaches. Both
        // ends grow with the position, so a run of inside pixels reaches one rectangle of cells:
        // the shape is marked a run at a time rather than a pixel at a time.
        let (columns, rows) = (width, height)
        func first(_ position: Int) -> Int { max(0, Int(Double(position - 1) / perCell)) }
        func last(_ position: Int, _ count: Int) -> Int { min(count - 1, Int(Double(position + 2) / perCell)) }
        func turned(_ x: Int, _ y: Int) -> (x: Int, y: Int) {
            switch quarterTurns {
            case 1: (image.height - 1 - y, x)
            case 2: (image.width - 1 - x, image.height - 1 - y)
            case 3: (y, image.width - 1 - x)
            default: (x, y)
            }
        }
        sticker.inside.withUnsafeBufferPointer { inside in
            occupied.withUnsafeMutableBufferPointer { occupied in
                for y in 0..<image.height {
                    let row = y * image.width
                    var x = 0
                    while x < image.width {
                        guard inside[row + x] else {
                            x += 1
                            continue
                        }
                        let start = x
                        while x < image.width, inside[row + x] { x += 1 }
                        let (a, b) = (turned(start, y), turned(x - 1, y))
                        for cellRow in first(min(a.y, b.y))...last(max(a.y, b.y), rows) {
                            for column in first(min(a.x, b.x))...last(max(a.x, b.x), columns) {
                                occupied[cellRow * columns + column] = true
                            }
                        }
                    }
                }
            }
        }
        area = occupied.lazy.filter { $0 }.count
        cells = Self.runs(occupied, width: width, height: height, offset: 0)
        // Grown by every cell offset whose two squares come closer than the gap: the nearest
        // points of cells dx, dy apart are (|dx| − 1, |dy| − 1) cells apart (none when touching).
        let gapInCells = gap / SheetPacker.cell
        let reach = Int(gapInCells.rounded(.up)) + 1
        var spans: [Int] = []
        for dy in -reach...reach {
            let rows = Double(max(0, abs(dy) - 1))
            var span = 0
            while span + 1 <= reach, Double(span) * Double(span) + rows * rows < gapInCells * gapInCells { span += 1 }
            // `span` columns beyond the first neighbour are still too close when rows allow any.
            spans.append(rows < gapInCells ? span : -1)
        }
        let grownSide = (width + 2 * reach, height + 2 * reach)
        var grownCells = [Bool](repeating: false, count: grownSide.0 * grownSide.1)
        for run in cells {
            for dy in -reach...reach where spans[dy + reach] >= 0 {
                let span = spans[dy + reach]
                let row = run.row + dy + reach
                let start = run.start - span + reach
                let end = run.end + span + reach
                for column in max(0, start)..<min(grownSide.0, end) { grownCells[row * grownSide.0 + column] = true }
            }
        }
        grown = Self.runs(grownCells, width: grownSide.0, height: grownSide.1, offset: reach)
    }

    private static func runs(
        _ cells: [Bool], width: Int, height: Int, offset: Int
    ) -> [(
        row: Int, start: Int, end: Int
    )] {
        var result: [(row: Int, start: Int, end: Int)] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                guard cells[y * width + x] else {
                    x += 1
                    continue
                }
                let start = x
                while x < width, cells[y * width + x] { x += 1 }
                result.append((y - offset, start - offset, x - offset))
            }
        }
        return result
    }

    /// 0 when the shape's cells meet no hard cell and, grown by the gap, no placed sticker's
    /// cell; otherwise how many columns right the first clash is passed.
    func clash(atX x: Int, y: Int, on page: Grid, hard: Grid) -> Int {
        for run in grown {
            if let hit = page.lastSet(row: y + run.row, from: x + run.start, to: x + run.end) {
                return hit - (x + run.start) + 1
            }
        }
        for run in cells {
            if let hit = hard.lastSet(row: y + run.row, from: x + run.start, to: x + run.end) {
                return hit - (x + run.start) + 1
            }
        }
        return 0
    }
}
