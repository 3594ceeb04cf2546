import Foundation

/// A layout made for the photos at hand: every photo keeps its shape (or is cropped by at most
/// ``Options/maximumCrop`` so the canvas fills exactly), the gaps between photos are exactly the
/// spacing and the margins exactly the padding.
///
/// The method is Blocked Recursive Image Composition (Atkins, ACM Multimedia 2008): a layout is
/// a binary tree whose leaves are the photos, in reading order, and whose inner nodes put their
/// two halves side by side or one above the other. For a tree, every box's width is a linear
/// function of its height (`width = α·height + β`, β carrying the spacing), so the whole tree's
/// shape, and every frame in it, follow exactly from the photos' aspect ratios. The search
/// looks, from a seed, for the tree that fills the canvas with the least cropping and the most
/// even photo sizes (or with one photo clearly the largest, the hero).
public enum AutoLayout {
    /// What the search is asked for.
    public struct Options: Hashable, Sendable {
        /// The same seed (with the same photos and canvas) gives the same layout; another seed
        /// another good one.
        public var seed: UInt64
        /// The index of the photo that should be clearly the largest, if any.
        public var hero: Int?
        /// The largest share of a photo's area that may be cropped so the canvas fills exactly
        /// (0 keeps every photo whole and leaves any space over as background).
        public var maximumCrop: Double

        /// Whether the photos read in the order given, from the top left; `false` lets the search
        /// place them anywhere (a hero in the middle of the list can then take the top row).
        public var keepsOrder: Bool

        /// The crop allowed when none is asked for: a tenth of a photo at most.
        public static let defaultMaximumCrop = 0.1
        /// The most photos one auto layout arranges.
        public static let maximumPhotos = 40

        /// Options; the defaults keep the photos' order with no hero and a crop of 10 % at most.
        public init(
            seed: UInt64 = 0, hero: Int? = nil, maximumCrop: Double = Options.defaultMaximumCrop,
            keepsOrder: Bool = true
        ) {
            self.seed = seed
            self.hero = hero
            self.maximumCrop = maximumCrop
            self.keepsOrder = keepsOrder
        }
    }

    /// A layout: a frame per photo, in the order given, and what it cost.
    public struct Result: Hashable, Sendable {
        /// Each photo's frame in canvas points.
        public let frames: [Rect]
        /// Each photo's share of area lost to cropping (0 when its frame has its shape).
        public let cropLoss: [Double]
        /// The share of the inner canvas (inside the padding) that no photo or gap covers.
        public let emptyShare: Double
    }

    /// Why no layout could be made.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// No photos, or more than ``Options/maximumPhotos``.
        case photoCount(Int)
        /// An aspect ratio that is not a positive finite number.
        case invalidAspectRatio(index: Int)
        /// A hero index outside the photos.
        case invalidHero(Int, count: Int)
        /// A maximum crop outside 0…0.5.
        case invalidCrop(Double)
        /// The canvas less its padding leaves no room for the photos and their gaps.
        case noRoom
        /// Every layout found leaves some photo smaller than ``EditRules/minimumItemSide`` on a side.
        case framesTooSmall(count: Int)

