import Foundation

/// How a collage assembles in an animated export: how its photos arrive. Stickers always bounce
/// in with a burst of sparks, as a lifted subject does in the editor, and texts fade in.
public enum MotionStyle: String, CaseIterable, Sendable {
    /// Photos pop in one after another, growing past their size and settling.
    case pop
    /// Photos slide in from the nearest edge of the canvas.
    case slide
    /// Photos fade in where they lie.
    case fade
}

/// One item's look at a moment of an animation, relative to how it lies at rest.
public struct MotionState: Equatable, Sendable {
    /// How opaque it is, 0…1.
    public var opacity: Double
    /// Its size as a multiple of its size at rest, about its centre.
    public var scale: Double
    /// How far it is moved, in canvas points.
    public var offsetX: Double
    /// See ``offsetX``.
    public var offsetY: Double

    /// The item as it lies in the collage.
    public static let atRest = MotionState(opacity: 1, scale: 1, offsetX: 0, offsetY: 0)
    /// Not yet arrived: nothing of it shows.
    public static let hidden = MotionState(opacity: 0, scale: 1, offsetX: 0, offsetY: 0)

    /// A state.
    public init(opacity: Double, scale: Double, offsetX: Double, offsetY: Double) {
        self.opacity = opacity
        self.scale = scale
        self.offsetX = offsetX
        self.offsetY = offsetY
    }
}

/// A spark of a sticker's arrival: a glowing dot drifting up and out, shrinking as it fades.
public struct MotionSpark: Equatable, Sendable {
    /// Its centre, in canvas points.
    public var x: Double
    /// See ``x``.
    public var y: Double
    /// Its radius, in canvas points.
    public var radius: Double
    /// How opaque it is, 0…1.
    public var opacity: Double
}

/// When each item of a collage arrives, and how it looks at any moment. The loop opens on the
/// finished collage (what a chat shows as the video's picture, and where the loop's end meets
/// its start), clears it, brings the photos back (back to front), then the stickers, then the
/// texts, one after another, and holds the finished collage until the loop begins again. A
/// longer animation arrives more slowly rather than only holding longer.
public struct MotionTimeline: Sendable {
    /// The style photos arrive in.
    public let style: MotionStyle
    /// The animation's length in seconds.
    public let duration: Double
    /// The canvas the items lie on.
    public let canvas: Size
    /// Each item's arrival: when it begins, by item id.
    public let arrivals: [String: Double]
    /// How long the loop opens on the finished collage, in seconds.
    public let opening: Double
    /// When the clearing ends and the first item begins to arrive.
    public let cleared: Double
    /// When the last item has settled: from here on every frame is the collage itself.
    public let settled: Double
    /// How long a photo's or text's arrival takes here, in seconds.
    public let arrival: Double
    /// How long a sticker's bounce takes here.
    public let bounce: Double
    /// How long a sticker's sparks fly here.
    public let sparkFlight: Double

    /// How long a photo's or text's arrival takes, in seconds.
    public static let arrivalLength = 0.6
    /// How long a sticker's bounce takes; its sparks fly for ``sparkLength`` from its start.
    public static let bounceLength = 0.55
    /// How long a sticker's sparks fly.
    public static let sparkLength = 1.1
    /// How many sparks a sticker's arrival throws.
    public static let sparkCount = 16
    /// How long the finished collage fades away before it assembles again.
    public static let clearingLength = 0.35

