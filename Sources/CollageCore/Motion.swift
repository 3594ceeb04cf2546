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

/// When each item of a collage arrives, and how it looks at any moment: photos first (back to
/// front), then stickers, then texts, one after another over the first part of the animation;
/// then everything holds as the collage is until the loop begins again.
public struct MotionTimeline: Sendable {
    /// The style photos arrive in.
    public let style: MotionStyle
    /// The animation's length in seconds.
    public let duration: Double
    /// The canvas the items lie on.
    public let canvas: Size
    /// Each item's arrival: when it begins, by item id.
    public let arrivals: [String: Double]
    /// When the last item has settled: from here on every frame is the collage itself.
    public let settled: Double

    /// How long a photo's or text's arrival takes, in seconds.
    public static let arrivalLength = 0.6
    /// How long a sticker's bounce takes; its sparks fly for ``sparkLength`` from its start.
    public static let bounceLength = 0.55
    /// How long a sticker's sparks fly.
    public static let sparkLength = 1.1
    /// How many sparks a sticker's arrival throws (the editor's burst).
    public static let sparkCount = 28

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
        // The arrivals take at most half the animation (less for few items), so the finished
        // collage holds for the rest.
        let window = min(duration * 0.5, 0.35 * Double(order.count) + Self.arrivalLength)
        let step = order.count > 1 ? max(0, window - Self.arrivalLength) / Double(order.count - 1) : 0
        var arrivals: [String: Double] = [:]
        for (index, item) in order.enumerated() { arrivals[item.id] = 0.15 + Double(index) * step }
        self.arrivals = arrivals
        let lastEnd = order.map { item -> Double in
            let start = arrivals[item.id] ?? 0
            if case .sticker = item.content { return start + Self.sparkLength }
            return start + Self.arrivalLength
        }.max()
        settled = min(duration, lastEnd ?? 0)
    }

    /// How `item` looks at `time` seconds (before its arrival it is hidden; after, at rest).
    public func state(of item: CollageItem, at time: Double) -> MotionState {
        guard let start = arrivals[item.id] else { return .atRest }
        let length: Double
        if case .sticker = item.content { length = Self.bounceLength } else { length = Self.arrivalLength }
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
        guard elapsed > 0, elapsed < Self.sparkLength else { return [] }
        var seed = item.id.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let unit = min(canvas.width, canvas.height)
        let frame = item.frame
        return (0..<Self.sparkCount).compactMap { _ in
            let (x, y) = (frame.x + random() * frame.width, frame.y + random() * frame.height)
            let (dx, dy) = ((random() - 0.5) * 0.1 * unit, -(0.025 + random() * 0.075) * unit)
            let delay = random() * 0.3
            let flight = (elapsed - delay) / (Self.sparkLength - 0.3)
            guard flight > 0, flight < 1 else { return nil }
            let eased = Self.easeOutCubic(flight)
            return MotionSpark(
                x: x + dx * eased, y: y + dy * eased, radius: 0.004 * unit * (1 - 0.8 * eased), opacity: 1 - flight)
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