        /// A sentence naming the problem.
        public var description: String {
            switch self {
            case .photoCount(let count):
                "an automatic layout arranges 1 to \(Options.maximumPhotos) photos, got \(count)"
            case .invalidAspectRatio(let index): "photo \(index + 1) has no usable size"
            case .invalidHero(let hero, let count): "the hero must be one of the photos, 1 to \(count), got \(hero + 1)"
            case .invalidCrop(let crop):
                "the largest crop is a share of a photo from 0 to 50 %, got \(JSONValue.format(crop * 100)) %"
            case .noRoom: "the canvas less its padding has no room for the photos and the spacing between them"
            case .framesTooSmall(let count):
                "\(count) photos of these shapes cannot each be at least "
                    + "\(JSONValue.format(EditRules.minimumItemSide)) points on a side on this canvas; "
                    + "use fewer photos, less spacing or padding, or another canvas shape"
            }
        }
    }

    /// Arranges photos of the given aspect ratios (width ÷ height) on `canvas`.
    /// - Parameter pixelCounts: each photo's pixels (width × height), when known: a photo with
    ///   less than half another's pixels is not given a larger frame than it where a layout as
    ///   good otherwise can avoid it (a 40 × 30 thumbnail took the largest frame, enlarged 24
    ///   times, beside photos of 4,000 px). Ignored unless one count per photo, each positive.
    /// - Throws: ``Failure`` for no photos or too many, a bad ratio, hero or crop, or no room.
    public static func arrange(
        aspectRatios: [Double], pixelCounts: [Double]? = nil, canvas: Size, spacing: Double, padding: Double,
        options: Options = Options()
    ) throws(Failure) -> Result {
        let count = aspectRatios.count
        guard (1...Options.maximumPhotos).contains(count) else { throw .photoCount(count) }
        if let bad = aspectRatios.firstIndex(where: { !$0.isFinite || $0 <= 0 || $0 > 1000 || $0 < 0.001 }) {
            throw .invalidAspectRatio(index: bad)
        }
        let pixels = pixelCounts.flatMap { counts in
            counts.count == count && counts.allSatisfy({ $0.isFinite && $0 > 0 }) ? counts : nil
        }
        if let hero = options.hero, !(0..<count).contains(hero) { throw .invalidHero(hero, count: count) }
        guard options.maximumCrop.isFinite, (0...0.5).contains(options.maximumCrop) else {
            throw .invalidCrop(options.maximumCrop)
        }
        guard Limits.canvasSide.contains(canvas.width), Limits.canvasSide.contains(canvas.height),
            spacing.isFinite, padding.isFinite
        else { throw .noRoom }
        let inner = Size(width: canvas.width - 2 * padding, height: canvas.height - 2 * padding)
        let gaps = Double(count - 1) * spacing
        guard inner.width > gaps, inner.height > gaps, spacing >= 0, padding >= 0 else { throw .noRoom }

        let problem = Problem(
            aspects: aspectRatios, pixels: pixels, inner: inner, spacing: spacing, padding: padding, options: options)
        // The search itself is the same for every seed; the seed picks among the good layouts it
        // found, best first, so each Shuffle is another good layout rather than a random one.
        var random = SplitMix64(seed: 0x5EED)
        var order = Array(0..<count)
        var found: [String: Problem.Scored] = [:]
        func remember(_ scored: Problem.Scored) {
            guard scored.score < Problem.unusable else { return }
            let key = problem.place(scored.tree, factor: scored.factor).frames
                .map { "\(Int(($0.x).rounded())),\(Int(($0.y).rounded())),\(Int($0.width.rounded()))" }.joined(
                    separator: ";")
            if let known = found[key], known.score <= scored.score { return }
            found[key] = scored
        }
        // Random starts, each improved by changing one split at a time while that helps: a few
        // hundred trees for a handful of photos, fewer (larger) for many.
        let starts = max(12, 360 / count)
        for _ in 0..<starts {
            if !options.keepsOrder { random.shuffle(&order) }
            var current = problem.evaluate(Tree.random(order[...], using: &random))
            var stale = 0
            while stale < 4 * count {
                let candidate = problem.evaluate(
                    current.tree.mutated(swappingPhotos: !options.keepsOrder, using: &random))
                if candidate.score < current.score {
                    current = candidate
                    stale = 0
                    // Good layouts met on the way are alternatives for the next seeds.
                    if candidate.score <= (found.values.map(\.score).min() ?? .infinity) + 0.3 { remember(candidate) }
                } else {
                    stale += 1
                }
            }
            remember(current)
        }
        // Ties are broken by the frames themselves, so the order is the same in every process.
        let ranked = found.sorted {
            $0.value.score < $1.value.score || ($0.value.score == $1.value.score && $0.key < $1.key)
        }
        .map(\.value)
        guard let best = ranked.first else { throw .framesTooSmall(count: count) }
        // Good: within a small margin of the best (about 3 % more crop, or 1.5 % more empty
        // canvas); where that leaves fewer than three, the next best up to a wider margin, so a
        // Shuffle shows something new whenever the photos allow it.
        var good = ranked.filter { $0.score <= best.score + 0.3 }
        if good.count < 3 { good = Array(ranked.filter { $0.score <= best.score + 1.5 }.prefix(3)) }
        let chosen = good[Int(options.seed % UInt64(good.count))]
        return problem.place(chosen)
    }
}