    /// The timeline of `collage` in `style`, `duration` seconds long (see ``Limits/motionDuration``).
    public init(collage: Collage, style: MotionStyle, duration: Double) {
        self.style = style
        self.duration = duration
        canvas = collage.canvas
        func rank(_ item: CollageItem) -> Int {
            switch item.content {
            case .photo: 0
            case .sticker: 1
            case .text: 2
            }
        }
        let order = collage.items.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }
            .map(\.element)
        // Past 6 s everything arrives more slowly (up to 1.8 times), so a longer animation is
        // not only a longer still.
        let pace = min(1.8, max(1, duration / 6))
        (arrival, bounce, sparkFlight) = (Self.arrivalLength * pace, Self.bounceLength * pace, Self.sparkLength * pace)
        opening = min(0.6, duration * 0.08)
        cleared = opening + Self.clearingLength + 0.1
        // The arrivals take at most half the animation, so the finished collage holds for the rest.
        let window = min(duration * 0.5, (0.35 * Double(order.count)) * pace + arrival)
        let step = order.count > 1 ? max(0, window - arrival) / Double(order.count - 1) : 0
        var arrivals: [String: Double] = [:]
        for (index, item) in order.enumerated() { arrivals[item.id] = cleared + Double(index) * step }
        self.arrivals = arrivals
        let (arrival, sparkFlight) = (self.arrival, self.sparkFlight)
        let lastEnd = order.map { item -> Double in
            let start = arrivals[item.id] ?? 0
            if case .sticker = item.content { return start + sparkFlight }
            return start + arrival
        }.max()
        settled = min(duration, lastEnd ?? 0)
    }

    /// Whether the frame at `time` is the finished collage itself (opening the loop, or holding).
    public func isSettled(at time: Double) -> Bool { time < opening || time >= settled }

    /// How `item` looks at `time` seconds (before its arrival it is hidden; after, at rest).
    public func state(of item: CollageItem, at time: Double) -> MotionState {
        guard let start = arrivals[item.id] else { return .atRest }
        if time < opening { return .atRest }
        if time < opening + Self.clearingLength {
            // Everything fades away together, settling back a little.
            let cleared = Self.easeInOut((time - opening) / Self.clearingLength)
            return MotionState(opacity: 1 - cleared, scale: 1 - 0.03 * cleared, offsetX: 0, offsetY: 0)
        }
        let length: Double
        if case .sticker = item.content { length = bounce } else { length = arrival }
        let progress = (time - start) / length
        if progress <= 0 { return .hidden }
        if progress >= 1 { return .atRest }
        switch item.content {
        case .sticker:
            // Grows past its size and settles, as the editor's lifted sticker does.
            return MotionState(
                opacity: min(1, progress / 0.2), scale: 0.3 + 0.7 * Self.easeOutBack(progress, overshoot: 2.2),
                offsetX: 0, offsetY: 0)
        case .text:
            let eased = Self.easeOutCubic(progress)
            return MotionState(opacity: eased, scale: 1, offsetX: 0, offsetY: (1 - eased) * 0.02 * canvas.height)
        case .photo:
            switch style {
            case .pop:
                return MotionState(
                    opacity: min(1, progress / 0.35), scale: 0.5 + 0.5 * Self.easeOutBack(progress, overshoot: 1.7),
                    offsetX: 0, offsetY: 0)
            case .slide:
                let (dx, dy) = slideDirection(of: item)
                let left = 1 - Self.easeOutCubic(progress)
                return MotionState(
                    opacity: min(1, progress / 0.3), scale: 1, offsetX: dx * left, offsetY: dy * left)
            case .fade:
                let eased = Self.easeInOut(progress)
                return MotionState(opacity: eased, scale: 0.96 + 0.04 * eased, offsetX: 0, offsetY: 0)
            }
        }
    }

    /// The sparks of a sticker's arrival at `time` (none for other items, before it or after
    /// they have faded). Their places come from the item's id, so every render is the same.
    public func sparks(of item: CollageItem, at time: Double) -> [MotionSpark] {
        guard case .sticker = item.content, let start = arrivals[item.id] else { return [] }
        let elapsed = time - start
        guard elapsed > 0, elapsed < sparkFlight else { return [] }
        var seed = item.id.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let unit = min(canvas.width, canvas.height)
        let frame = item.frame
        let (cx, cy) = (frame.x + frame.width / 2, frame.y + frame.height / 2)
        // Around the sticker's edge, flying outward and a little up: a burst, not dust on its face.
        return (0..<Self.sparkCount).compactMap { index in
            let angle = (Double(index) + random() * 0.8) / Double(Self.sparkCount) * 2 * .pi
            let (ux, uy) = (cos(angle), sin(angle))
            let (x, y) = (cx + ux * frame.width * 0.5, cy + uy * frame.height * 0.5)
            let reach = (0.05 + random() * 0.06) * unit
            let (dx, dy) = (ux * reach, uy * reach - 0.03 * unit)
            let delay = random() * 0.2 * sparkFlight
            let flight = (elapsed - delay) / (sparkFlight * 0.75)
            guard flight > 0, flight < 1 else { return nil }
            let eased = Self.easeOutCubic(flight)
            return MotionSpark(
                x: x + dx * eased, y: y + dy * eased, radius: (0.006 + 0.004 * random()) * unit * (1 - 0.7 * eased),
                opacity: 1 - flight * flight)
        }
    }

    /// From the canvas edge nearest the item's centre, a little past its own size.
    func slideDirection(of item: CollageItem) -> (Double, Double) {
        let (cx, cy) = (item.frame.x + item.frame.width / 2, item.frame.y + item.frame.height / 2)
        let distances = [cx, canvas.width - cx, cy, canvas.height - cy]
        let nearest = distances.indices.min { distances[$0] < distances[$1] } ?? 3
        let reach = 0.35 * max(canvas.width, canvas.height)
        switch nearest {
        case 0: return (-reach, 0)
        case 1: return (reach, 0)
        case 2: return (0, -reach)
        default: return (0, reach)
        }
    }

    static func easeOutCubic(_ t: Double) -> Double { 1 - pow(1 - t, 3) }
    static func easeInOut(_ t: Double) -> Double { t < 0.5 ? 4 * t * t * t : 1 - pow(-2 * t + 2, 3) / 2 }
    /// Past 1 and back: `overshoot` 1.7 goes about 10 % past.
    static func easeOutBack(_ t: Double, overshoot: Double) -> Double {
        let u = t - 1
        return 1 + (overshoot + 1) * u * u * u + overshoot * u * u
    }
}

