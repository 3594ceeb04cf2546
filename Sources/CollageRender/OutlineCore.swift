/// What an outline goes around: a sticker's at least half opaque pixels, less the small islands
/// of them lying apart from its main parts. A strand's tip that the matte kept past a gap (a
/// whisker's end beside a cat's cheek) would otherwise get a ring of its own, a white blob
/// floating beside the sticker where a die-cut shape has none.
enum OutlineCore {
    /// The opacity from which a pixel belongs to the outline's core.
    static let threshold: UInt8 = 128

    /// The squared distance from each pixel of `alpha` (`width` × `height`, one band) to the
    /// outline's core: its half opaque pixels in a main part (at least a hundredth of the largest
    /// part's area), or in a part within `2 × ringWidth + 1` pixels of one, whose ring merges with
    /// the part's into one shape. Exact up to `ringWidth + 1`, which is all a ring reads; the
    /// second value says whether there is a core at all.
    static func squaredDistances(alpha: [UInt8], width: Int, height: Int, ringWidth: Double) -> ([Float], Bool) {
        let count = width * height
        guard count > 0, alpha.count == count else { return ([], false) }
        let parts = alpha.withUnsafeBufferPointer { alpha in
            PixelParts(width: width, height: height) { alpha[$0] >= threshold }
        }
        guard let largest = parts.areas.max() else {
            return (DistanceField.squaredDistances(width: width, height: height) { _ in false }, false)
        }
        let isMain = parts.areas.map { $0 * 100 >= largest }
        var main = [Bool](repeating: false, count: count)
        main.withUnsafeMutableBufferPointer { main in
            for (index, run) in parts.runs.enumerated() where isMain[parts.partOfRun[index]] {
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
        for (index, run) in parts.runs.enumerated() where !isMain[parts.partOfRun[index]] {
            if (run.start..<run.end).contains(where: { distances[run.row * width + $0] <= joining }) {
                nearIslands.insert(parts.partOfRun[index])
            }
        }
        let stamp = Int((ringWidth + 1).rounded(.up))
        distances.withUnsafeMutableBufferPointer { distances in
            for (index, run) in parts.runs.enumerated() where nearIslands.contains(parts.partOfRun[index]) {
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
