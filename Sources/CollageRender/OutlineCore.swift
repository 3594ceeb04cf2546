/// What an outline goes around: a sticker's at least half opaque pixels, less the small islands
/// of them lying apart from its main parts. A strand's tip that the matte kept past a gap (a
/// whisker's end beside a cat's cheek) would otherwise get a ring of its own, a white blob
/// floating beside the sticker where a die-cut shape has none.
///
/// A sticker's outline also leaves out the parts thinner than a few pixels (whiskers, single
/// hairs, a fine grain the matte kept): ringed one by one, each became a fat white tube filled
/// with the old background's haze, and a cat's cheek a starburst of them. They are drawn as they
/// are, over the outline and past it, without a ring of their own. Where two parts' rings meet,
/// the ring is closed by a disc as wide as itself, so the notch between them is round.
enum OutlineCore {
    /// The opacity from which a pixel belongs to the outline's core.
    static let threshold: UInt8 = 128

    /// The distances a ring is drawn from, and which pixels are thin parts left out of its core.
    struct Distances {
        /// The squared distance from each pixel to the core, exact up to `ringWidth + 1`.
        var squared: [Float]
        /// Whether there is a core at all.
        var hasCore: Bool
        /// The pixels of thin parts joined to the core, left out of it (`nil` when none were).
        var thin: [Bool]?
    }

    /// Where a sticker is thick enough for a ring of its own, decided once on its file at its
    /// plan's size (see ``ComicLook/planSize(width:height:)``). Decided on the pixels at hand, a
    /// strand whose width sat on the disc's got a ring at some sizes and none at others: a dog's
    /// cord grew a white horn in the 2× and 3× exports and in none of the 1×, 4× or 6× ones.
    struct ThickPlan {
        /// The plan's thick part (its half opaque pixels' opening by the disc), grown by a pixel
        /// and a half: a drawing at another size, resampled apart, keeps its own exact edge there
        /// and is cut only across a strand, where the thick part ends.
        private let thick: [Bool]
        private let width: Int
        private let height: Int

        /// The plan of a sticker whose alpha at its plan's size is `alpha` (`width` × `height`),
        /// for a disc of `radius` pixels at that size.
        init(alpha: [UInt8], width: Int, height: Int, radius: Double) {
            let opaque = alpha.map { $0 >= threshold }
            let inside = DistanceField.squaredDistances(width: width, height: height) { !opaque[$0] }
            let fromKernel = DistanceField.squaredDistances(width: width, height: height) {
                inside[$0] > Float(radius * radius)
            }
            let reach = Float((radius + 1.5) * (radius + 1.5))
            thick = fromKernel.map { $0 <= reach }
            (self.width, self.height) = (width, height)
        }

        /// Whether the point at `x`, `y` (fractions of the sticker's width and height) lies in or
        /// next to its thick part.
        func holds(x: Double, y: Double) -> Bool {
            let column = Int((x * Double(width)).rounded(.down))
            let row = Int((y * Double(height)).rounded(.down))
            guard (0..<width).contains(column), (0..<height).contains(row) else { return false }
            return thick[row * width + column]
        }
    }

    /// How thin a part of a sticker `width` × `height` with a ring `ringWidth` wide has no ring of
    /// its own: the radius of the disc that does not fit in it. A 250th of the sticker's longer
    /// side (8 px in a 2,000 px sticker: a whisker or a hair, not a stem or a finger), at most
    /// half the ring's width; 0 (nothing left out) under a pixel.
    static func thinRadius(width: Int, height: Int, ringWidth: Double) -> Double {
        let radius = min(ringWidth / 2, Double(max(width, height)) / 250)
        return radius >= 1 ? radius : 0
    }

