/// The 8-connected parts of the marked pixels of an image, found by their runs along the rows:
/// runs are joined where they touch one in the row above (diagonals included), so the pixels
/// are read once, in order, and a 12 MP sticker has a few thousand runs to join, not millions
/// of pixels to walk one by one.
package struct PixelParts {
    /// A run of marked pixels: columns `start..<end` of row `row`.
    package struct Run {
        package var row, start, end: Int
    }

    /// Every run, row by row and left to right along each row.
    package let runs: [Run]
    /// For each run, the index of the part it belongs to (`0..<count`).
    package let partOfRun: [Int]
    /// Each part's area in pixels.
    package let areas: [Int]

    /// How many parts there are.
    package var count: Int { areas.count }

    /// The parts of the pixels of a `width` × `height` image for which `isMarked(index)` holds
    /// (`index` is `y * width + x`).
    package init(width: Int, height: Int, isMarked: (Int) -> Bool) {
        var runs: [Run] = []
        var parent: [Int] = []
        func root(_ run: Int) -> Int {
            var run = run
            while parent[run] != run {
                parent[run] = parent[parent[run]]
                run = parent[run]
            }
            return run
        }
        var previousRow = 0..<0
        for y in 0..<max(0, height) where width > 0 {
            let rowStart = runs.count
            var above = previousRow.lowerBound
            var x = 0
            while x < width {
                while x < width && !isMarked(y * width + x) { x += 1 }
                guard x < width else { break }
                let start = x
                while x < width && isMarked(y * width + x) { x += 1 }
                let index = runs.count
                runs.append(Run(row: y, start: start, end: x))
                parent.append(index)
                // Runs above that end before this one's column less one touch none after it.
                while above < previousRow.upperBound && runs[above].end < start { above += 1 }
                var touching = above
                while touching < previousRow.upperBound && runs[touching].start <= x {
                    let (a, b) = (root(touching), root(index))
                    if a != b { parent[max(a, b)] = min(a, b) }
                    touching += 1
                }
            }
            previousRow = rowStart..<runs.count
        }
        var partOfRoot = [Int](repeating: -1, count: runs.count)
        var partOfRun = [Int](repeating: 0, count: runs.count)
        var areas: [Int] = []
        for index in runs.indices {
            let top = root(index)
            if partOfRoot[top] < 0 {
                partOfRoot[top] = areas.count
                areas.append(0)
            }
            partOfRun[index] = partOfRoot[top]
            areas[partOfRoot[top]] += runs[index].end - runs[index].start
        }
        self.runs = runs
        self.partOfRun = partOfRun
        self.areas = areas
    }
}