/// How a live sticker moves: a short loop drawn from the sticker's own pixels (its outline and
/// effect included), as phones make live stickers.
public enum StickerMotion: String, CaseIterable, Sendable {
    /// Hops and lands, squashing a little as it touches down.
    case bounce
    /// Rocks from side to side about its foot.
    case wiggle
    /// Drifts up and down, swaying gently.
    case float
    /// Lies still while a glint sweeps across it.
    case shine
    /// Lifts off the page at a corner, as a sticker being peeled does, and settles back.
    case peel

    /// The sticker's pose at `phase` (0 up to 1) of the loop.
    public func pose(at phase: Double) -> StickerPose {
        let p = phase - phase.rounded(.down)
        switch self {
        case .bounce:
            // In the air for the first 70 %: a parabola; then a squash on landing.
            if p < 0.7 {
                let t = p / 0.7
                let height = 4 * t * (1 - t)
                return StickerPose(
                    scaleX: 1 - 0.03 * height, scaleY: 1 + 0.05 * height, rotation: 0, offsetY: -0.16 * height)
            }
            let squash = sin((p - 0.7) / 0.3 * .pi)
            return StickerPose(scaleX: 1 + 0.08 * squash, scaleY: 1 - 0.1 * squash, rotation: 0, offsetY: 0)
        case .wiggle:
            return StickerPose(rotation: 9 * sin(4 * .pi * p) * (0.6 + 0.4 * cos(2 * .pi * p)))
        case .float:
            return StickerPose(rotation: 3 * sin(2 * .pi * p + .pi / 2), offsetY: -0.05 * (1 - cos(2 * .pi * p)))
        case .shine:
            // The glint crosses in the first 60 % of the loop; then the sticker rests.
            return StickerPose(shine: p < 0.6 ? p / 0.6 : nil)
        case .peel:
            let lift = 0.5 - 0.5 * cos(2 * .pi * p)
            return StickerPose(
                scaleX: 1 + 0.05 * lift, scaleY: 1 + 0.05 * lift, rotation: -6 * lift, offsetY: -0.03 * lift,
                lift: lift)
        }
    }
}

/// A live sticker's pose at one moment, relative to how it lies still.
public struct StickerPose: Equatable, Sendable {
    /// Its width as a multiple of its width at rest.
    public var scaleX: Double
    /// Its height as a multiple of its height at rest.
    public var scaleY: Double
    /// Its turn, in degrees clockwise, about its foot (the middle of its bottom edge).
    public var rotation: Double
    /// How far it is lifted, as a fraction of its height (negative is up).
    public var offsetY: Double
    /// Where a glint crossing it lies, 0 (top left) to 1 (bottom right), or nil for none.
    public var shine: Double?
    /// How far it is lifted off the page (0 flat, 1 most): its shadow grows and softens.
    public var lift: Double

    /// A pose; by default the sticker at rest.
    public init(
        scaleX: Double = 1, scaleY: Double = 1, rotation: Double = 0, offsetY: Double = 0, shine: Double? = nil,
        lift: Double = 0
    ) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.rotation = rotation
        self.offsetY = offsetY
        self.shine = shine
        self.lift = lift
    }
}