    /// The squared distance from each pixel of `alpha` (`width` × `height`, one band) to the
    /// outline's core: its half opaque pixels in a main part (at least a hundredth of the largest
    /// part's area), or in a part within `2 × ringWidth + 1` pixels of one, whose ring merges with
    /// the part's into one shape. With a `thinRadius` of a pixel or more, the core is the half
    /// opaque pixels' morphological opening by a disc of that radius: what is thinner than the
    /// disc is left out of the core, and returned as `thin` where it joins a part that has one.
    /// With `thickInPlan`, which says of each pixel whether the sticker's plan holds it thick (see
    /// ``ThickPlan``), the core is instead the half opaque pixels the plan holds thick, whatever
    /// the resampling made of a strand's width at this size. The distances are exact
    /// `roundingRadius` further out too, for
    /// ``coverage(squared:width:height:ringWidth:roundingRadius:)``.
    static func squaredDistances(
        alpha: [UInt8], width: Int, height: Int, ringWidth: Double, thinRadius: Double = 0, roundingRadius: Double = 0,
        thickInPlan: ((Int) -> Bool)? = nil
    ) -> Distances {
        let count = width * height
        guard count > 0, alpha.count == count else { return Distances(squared: [], hasCore: false, thin: nil) }
        let isOpaque = alpha.map { $0 >= threshold }
        // The opening is the kernel (the pixels farther than the radius from any other pixel)
        // grown back by the radius; in Euclidean distances, the distance to the opening is the
        // distance to the kernel less the radius (`grownBy`), so one field serves both. From a
        // plan, the kernel is the core itself.
        var isKernel = isOpaque
        var grownBy = 0.0
        if thinRadius >= 1, let thickInPlan {
            for index in isKernel.indices where isKernel[index] && !thickInPlan(index) { isKernel[index] = false }
        } else if thinRadius >= 1 {
            let inside = DistanceField.squaredDistances(width: width, height: height) { !isOpaque[$0] }
            let reach = Float(thinRadius * thinRadius)
            isKernel = inside.map { $0 > reach }
            grownBy = thinRadius
        }
        let parts = isKernel.withUnsafeBufferPointer { kernel in PixelParts(width: width, height: height) { kernel[$0] }
        }
        guard let largest = parts.areas.max() else {
            // Nothing is thicker than the disc (line art, a signature): the plain rule rings it all.
            if thinRadius >= 1 {
                return squaredDistances(
                    alpha: alpha, width: width, height: height, ringWidth: ringWidth, roundingRadius: roundingRadius)
            }
            return Distances(
                squared: DistanceField.squaredDistances(width: width, height: height) { _ in false }, hasCore: false,
                thin: nil)
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
        // An island near a main part joins the core, stamped into the distances out to the
        // ring's reach (islands are few and small; a second distance field over the whole
        // sticker cost a fifth of a 12 MP outlined lift). Distances here are to the kernel, a
        // radius short of the opening's.
        let joining = Float((2 * (ringWidth + grownBy) + 1) * (2 * (ringWidth + grownBy) + 1))
        var nearIslands = Set<Int>()
        for (index, run) in parts.runs.enumerated() where !isMain[parts.partOfRun[index]] {
            if (run.start..<run.end).contains(where: { distances[run.row * width + $0] <= joining }) {
                nearIslands.insert(parts.partOfRun[index])
            }
        }
        isKernel.withUnsafeBufferPointer { kernel in
            stamp(
                parts, where: { nearIslands.contains($0) }, marked: { kernel[$0] }, into: &distances, width: width,
                height: height, reach: Int((ringWidth + roundingRadius + grownBy + 1).rounded(.up)))
        }
        guard thinRadius >= 1 else { return Distances(squared: distances, hasCore: true, thin: nil) }
        if grownBy > 0 {
            let radius = Float(grownBy)
            for index in distances.indices {
                let beyond = max(0, distances[index].squareRoot() - radius)
                distances[index] = beyond * beyond
            }
        }
        guard var thin = thinParts(isOpaque: isOpaque, distances: distances, width: width, height: height) else {
            return Distances(squared: distances, hasCore: true, thin: nil)
        }
        // A sticker drawn mostly in lines thinner than the disc (a bicycle, branches) keeps the
        // plain rule: its outline would otherwise go round a few hubs and crossings.
        let opaqueCount = isOpaque.reduce(0) { $0 + ($1 ? 1 : 0) }
        let thinCount = thin.reduce(0) { $0 + ($1 ? 1 : 0) }
        if thinCount * 10 > opaqueCount {
            return squaredDistances(
                alpha: alpha, width: width, height: height, ringWidth: ringWidth, roundingRadius: roundingRadius)
        }
        let anyLeft = ringBluntParts(
            thin: &thin, distances: &distances, width: width, height: height, ringWidth: ringWidth,
            thinRadius: thinRadius, stampReach: ringWidth + roundingRadius + 1)
        return Distances(squared: distances, hasCore: true, thin: anyLeft ? thin : nil)
    }

    /// The ring's opacity (0–255) from the squared distances to its core: full out to `ringWidth`
    /// pixels, antialiased over the pixel where the distance crosses it. With a `roundingRadius`
    /// the ring is closed by a disc of that radius: where two parts' rings meet (a clump of fur
    /// on a whisker beside a cheek, two fingers) the notch between them is filled with a round
    /// fillet, as a die-cut sticker's edge runs, instead of a sharp cusp or a lobe on a neck.
    /// `squared` must be exact out to `ringWidth + roundingRadius`.
    static func coverage(
        squared: [Float], width: Int, height: Int, ringWidth: Double, roundingRadius: Double
    ) -> [UInt8] {
        let reach = Float(ringWidth + 0.5)
        var coverage = squared.map { UInt8((min(1, max(0, reach - $0.squareRoot())) * 255).rounded()) }
        guard roundingRadius >= 1, squared.count == width * height else { return coverage }
        // The closing is the ring grown by the radius (exact in the distances) and shrunk back:
        // the distance to what lies past the grown ring, less the radius. Past the canvas
        // counts as outside.
        let grown = Float((ringWidth + roundingRadius) * (ringWidth + roundingRadius))
        let fromOutside = squared.withUnsafeBufferPointer { squared in
            DistanceField.squaredDistances(width: width, height: height, pastEdge: true) { squared[$0] > grown }
        }
        let radius = Float(roundingRadius + 0.5)
        for index in coverage.indices {
            let closed = UInt8((min(1, max(0, fromOutside[index].squareRoot() - radius)) * 255).rounded())
            if closed > coverage[index] { coverage[index] = closed }
        }
        return coverage
    }

    /// Rings the thin parts that are not drawn out like a hair (a star's point, a beak, a leaf's
    /// tip, whose end the opening cut off) as before: they join the core, stamped into the
    /// distances out to the ring's reach, and are no longer thin. A part is hair-like when it
    /// reaches three times the ring's width and the disc's radius across (a whisker does; the
    /// thin end of a 20° point reaches 6 radii, of a 40° one 3). Returns whether any thin part is left.
    private static func ringBluntParts(
        thin: inout [Bool], distances: inout [Float], width: Int, height: Int, ringWidth: Double, thinRadius: Double,
        stampReach: Double
    ) -> Bool {
        let parts = thin.withUnsafeBufferPointer { thin in PixelParts(width: width, height: height) { thin[$0] } }
        var bounds = [(top: Int, bottom: Int, left: Int, right: Int)](
            repeating: (Int.max, Int.min, Int.max, Int.min), count: parts.count)
        for (index, run) in parts.runs.enumerated() {
            let part = parts.partOfRun[index]
            bounds[part] = (
                min(bounds[part].top, run.row), max(bounds[part].bottom, run.row),
                min(bounds[part].left, run.start), max(bounds[part].right, run.end - 1)
            )
        }
        let reach = 3 * (ringWidth + thinRadius)
        let isBlunt = (0..<parts.count).map { part -> Bool in
            let (tall, wide) = (
                Double(bounds[part].bottom - bounds[part].top + 1), Double(bounds[part].right - bounds[part].left + 1)
            )
            return (tall * tall + wide * wide).squareRoot() < reach
        }
        let anyLeft = isBlunt.contains(false)
        stamp(
            parts, where: { isBlunt[$0] }, marked: { thin[$0] }, into: &distances, width: width, height: height,
            reach: Int(stampReach.rounded(.up)))
        for (index, run) in parts.runs.enumerated() where isBlunt[parts.partOfRun[index]] {
            for x in run.start..<run.end { thin[run.row * width + x] = false }
        }
        return anyLeft
    }

    /// Joins the `parts` for which `chosen(part)` holds to the core: their pixels' distances
    /// become 0, and the squared distances to them are stamped out to `reach` pixels. Only their
    /// edge pixels (those with a side neighbour not `marked`) are stamped: from outside a part
    /// the nearest of its pixels is always one of them, and stamping every pixel cost a ring's
    /// square each.
    private static func stamp(
        _ parts: PixelParts, where chosen: (Int) -> Bool, marked: (Int) -> Bool, into distances: inout [Float],
        width: Int, height: Int, reach: Int
    ) {
        var edge: [Int] = []
        for (index, run) in parts.runs.enumerated() where chosen(parts.partOfRun[index]) {
            for x in run.start..<run.end {
                let pixel = run.row * width + x
                let above = run.row > 0 && marked(pixel - width)
                let below = run.row + 1 < height && marked(pixel + width)
                if x == run.start || x == run.end - 1 || !above || !below { edge.append(pixel) }
                distances[pixel] = 0
            }
        }
        distances.withUnsafeMutableBufferPointer { distances in
            for pixel in edge {
                let (x, y) = (pixel % width, pixel / width)
                for row in max(0, y - reach)...min(height - 1, y + reach) {
                    for column in max(0, x - reach)...min(width - 1, x + reach) {
                        let squared = Float((column - x) * (column - x) + (row - y) * (row - y))
                        if squared < distances[row * width + column] { distances[row * width + column] = squared }
                    }
                }
            }
        }
    }

    /// The half opaque pixels outside the core (a distance above 0) in parts of them that reach
    /// the core: a whisker growing from a cheek, not a speck apart from the sticker.
    private static func thinParts(isOpaque: [Bool], distances: [Float], width: Int, height: Int) -> [Bool]? {
        let parts = isOpaque.withUnsafeBufferPointer { opaque in
            PixelParts(width: width, height: height) { opaque[$0] }
        }
        var holdsCore = [Bool](repeating: false, count: parts.count)
        for (index, run) in parts.runs.enumerated() where !holdsCore[parts.partOfRun[index]] {
            if (run.start..<run.end).contains(where: { distances[run.row * width + $0] == 0 }) {
                holdsCore[parts.partOfRun[index]] = true
            }
        }
        var thin = [Bool](repeating: false, count: width * height)
        var any = false
        for (index, run) in parts.runs.enumerated() where holdsCore[parts.partOfRun[index]] {
            for x in run.start..<run.end where distances[run.row * width + x] > 0 {
                thin[run.row * width + x] = true
                any = true
            }
        }
        return any ? thin : nil
    }
}