extension AutoLayout {
    /// An earlier layout made again for new photo shapes, spacing, padding or canvas, keeping its
    /// tree: every photo keeps its place among the others (what is beside or above what), and
    /// only the frames' sizes change. This is what a change of spacing or border, or two photos
    /// trading places, should do to a smart layout, where a new search would move every photo.
    ///
    /// - Parameters:
    ///   - frames: the layout as it stands, one frame per photo, in the order of `aspectRatios`.
    ///   - gap: the spacing `frames` were laid out with: only a straight line through gaps of
    ///     exactly this width is a cut of the layout's tree (two rows whose gaps merely do not
    ///     overlap are not columns).
    ///   - aspectRatios: each photo's width ÷ height now (after a swap, the photos' new shapes).
    /// - Returns: the new layout, or `nil` when `frames` are not a layout of side-by-side and
    ///   stacked boxes (moved by hand since), or the tree cannot hold the photos at the new
    ///   spacing: then only a new search can lay them out.
    public static func refit(
        frames: [Rect], gap: Double, aspectRatios: [Double], canvas: Size, spacing: Double, padding: Double,
        maximumCrop: Double = Options.defaultMaximumCrop
    ) -> Result? {
        let count = aspectRatios.count
        guard count == frames.count, (1...Options.maximumPhotos).contains(count),
            aspectRatios.allSatisfy({ $0.isFinite && $0 >= 0.001 && $0 <= 1000 }),
            frames.allSatisfy({ [$0.x, $0.y, $0.width, $0.height].allSatisfy(\.isFinite) }),
            maximumCrop.isFinite, (0...0.5).contains(maximumCrop), spacing.isFinite, padding.isFinite, gap.isFinite,
            spacing >= 0, padding >= 0, Limits.canvasSide.contains(canvas.width),
            Limits.canvasSide.contains(canvas.height)
        else { return nil }
        let inner = Size(width: canvas.width - 2 * padding, height: canvas.height - 2 * padding)
        let gaps = Double(count - 1) * spacing
        guard inner.width > gaps, inner.height > gaps,
            let tree = Tree.slicing(Array(0..<count), frames: frames, gap: gap)
        else { return nil }
        let problem = Problem(
            aspects: aspectRatios, inner: inner, spacing: spacing, padding: padding,
            options: Options(maximumCrop: maximumCrop))
        let scored = problem.evaluate(tree)
        guard scored.score < Problem.unusable else { return nil }
        return problem.place(scored)
    }
}

// MARK: - Trees

/// A slicing layout: photos at the leaves, in reading order; an inner node puts its halves side
/// by side (`across`) or one above the other.
private indirect enum Tree: Hashable {
    case photo(Int)
    case split(across: Bool, Tree, Tree)

    /// A random tree over `photos` in this order, split at a random place (nearer the middle
    /// more often, so sizes start even) with a random direction.
    static func random(_ photos: ArraySlice<Int>, using random: inout SplitMix64) -> Tree {
        guard photos.count > 1 else { return .photo(photos.first ?? 0) }
        let places = photos.count - 1
        let cut = photos.startIndex + 1 + (random.next(below: places) + random.next(below: places) + 1) / 2
        return .split(
            across: random.next(below: 2) == 0, Tree.random(photos[..<cut], using: &random),
            Tree.random(photos[cut...], using: &random))
    }

    /// The tree of a layout recovered from its frames: a straight cut through gaps of `gap`
    /// between boxes splits them in two (side by side, else one above the other), and each half is cut
    /// again. Which cut is taken does not matter: runs of side-by-side (or stacked) boxes give
    /// the same frames however they are grouped. `nil` when some set of boxes has no such cut.
    static func slicing(_ photos: [Int], frames: [Rect], gap: Double) -> Tree? {
        guard photos.count > 1 else { return photos.first.map { .photo($0) } }
        // Frames are kept to a thousandth of a point; a gap of 0 must still count as a cut.
        let tolerance = 0.01
        for across in [true, false] {
            let start: (Rect) -> Double = across ? { $0.x } : { $0.y }
            let end: (Rect) -> Double = across ? { $0.maxX } : { $0.maxY }
            let sorted = photos.sorted { (start(frames[$0]), $0) < (start(frames[$1]), $1) }
            var reach = -Double.infinity
            for cut in 1..<sorted.count {
                reach = max(reach, end(frames[sorted[cut - 1]]))
                guard abs(start(frames[sorted[cut]]) - reach - gap) <= tolerance else { continue }
                guard let first = slicing(Array(sorted[..<cut]), frames: frames, gap: gap),
                    let second = slicing(Array(sorted[cut...]), frames: frames, gap: gap)
                else { return nil }
                return .split(across: across, first, second)
            }
        }
        return nil
    }

    /// The photos at the leaves, in reading order.
    var photos: [Int] {
        switch self {
        case .photo(let index): [index]
        case .split(_, let first, let second): first.photos + second.photos
        }
    }

    /// The tree with photos `a` and `b` in each other's places.
    func swapping(_ a: Int, _ b: Int) -> Tree {
        switch self {
        case .photo(let index): .photo(index == a ? b : index == b ? a : index)
        case .split(let across, let first, let second):
            .split(across: across, first.swapping(a, b), second.swapping(a, b))
        }
    }

    var leaves: Int {
        switch self {
        case .photo: 1
        case .split(_, let first, let second): first.leaves + second.leaves
        }
    }

    /// One small change: a node's direction flipped, a subtree grown anew with its photos, or
    /// (when the order is free) two photos trading places.
    func mutated(swappingPhotos: Bool, using random: inout SplitMix64) -> Tree {
        if swappingPhotos, leaves > 1, random.next(below: 3) == 0 {
            return swapping(random.next(below: leaves), random.next(below: leaves))
        }
        let target = random.next(below: max(1, leaves - 1))
        var seen = 0
        return changing(target, seen: &seen, using: &random)
    }

    private func changing(_ target: Int, seen: inout Int, using random: inout SplitMix64) -> Tree {
        guard case .split(let across, let first, let second) = self else { return self }
        if seen == target {
            seen += 1
            if random.next(below: 3) > 0 { return .split(across: !across, first, second) }
            return Tree.random(photos[...], using: &random)
        }
        seen += 1
        let changedFirst = first.changing(target, seen: &seen, using: &random)
        let changedSecond = second.changing(target, seen: &seen, using: &random)
        return .split(across: across, changedFirst, changedSecond)
    }
}

