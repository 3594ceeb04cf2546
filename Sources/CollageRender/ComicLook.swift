import CollageCore
import Foundation

/// The comic look: the picture drawn again as an inker and colourist would, in flat colours
/// with confident lines, and, for halftone, shadows printed as dots.
///
/// The drawing is planned on a copy at most ``drawingSide`` pixels across its shorter side, so a
/// face gets the same few regions and lines whether the sticker is a thumbnail or a print; only
/// the final colours, lines and dots are decided at full size, so their edges stay crisp.
struct ComicLook {
    /// The shorter side of the copy the drawing is planned on.
    static let drawingSide = 360
    /// The most pixels the plan has, for stickers much longer than they are wide.
    static let drawingPixels = 300_000
    /// The flat colours a comic keeps (with 10, whether a cat's olive eyes kept a colour of their
    /// own depended on the sticker's size), and the fewer a halftone print does.
    static let comicColours = 12
    static let halftoneColours = 6
    /// The ink of every line.
    static let ink: (UInt8, UInt8, UInt8) = (24, 22, 28)

    let width: Int
    let height: Int
    let halftone: Bool

    /// The size of the plan for a sticker `width` × `height` pixels: at most ``drawingSide``
    /// across its shorter side and ``drawingPixels`` in all, never larger than the sticker.
    static func planSize(width: Int, height: Int) -> (width: Int, height: Int) {
        // A long thin sticker is planned within the same number of pixels as a squarer one.
        let scale = min(
            1, Double(drawingSide) / Double(max(1, min(width, height))),
            (Double(drawingPixels) / (Double(width) * Double(height))).squareRoot())
        return (max(3, Int((Double(width) * scale).rounded())), max(3, Int((Double(height) * scale).rounded())))
    }

