/// What an outline goes around: a sticker's at least half opaque pixels, less the small islands
/// of them lying apart from its main parts. A strand's tip that the matte kept past a gap (a
/// whisker's end beside a cat's cheek) would otherwise get a ring of its own, a white blob
/// floating beside the sticker where a die-cut shape has none.
enum OutlineCore {
    /// The opacity from which a pixel belongs to the outline's core.
    static let threshold: UInt8 = 128

    /// A run of core pixels along a row: columns `start..<end` of row `row`.
    private struct Run {
        var row, start, end: Int
    }

    /// The squared distance from each pixel of `alpha` (`width` × `height`, one band) to the
    /// outline's core: its half opaque pixels in a main part (at least a hundredth of the largest
    /// part's area), or in a part within `2 × ringWidth + 1` pixels of one, whose ring merges with
    /// the part's into one shape. Exact up to `ringWidth + 1`, which is all a ring reads; the
    /// second value says whether there is a core at all.
    static func squaredDistances(alpha: [UInt8], width: Int, height: Int, ringWidth: Double) -> ([Float], Bool) {
        let count = width * height
        guard count > 0, alpha.count == count else { return ([], false) }
        // Parts are found by their runs along the rows, joined where a run touches one in the row
        // above (diagonals included): a 12 MP sticker has a few thousand runs, not millions of
        // pixels to walk one by one.
        var runs: [Run] = []
        var rowStarts = [Int](repeating: 0, count: height + 1)
        alpha.withUnsafeBufferPointer { alpha in
            for y in 0..<height {
                rowStarts[y] = runs.count
                var x = 0
                let base = y * width
                while x < width {
                    while x < width && alpha[base + x] < threshold { x += 1 }
                    guard x < width else { break }
                    let start = x
                    while x < width && alpha[base + x] >= threshold { x += 1 }
                    runs.append(Run(row: y, start: start, end: x))
                }
            }
            rowStarts[height] = runs.count
        }
        guard !runs.isEmpty else {
            return (DistanceField.squaredDistances(width: width, height: height) { _ in false }, false)
        }
        var parent = Array(0..<runs.count)
        func root(_ run: Int) -> Int {
            var run = run
            while parent[run] != run {
                parent[run] = parent[parent[run]]
                run = parent[run]
            }
            return run
        }
        for y in 1..<max(1, height) {
            var above = rowStarts[y - 1]
            for index in rowStarts[y]..<rowStarts[y + 1] {
                let run = runs[index]
                // Runs of the row above that end left of this one's reach touch none after it.
                while above < rowStarts[y] && runs[above].end < run.start { above += 1 }
                var candidate = above
                while candidate < rowStarts[y] && runs[candidate].start <= run.end {
                    let (a, b) = (root(index), root(candidate))
                    if a != b { parent[max(a, b)] = min(a, b) }
                    candidate += 1
                }
            }
        }
        var areas = [Int](repeating: 0, count: runs.count)
        for index in runs.indices { areas[root(index)] += runs[index].end - runs[index].start }
        let largest = areas.max() ?? 0
        let isMain = areas.map { $0 > 0 && $0 * 100 >= largest }
        var main = [Bool](repeating: false, count: count)
        main.withUnsafeMutableBufferPointer { main in
            for (index, run) in runs.enumerated() where isMain[root(index)] {
                for x in run.start..<run.end { main[run.row * width + x] = true }
            }
        }
        var distances = main.withUnsafeBufferPointer { main in
            DistanceField.squaredDistances(width: width, height: height) { main[$0] }
        }
        // An island near a main part joins the core: its pixels are stamped into the distances
        // out to the ring's reach (islands are few and small; a second distance field over the
        // whole sticker cost a fifth of a 12 MP outlined lift).
        let joining = Float((2 * ringWidth + 1) * (2 * ringWidth + 1))
        var nearIslands = Set<Int>()
        for (index, run) in runs.enumerated() where !isMain[root(index)] {
            if (run.start..<run.end).contains(where: { distances[run.row * width + $0] <= joining }) {
                nearIslands.insert(root(index))
            }
        }
        let stamp = Int((ringWidth + 1).rounded(.up))
        distances.withUnsafeMutableBufferPointer { distances in
            for (index, run) in runs.enumerated() where nearIslands.contains(root(index)) {
                for x in run.start..<run.end {
                    for dy in -stamp...stamp {
                        let row = run.row + dy
                        guard row >= 0, row < height else { continue }
                        for dx in -stamp...stamp {
                            let column = x + dx
                            guard column >= 0, column < width else { continue }
                            let squared = Float(dx * dx + dy * dy)
                            if squared < distances[row * width + column] { distances[row * width + column] = squared }
                        }
                    }
                }
            }
        }
        return (distances, true)
    }
}