// MARK: - Evaluation

/// One search: the photos, the room, and how a tree is scored and placed.
private struct Problem {
    let aspects: [Double]
    /// Each photo's pixels, when known (see ``AutoLayout/arrange(aspectRatios:pixelCounts:canvas:spacing:padding:options:)``).
    var pixels: [Double]? = nil
    let inner: Size
    let spacing: Double
    let padding: Double
    let options: AutoLayout.Options

    /// Scores from here up are layouts with a frame too small to edit: never chosen.
    static let unusable = 1_000_000.0

    /// A tree with what it needs: the aspect factor that fills the room, and its score (lower is better).
    struct Scored {
        let tree: Tree
        let factor: Double
        let score: Double
    }

    /// A box's width as a function of its height, `α·height + β`, with every photo's aspect
    /// ratio multiplied by `factor`.
    func line(_ tree: Tree, factor: Double) -> (alpha: Double, beta: Double) {
        switch tree {
        case .photo(let index): return (aspects[index] * factor, 0)
        case .split(let across, let first, let second):
            let a = line(first, factor: factor)
            let b = line(second, factor: factor)
            if across { return (a.alpha + b.alpha, a.beta + b.beta + spacing) }
            let alpha = 1 / (1 / a.alpha + 1 / b.alpha)
            return (alpha, alpha * (a.beta / a.alpha + b.beta / b.alpha - spacing))
        }
    }