    /// Draws the look over `pixels` (RGBA, 8 bits, `width` × `height`), their soft edge made firm.
    /// `blurredAlpha` is their alpha blurred by ``outlineWeight(width:height:)``. `planning` is
    /// the sticker at its plan's size (see ``planSize(width:height:)``) made from its own file,
    /// when it is drawn at another size than the file's: planned from the pixels at hand, the
    /// editor's drawing (a few hundred pixels) and an export's (thousands) found other regions
    /// and lines, and the export came out lighter, with grey discs for eyes.
    func draw(
        _ pixels: inout [UInt8], blurredAlpha: [UInt8], planning: (pixels: [UInt8], width: Int, height: Int)? = nil
    ) {
        let shorter = min(width, height)
        let plan: Plan
        if let planning {
            plan = Plan(
                pixels: planning.pixels, width: planning.width, height: planning.height, scale: 1,
                drawnWidth: width, drawnHeight: height)
        } else {
            let size = Self.planSize(width: width, height: height)
            plan = Plan(pixels: pixels, width: width, height: height, scale: Double(size.width) / Double(width))
        }
        let smoothed = plan.smoothed()
        let palette = ComicLook.palette(
            smoothed.colours, alpha: plan.alpha, count: halftone ? Self.halftoneColours : Self.comicColours)
        let printed = palette.map(Self.lifted)
        let flats = plan.flats(smoothed.colours, palette: palette)
        let lines = plan.lines(smoothed.light)
        let outline = silhouette(pixels)
        let rim = subjectRim(outline, blurredAlpha: blurredAlpha)
        let sampler = Sampler(plan: plan)
        // Halftone cells about 1/70 of the sticker across, never under 4 pixels.
        let cell = max(4, Double(shorter) / 70)
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                // A drawn subject has a firm silhouette: the soft edge's ramp is steepened about
                // half opacity, where the outline begins, and kept only within a pixel and a half
                // of the silhouette's edge. Further out a haze goes, and further in it is solid:
                // a wide soft area (a chin's fur over the old background) came out a translucent
                // shard with an ink line round part of it.
                let ramp = min(255, max(0, (Int(pixels[index * 4 + 3]) - 96) * 4))
                let alpha: Int
                if !outline.any {
                    alpha = ramp
                } else if outline.solid[index] {
                    alpha = outline.depths[index] > 2.25 ? 255 : max(128, ramp)
                } else {
                    alpha = outline.outside[index] <= 2.25 ? min(127, ramp) : 0
                }
                pixels[index * 4 + 3] = UInt8(alpha)
                guard alpha > 0 else {
                    (pixels[index * 4], pixels[index * 4 + 1], pixels[index * 4 + 2]) = (0, 0, 0)
                    continue
                }
                if rim[index] || sampler.read(lines, x: x, y: y) > 0 {
                    (pixels[index * 4], pixels[index * 4 + 1], pixels[index * 4 + 2]) = Self.ink
                    continue
                }
                // The flat colours meet along smooth curves: the plan's (slightly blurred) colours
                // are read between its pixels, and each full-size pixel takes, of the colours of
                // the four plan pixels around it, the nearest: no sliver of a third where two meet.
                let flat = sampler.readColour(flats.colours, x: x, y: y)
                var colour = printed[sampler.nearestLabel(flats.labels, to: flat, palette: palette, x: x, y: y)]
                if halftone {
                    let light = Double(sampler.read(smoothed.light, x: x, y: y))
                    // Light areas stay clean and the dots grow into the shadows.
                    let shade = min(1, max(0, (200 - light) / 170))
                    if Self.inDot(x: x, y: y, cell: cell, coverage: 0.75 * shade * shade.squareRoot()) {
                        colour = (colour.0 * 0.52, colour.1 * 0.52, colour.2 * 0.52)
                    } else {
                        colour = (
                            colour.0 + (255 - colour.0) * 0.18, colour.1 + (255 - colour.1) * 0.18,
                            colour.2 + (255 - colour.2) * 0.18
                        )
                    }
                }
                (pixels[index * 4], pixels[index * 4 + 1], pixels[index * 4 + 2]) =
                    (UInt8(colour.0.rounded()), UInt8(colour.1.rounded()), UInt8(colour.2.rounded()))
            }
        }
    }

    /// The outline's usual depth, about 1/120 of the sticker's shorter side and never under 2
    /// pixels; its alpha is blurred by as much to tell which way each edge faces.
    static func outlineWeight(width: Int, height: Int) -> Double { max(2, Double(min(width, height)) / 120) }

    /// Whether (x, y) lies in a dot of a screen turned 45°, the dot covering `coverage` of its cell.
    static func inDot(x: Int, y: Int, cell: Double, coverage: Double) -> Bool {
        guard coverage > 0.02 else { return false }
        let u = (Double(x) + Double(y)) * 0.7071 / cell, v = (Double(x) - Double(y)) * 0.7071 / cell
        let du = u - u.rounded(), dv = v - v.rounded()
        // A dot of radius r covers πr² of a unit cell; past half the dots merge.
        let radius = (coverage / Double.pi).squareRoot()
        return du * du + dv * dv <= radius * radius
    }

    /// The shape a drawing fills and inks: the sticker's at least half opaque pixels, less the
    /// specks lying apart from its main parts, with its pinholes filled; and the squared distances
    /// to it from outside (`outside`) and to what lies outside it from within (`depths`, the
    /// sticker's border counting as outside, so a subject the border cuts is outlined there too).
    struct Silhouette {
        var solid: [Bool]
        var depths: [Float]
        var outside: [Float]
        /// Whether any pixel is solid: a sticker faint all over (a veil, glass) has no silhouette,
        /// and is drawn as faint as it is.
        var any: Bool
    }

    /// The silhouette of `pixels` (RGBA). A speck is a part under a hundredth of the largest
    /// one's area and under four outline weights square; a pinhole, a clear part walled in by
    /// the subject, under a two-hundredth of the largest part and three weights square. Inked one
    /// by one they were the drawing's noise: a faint strand's pieces turned into ink blobs
    /// floating past a dog's coat, and the see-through dots the matte left in a cat's nose into
    /// blue holes ringed in ink. The limits are fractions of the sticker, so it is the same shape
    /// at any size it is drawn.
    func silhouette(_ pixels: [UInt8]) -> Silhouette {
        var solid = (0..<(width * height)).map { pixels[$0 * 4 + 3] >= 128 }
        let weight = Self.outlineWeight(width: width, height: height)
        let parts = solid.withUnsafeBufferPointer { solid in PixelParts(width: width, height: height) { solid[$0] } }
        if let largest = parts.areas.max() {
            let speck = min(Double(largest) / 100, 16 * weight * weight)
            for (index, run) in parts.runs.enumerated() where Double(parts.areas[parts.partOfRun[index]]) < speck {
                for x in run.start..<run.end { solid[run.row * width + x] = false }
            }
            let holes = solid.withUnsafeBufferPointer { solid in
                PixelParts(width: width, height: height) { !solid[$0] }
            }
            var open = [Bool](repeating: false, count: holes.count)
            for (index, run) in holes.runs.enumerated()
            where run.row == 0 || run.row == height - 1 || run.start == 0 || run.end == width {
                open[holes.partOfRun[index]] = true
            }
            let pinhole = min(Double(largest) / 200, 9 * weight * weight)
            for (index, run) in holes.runs.enumerated() {
                let hole = holes.partOfRun[index]
                guard !open[hole], Double(holes.areas[hole]) < pinhole else { continue }
                for x in run.start..<run.end { solid[run.row * width + x] = true }
            }
        }
        let depths = solid.withUnsafeBufferPointer { solid in
            DistanceField.squaredDistances(width: width, height: height, pastEdge: true) { !solid[$0] }
        }
        let outside = solid.withUnsafeBufferPointer { solid in
            DistanceField.squaredDistances(width: width, height: height, pastEdge: false) { solid[$0] }
        }
        return Silhouette(solid: solid, depths: depths, outside: outside, any: solid.contains(true))
    }

    /// The subject's own outline: a line inside the edge of its silhouette, heavier where the
    /// edge faces down and right (away from a light above left) as an inker's brush lays it. Its
    /// depth is measured exactly (the distance to the nearest pixel outside the silhouette);
    /// `blurredAlpha` gives the edge's facing.
    func subjectRim(_ silhouette: Silhouette, blurredAlpha blurred: [UInt8]) -> [Bool] {
        let weight = Self.outlineWeight(width: width, height: height)
        let (depths, outside) = (silhouette.depths, silhouette.outside)
        var rim = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                // Outside the silhouette, next to it, lies the outline's soft outer edge.
                guard silhouette.solid[index] else {
                    rim[index] = outside[index] <= 4
                    continue
                }
                let gx = Double(blurred[y * width + min(width - 1, x + 1)]) - Double(blurred[y * width + max(0, x - 1)])
                let gy =
                    Double(blurred[min(height - 1, y + 1) * width + x]) - Double(blurred[max(0, y - 1) * width + x])
                let length = (gx * gx + gy * gy).squareRoot()
                let facing = length > 1e-9 ? -(gx * 0.6 + gy * 0.8) / length : 0
                let reach = weight * (0.75 + 0.85 * max(0, facing))
                rim[index] = Double(depths[index]) < reach * reach
            }
        }
        return rim
    }

    /// `count` colours for the opaque pixels of `colours` (RGB floats, 0–255): k-means on an even
    /// sample, in Oklab (see ``perceived(_:)``), where equal steps look about equally different.
    /// It starts from the sample's most different colours (each the farthest from those already
    /// taken), so a small part unlike the rest (a cat's eyes and pupils, a ribbon on a dark coat)
    /// gets a colour of its own rather than being averaged into the large areas' browns. The same
    /// sticker always gets the same palette.
    static func palette(_ colours: [Float], alpha: [Float], count: Int) -> [[Double]] {
        // An even sample of the opaque pixels themselves: striding over all pixels in row order
        // could keep to a few columns when the stride shares factors with the width.
        let opaque = alpha.indices.filter { alpha[$0] >= 0.5 }
        let step = max(1, opaque.count / 6_000)
        let sample = stride(from: 0, to: opaque.count, by: step).map { position in
            let index = opaque[position]
            return [Double(colours[index * 3]), Double(colours[index * 3 + 1]), Double(colours[index * 3 + 2])]
        }
        guard !sample.isEmpty else { return [[128, 128, 128]] }
        let lab = sample.map { perceived(($0[0], $0[1], $0[2])) }
        // The first centre is the colour nearest the mean; each next one the sample's colour
        // farthest from every centre so far.
        let mean = lab.reduce((0.0, 0.0, 0.0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
        let n = Double(lab.count)
        var centres = [lab[nearestIndex((mean.0 / n, mean.1 / n, mean.2 / n), in: lab)]]
        var nearest = lab.map { distance($0, centres[0]) }
        while centres.count < min(count, lab.count) {
            guard let farthest = nearest.indices.max(by: { nearest[$0] < nearest[$1] }), nearest[farthest] > 0 else {
                break
            }
            centres.append(lab[farthest])
            for index in lab.indices { nearest[index] = min(nearest[index], distance(lab[index], lab[farthest])) }
        }
        var members = [Int](repeating: 0, count: lab.count)
        for _ in 0..<10 {
            for index in lab.indices { members[index] = nearestIndex(lab[index], in: centres) }
            var sums = [(Double, Double, Double, Double)](repeating: (0, 0, 0, 0), count: centres.count)
            for (index, colour) in lab.enumerated() {
                let member = members[index]
                sums[member] = (
                    sums[member].0 + colour.0, sums[member].1 + colour.1, sums[member].2 + colour.2, sums[member].3 + 1
                )
            }
            for index in centres.indices where sums[index].3 > 0 {
                centres[index] = (
                    sums[index].0 / sums[index].3, sums[index].1 / sums[index].3, sums[index].2 / sums[index].3
                )
            }
        }
        // Each colour is its members' mean in the sticker's own RGB.
        var sums = [[Double]](repeating: [0, 0, 0, 0], count: centres.count)
        for (index, colour) in sample.enumerated() {
            for channel in 0..<3 { sums[members[index]][channel] += colour[channel] }
            sums[members[index]][3] += 1
        }
        return sums.filter { $0[3] > 0 }.map { sum in (0..<3).map { sum[$0] / sum[3] } }
    }

    /// An sRGB colour (0–255 a channel) in Oklab, its two colour axes (green–red, blue–yellow)
    /// stretched threefold. A comic's flats shade the large areas in steps of light anyway; what
    /// it must not lose is a small part's hue. At Oklab's own weights a cat's olive eyes joined its
    /// fur's browns and a portrait's red ribbons the skin's orange; at twice the weights the
    /// ribbons were red but the eyes still brown; at three times each kept a colour of its own.
    static func perceived(_ colour: (Double, Double, Double)) -> (Double, Double, Double) {
        func linear(_ value: Double) -> Double {
            let unit = min(1, max(0, value / 255))
            return unit <= 0.04045 ? unit / 12.92 : pow((unit + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(colour.0), linear(colour.1), linear(colour.2))
        let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        let hue = 3.0
        return (
            0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
            hue * (1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s),
            hue * (0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)
        )
    }

    static func distance(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        let (x, y, z) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        return x * x + y * y + z * z
    }

    /// The entry of `palette` nearest `colour`, both in the same space.
    static func nearestIndex(_ colour: (Double, Double, Double), in palette: [(Double, Double, Double)]) -> Int {
        var (best, least) = (0, Double.infinity)
        for (index, entry) in palette.enumerated() {
            let d = distance(colour, entry)
            if d < least { (best, least) = (index, d) }
        }
        return best
    }

    /// Printed a little brighter and more saturated than life, as comics are; a near grey stays
    /// grey (its saturation raised from none at 10 levels between its channels to the full third
    /// at 40): raised alike, a raccoon's grey fur, a little violet in the photo, came out lavender.
    static func lifted(_ colour: [Double]) -> (Double, Double, Double) {
        let grey = 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]
        let chroma = (colour.max() ?? 0) - (colour.min() ?? 0)
        let colourful = min(1, max(0, (chroma - 10) / 30))
        let saturation = 1 + 0.35 * colourful * colourful * (3 - 2 * colourful)
        let channels = colour.map { min(255, max(0, (grey + saturation * ($0 - grey)) * 1.08)) }
        return (channels[0], channels[1], channels[2])
    }
}

/// The drawing's plan: the sticker on a copy of at most ``ComicLook/drawingSide`` pixels across,
/// where its colours are smoothed into regions and its lines found.
private struct Plan {
    let width: Int
    let height: Int
    let fullWidth: Int
    let fullHeight: Int
    /// Premultiplied colours averaged over each plan pixel's footprint, then divided out.
    var colours: [Float]
    var alpha: [Float]

    /// The plan of `pixels` (`fullWidth` × `fullHeight`) reduced by `scale`, for a drawing of
    /// `drawnWidth` × `drawnHeight` (by default the pixels' own size).
    init(
        pixels: [UInt8], width fullWidth: Int, height fullHeight: Int, scale: Double, drawnWidth: Int? = nil,
        drawnHeight: Int? = nil
    ) {
        self.fullWidth = drawnWidth ?? fullWidth
        self.fullHeight = drawnHeight ?? fullHeight
        width = max(3, Int((Double(fullWidth) * scale).rounded()))
        height = max(3, Int((Double(fullHeight) * scale).rounded()))
        var sums = [Float](repeating: 0, count: width * height * 4)
        var counts = [Float](repeating: 0, count: width * height)
        for y in 0..<fullHeight {
            let row = min(height - 1, y * height / fullHeight)
            for x in 0..<fullWidth {
                let target = row * width + min(width - 1, x * width / fullWidth)
                let source = (y * fullWidth + x) * 4
                let a = Float(pixels[source + 3]) / 255
                for channel in 0..<3 { sums[target * 4 + channel] += Float(pixels[source + channel]) * a }
                sums[target * 4 + 3] += a
                counts[target] += 1
            }
        }
        colours = [Float](repeating: 0, count: width * height * 3)
        alpha = [Float](repeating: 0, count: width * height)
        for index in 0..<(width * height) where counts[index] > 0 {
            alpha[index] = sums[index * 4 + 3] / counts[index]
            guard sums[index * 4 + 3] > 0 else { continue }
            for channel in 0..<3 { colours[index * 3 + channel] = sums[index * 4 + channel] / sums[index * 4 + 3] }
        }
    }

    /// Colours smoothed within regions (three rounds of a bilateral filter over the subject's
    /// pixels: grain and fur flatten, edges between regions stay), and their light.
    func smoothed() -> (colours: [Float], light: [Float]) {
        var current = colours
        let radius = 2
        let spatial = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * 1.5 * 1.5))) }
        let colourScale: Float = 1 / (2 * 20 * 20)
        for _ in 0..<3 {
            var next = current
            for y in 0..<height {
                for x in 0..<width {
                    let index = y * width + x
                    guard alpha[index] >= 0.5 else { continue }
                    var sum: (Float, Float, Float) = (0, 0, 0)
                    var total: Float = 0
                    for dy in -radius...radius {
                        let ny = y + dy
                        guard ny >= 0, ny < height else { continue }
                        for dx in -radius...radius {
                            let nx = x + dx
                            guard nx >= 0, nx < width else { continue }
                            let other = ny * width + nx
                            guard alpha[other] >= 0.5 else { continue }
                            let dr = current[other * 3] - current[index * 3]
                            let dg = current[other * 3 + 1] - current[index * 3 + 1]
                            let db = current[other * 3 + 2] - current[index * 3 + 2]
                            let weight =
                                spatial[dx + radius] * spatial[dy + radius]
                                * exp(-(dr * dr + dg * dg + db * db) * colourScale)
                            sum = (
                                sum.0 + current[other * 3] * weight, sum.1 + current[other * 3 + 1] * weight,
                                sum.2 + current[other * 3 + 2] * weight
                            )
                            total += weight
                        }
                    }
                    next[index * 3] = sum.0 / total
                    next[index * 3 + 1] = sum.1 / total
                    next[index * 3 + 2] = sum.2 / total
                }
            }
            current = next
        }
        fillClearColours(&current)
        var light = [Float](repeating: 0, count: width * height)
        for index in light.indices {
            light[index] = 0.299 * current[index * 3] + 0.587 * current[index * 3 + 1] + 0.114 * current[index * 3 + 2]
        }
        return (current, light)
    }

    /// Gives the clear plan pixels (under half opaque) near the subject the colour of the opaque
    /// ones beside them, ring by ring, eight rings out: a pinhole the drawing fills (see
    /// ``ComicLook/silhouette(_:)``) was read as black, and drawn as a dark speck among pale fur.
    private func fillClearColours(_ colours: inout [Float]) {
        var known = alpha.map { $0 >= 0.5 }
        for _ in 0..<8 {
            var next = known
            var changed = false
            for y in 0..<height {
                for x in 0..<width where !known[y * width + x] {
                    var sum: (Float, Float, Float) = (0, 0, 0)
                    var count: Float = 0
                    for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let (nx, ny) = (x + dx, y + dy)
                        guard nx >= 0, ny >= 0, nx < width, ny < height, known[ny * width + nx] else { continue }
                        let other = (ny * width + nx) * 3
                        sum = (sum.0 + colours[other], sum.1 + colours[other + 1], sum.2 + colours[other + 2])
                        count += 1
                    }
                    guard count > 0 else { continue }
                    let index = y * width + x
                    (colours[index * 3], colours[index * 3 + 1], colours[index * 3 + 2]) = (
                        sum.0 / count, sum.1 / count, sum.2 / count
                    )
                    next[index] = true
                    changed = true
                }
            }
            known = next
            if !changed { break }
        }
    }

    /// Each plan pixel's palette colour (`labels`), after two rounds of a 3 × 3 majority vote
    /// that takes away specks of one colour inside another, and those colours slightly blurred.
    func flats(_ smoothed: [Float], palette: [[Double]]) -> (labels: [Int], colours: [Float]) {
        var labels = [Int](repeating: 0, count: width * height)
        // Matched in the space the palette was found in.
        let entries = palette.map { ComicLook.perceived(($0[0], $0[1], $0[2])) }
        for index in labels.indices {
            let colour = (Double(smoothed[index * 3]), Double(smoothed[index * 3 + 1]), Double(smoothed[index * 3 + 2]))
            labels[index] = ComicLook.nearestIndex(ComicLook.perceived(colour), in: entries)
        }
        for _ in 0..<2 {
            var next = labels
            var votes = [Int](repeating: 0, count: palette.count)
            for y in 0..<height {
                for x in 0..<width where alpha[y * width + x] >= 0.5 {
                    for index in votes.indices { votes[index] = 0 }
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let (nx, ny) = (x + dx, y + dy)
                            guard nx >= 0, ny >= 0, nx < width, ny < height, alpha[ny * width + nx] >= 0.5 else {
                                continue
                            }
                            votes[labels[ny * width + nx]] += 1
                        }
                    }
                    var winner = labels[y * width + x]
                    for index in votes.indices where votes[index] > votes[winner] { winner = index }
                    next[y * width + x] = winner
                }
            }
            labels = next
        }
        // Blurred a little, so that read between pixels at full size the border between two
        // colours is a smooth curve rather than the plan's steps.
        var flats = [Float](repeating: 0, count: width * height * 3)
        let weights = alpha.map { $0 >= 0.5 ? Float(1) : 0 }
        for channel in 0..<3 {
            let plane = labels.map { Float(palette[$0][channel]) }
            let blurred = PlaneBlur.gaussian(plane, weights: weights, width: width, height: height, sigma: 0.8)
            for index in labels.indices {
                flats[index * 3 + channel] = weights[index] > 0 ? blurred[index] : plane[index]
            }
        }
        return (labels, flats)
    }

    /// The lines inside the subject, as a field that is positive on ink: the dark side of each
    /// edge of the smoothed light (a difference of Gaussians), wider where the edge is stronger,
    /// without the short marks that grain and fur leave.
    func lines(_ light: [Float]) -> [Float] {
        let weights = alpha.map { $0 >= 0.5 ? Float(1) : 0 }
        let narrow = PlaneBlur.gaussian(light, weights: weights, width: width, height: height, sigma: 1.0)
        let wide = PlaneBlur.gaussian(light, weights: weights, width: width, height: height, sigma: 1.7)
        // A step of 30 levels in the light leaves a line; a gentle shade does not.
        let threshold: Float = 3.5
        var field = [Float](repeating: -1, count: width * height)
        for index in field.indices where weights[index] > 0 {
            field[index] = (wide[index] - narrow[index]) - threshold
        }
        removeShortMarks(&field, shortest: max(8, min(width, height) / 30))
        return field
    }

    /// Clears every connected mark of ink smaller than `shortest` pixels.
    private func removeShortMarks(_ field: inout [Float], shortest: Int) {
        var seen = [Bool](repeating: false, count: field.count)
        var stack: [Int] = []
        var mark: [Int] = []
        for start in field.indices where field[start] > 0 && !seen[start] {
            mark.removeAll(keepingCapacity: true)
            stack.append(start)
            seen[start] = true
            while let index = stack.popLast() {
                mark.append(index)
                let (x, y) = (index % width, index / width)
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, 1), (-1, 1), (1, -1)] {
                    let (nx, ny) = (x + dx, y + dy)
                    guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                    let other = ny * width + nx
                    if field[other] > 0 && !seen[other] {
                        seen[other] = true
                        stack.append(other)
                    }
                }
            }
            if mark.count < shortest { for index in mark { field[index] = -1 } }
        }
    }
}