    /// The factor on every photo's aspect ratio that makes the tree exactly as wide as the room
    /// when exactly as tall, kept within the crop allowed.
    func fillingFactor(_ tree: Tree) -> Double {
        let limit = 1 / (1 - options.maximumCrop)
        func excess(_ factor: Double) -> Double {
            let (alpha, beta) = line(tree, factor: factor)
            return alpha * inner.height + beta - inner.width
        }
        var low = log(1 / limit)
        var high = log(limit)
        if excess(exp(low)) >= 0 { return exp(low) }
        if excess(exp(high)) <= 0 { return exp(high) }
        // Wider photos make a wider tree: halve the interval until the fill is exact enough.
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if excess(exp(middle)) > 0 { high = middle } else { low = middle }
        }
        return exp((low + high) / 2)
    }

    func evaluate(_ tree: Tree) -> Scored {
        let factor = fillingFactor(tree)
        let frames = place(tree, factor: factor)
        let areas = frames.frames.map { $0.width * $0.height }
        guard let smallest = areas.min(), let largest = areas.max(), smallest > 0 else {
            return Scored(tree: tree, factor: factor, score: .infinity)
        }
        // A frame too small to edit makes the layout unusable, but by how much is scored, so the
        // search climbs towards usable layouts instead of wandering among equally bad ones (many
        // photos of extreme shapes have few usable trees).
        let shortfall = frames.frames.reduce(0) { total, frame in
            total + max(0, EditRules.minimumItemSide - min(frame.width, frame.height))
        }
        if shortfall > 0 { return Scored(tree: tree, factor: factor, score: Problem.unusable + shortfall) }
        let crop = 1 - min(factor, 1 / factor)
        // Empty room, cropping, and uneven sizes each cost; with a hero, it must be clearly
        // the largest and the others as even as possible.
        var score = 20 * frames.empty + 10 * crop
        if let hero = options.hero {
            let others = areas.enumerated().filter { $0.offset != hero }.map(\.element)
            let next = others.max() ?? 0
            let ratio = next > 0 ? areas[hero] / next : 4
            score += 8 * max(0, log(2) - log(ratio))
            if let low = others.min(), let high = others.max(), low > 0 { score += unevenness(high / low) }
        } else {
            score += unevenness(largest / smallest)
        }
        if let pixels { score += resolutionCost(areas, pixels: pixels) }
        return Scored(tree: tree, factor: factor, score: score)
    }

    /// What giving a photo a larger frame than one with at least twice its pixels costs: as
    /// much as the frames' areas differ (the log of their ratio), pair by pair, so among layouts
    /// otherwise alike the sharper photos get the larger frames. Photos of like resolution (a
    /// phone's, all of them) cost nothing here; the hero, asked for, is left out.
    func resolutionCost(_ areas: [Double], pixels: [Double]) -> Double {
        var cost = 0.0
        for small in areas.indices where small != options.hero {
            for large in areas.indices where large != small && large != options.hero {
                guard pixels[small] * 2 <= pixels[large], areas[small] > areas[large] else { continue }
                cost += log(areas[small] / areas[large])
            }
        }
        return cost
    }

    /// What uneven sizes cost: a little up to a ratio of 4 between the largest photo and the
    /// smallest, much more beyond, where the smallest photos become hard to see.
    func unevenness(_ ratio: Double) -> Double {
        0.1 * log(ratio) + 0.6 * max(0, log(ratio / 4))
    }

    /// Frames for a tree at `factor`, scaled into the room (centred where it does not fill it).
    func place(_ tree: Tree, factor: Double) -> (frames: [Rect], empty: Double) {
        let (alpha, beta) = line(tree, factor: factor)
        var width = alpha * inner.height + beta
        var height = inner.height
        if width > inner.width {
            width = inner.width
            height = (inner.width - beta) / alpha
        }
        var frames = [Rect](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: aspects.count)
        let box = Rect(
            x: padding + (inner.width - width) / 2, y: padding + (inner.height - height) / 2, width: width,
            height: height)
        lay(tree, in: box, factor: factor, into: &frames)
        let empty = max(0, 1 - (width * height) / (inner.width * inner.height))
        return (frames, empty)
    }

    private func lay(_ tree: Tree, in box: Rect, factor: Double, into frames: inout [Rect]) {
        switch tree {
        case .photo(let index): frames[index] = box
        case .split(let across, let first, let second):
            let a = line(first, factor: factor)
            if across {
                let firstWidth = a.alpha * box.height + a.beta
                lay(
                    first, in: Rect(x: box.x, y: box.y, width: firstWidth, height: box.height), factor: factor,
                    into: &frames)
                lay(
                    second,
                    in: Rect(
                        x: box.x + firstWidth + spacing, y: box.y, width: box.width - firstWidth - spacing,
                        height: box.height), factor: factor, into: &frames)
            } else {
                let firstHeight = (box.width - a.beta) / a.alpha
                lay(
                    first, in: Rect(x: box.x, y: box.y, width: box.width, height: firstHeight), factor: factor,
                    into: &frames)
                lay(
                    second,
                    in: Rect(
                        x: box.x, y: box.y + firstHeight + spacing, width: box.width,
                        height: box.height - firstHeight - spacing), factor: factor, into: &frames)
            }
        }
    }

    /// The result the caller sees: the frames, and what each photo lost.
    func place(_ scored: Scored) -> AutoLayout.Result {
        let (exact, empty) = place(scored.tree, factor: scored.factor)
        // Edges to a thousandth of a point, as template frames are: documents read cleanly, and
        // two edges a spacing apart stay exactly that apart.
        func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
        let frames = exact.map { frame in
            let left = rounded(frame.x)
            let top = rounded(frame.y)
            return Rect(x: left, y: top, width: rounded(frame.maxX) - left, height: rounded(frame.maxY) - top)
        }
        let loss = 1 - min(scored.factor, 1 / scored.factor)
        return AutoLayout.Result(
            frames: frames, cropLoss: [Double](repeating: loss < 1e-9 ? 0 : loss, count: frames.count),
            emptyShare: empty < 1e-9 ? 0 : empty)
    }
}

// MARK: - Seeded randomness

/// SplitMix64: small, fast and the same on every platform, so a seed means the same layout
/// everywhere (the standard library's generator is not seedable).
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// A generator that starts from `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

    /// Shuffles `array` in place (Fisher–Yates), the same way for the same seed everywhere.
    mutating func shuffle(_ array: inout [Int]) {
        for index in stride(from: array.count - 1, to: 0, by: -1) {
            array.swapAt(index, next(below: index + 1))
        }
    }
}