/// Reads a plan's planes between their pixels for full-size pixels, from tables of where each
/// full-size column and row falls.
private struct Sampler {
    let planWidth: Int
    let columns: [(Int, Int, Float)]
    let rows: [(Int, Int, Float)]

    init(plan: Plan) {
        planWidth = plan.width
        func table(full: Int, reduced: Int) -> [(Int, Int, Float)] {
            (0..<full).map { position in
                let u = max(0, (Float(position) + 0.5) * Float(reduced) / Float(full) - 0.5)
                let low = min(Int(u), reduced - 1)
                return (low, min(low + 1, reduced - 1), u - Float(low))
            }
        }
        columns = table(full: plan.fullWidth, reduced: plan.width)
        rows = table(full: plan.fullHeight, reduced: plan.height)
    }

    func read(_ plane: [Float], x: Int, y: Int) -> Float {
        let (x0, x1, fx) = columns[x], (y0, y1, fy) = rows[y]
        let top = plane[y0 * planWidth + x0] * (1 - fx) + plane[y0 * planWidth + x1] * fx
        let bottom = plane[y1 * planWidth + x0] * (1 - fx) + plane[y1 * planWidth + x1] * fx
        return top * (1 - fy) + bottom * fy
    }

    /// Of the labels of the four plan pixels around full-size pixel (x, y), the one whose
    /// palette colour is nearest `colour`.
    func nearestLabel(
        _ labels: [Int], to colour: (Double, Double, Double), palette: [[Double]], x: Int, y: Int
    )
        -> Int
    {
        let (x0, x1, _) = columns[x], (y0, y1, _) = rows[y]
        var (best, distance) = (labels[y0 * planWidth + x0], Double.infinity)
        for label in [
            labels[y0 * planWidth + x0], labels[y0 * planWidth + x1], labels[y1 * planWidth + x0],
            labels[y1 * planWidth + x1],
        ] {
            let entry = palette[label]
            let (r, g, b) = (entry[0] - colour.0, entry[1] - colour.1, entry[2] - colour.2)
            let d = r * r + g * g + b * b
            if d < distance { (best, distance) = (label, d) }
        }
        return best
    }

    func readColour(_ plane: [Float], x: Int, y: Int) -> (Double, Double, Double) {
        let (x0, x1, fx) = columns[x], (y0, y1, fy) = rows[y]
        let corners = [
            (y0 * planWidth + x0, (1 - fx) * (1 - fy)), (y0 * planWidth + x1, fx * (1 - fy)),
            (y1 * planWidth + x0, (1 - fx) * fy), (y1 * planWidth + x1, fx * fy),
        ]
        var colour: (Float, Float, Float) = (0, 0, 0)
        for (index, weight) in corners {
            colour.0 += plane[index * 3] * weight
            colour.1 += plane[index * 3 + 1] * weight
            colour.2 += plane[index * 3 + 2] * weight
        }
        return (Double(colour.0), Double(colour.1), Double(colour.2))
    }
}

/// Separable Gaussian blurs of a float plane.
enum PlaneBlur {
    /// `values` blurred with `sigma`; with `weights`, a normalised blur in which only weighted
    /// pixels count (so the clear room around a subject does not darken its edge).
    static func gaussian(_ values: [Float], weights: [Float]?, width: Int, height: Int, sigma: Double) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        let kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        func pass(_ plane: [Float]) -> [Float] {
            var across = [Float](repeating: 0, count: plane.count)
            for y in 0..<height {
                for x in 0..<width {
                    var sum: Float = 0
                    for offset in -radius...radius {
                        let nx = min(width - 1, max(0, x + offset))
                        sum += plane[y * width + nx] * kernel[offset + radius]
                    }
                    across[y * width + x] = sum
                }
            }
            var down = [Float](repeating: 0, count: plane.count)
            for y in 0..<height {
                for x in 0..<width {
                    var sum: Float = 0
                    for offset in -radius...radius {
                        let ny = min(height - 1, max(0, y + offset))
                        sum += across[ny * width + x] * kernel[offset + radius]
                    }
                    down[y * width + x] = sum
                }
            }
            let total = kernel.reduce(0, +) * kernel.reduce(0, +)
            return down.map { $0 / total }
        }
        guard let weights else { return pass(values) }
        let weighted = pass(zip(values, weights).map { $0 * $1 })
        let spread = pass(weights)
        return zip(weighted, spread).map { $1 > 1e-4 ? $0 / $1 : 0 }
    }
}
