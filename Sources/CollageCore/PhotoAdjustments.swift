import Foundation

/// How a photo's light and colour are changed, each from −100 to 100 with 0 meaning "as shot"
/// (sharpness and grain from 0 to 100). The renderer works each in the space it belongs to:
/// exposure in linear light, contrast, highlights and shadows on lightness, warmth, tint,
/// saturation and vibrance in Lab, after the photo is cut and sized for its frame.
public struct Adjustments: Hashable, Sendable {
    /// Brighter or darker, up to two stops either way.
    public var exposure: Double = 0
    /// More or less difference between light and dark.
    public var contrast: Double = 0
    /// The light tones brighter (positive) or held back (negative).
    public var highlights: Double = 0
    /// The dark tones opened up (positive) or deepened (negative).
    public var shadows: Double = 0
    /// All colours stronger or weaker; −100 is black and white.
    public var saturation: Double = 0
    /// Muted colours stronger, strong ones left nearly alone.
    public var vibrance: Double = 0
    /// Towards amber (positive) or blue (negative).
    public var warmth: Double = 0
    /// Towards magenta (positive) or green (negative).
    public var tint: Double = 0
    /// Edges crisper, 0 to 100.
    public var sharpness: Double = 0
    /// The corners darker (positive) or lighter (negative).
    public var vignette: Double = 0
    /// Film grain, 0 to 100, the same size at every export size.
    public var grain: Double = 0

    /// A photo as shot.
    public init() {}

    /// The photo as shot: nothing changed.
    public static let asShot = Adjustments()

    /// Whether nothing is changed.
    public var isAsShot: Bool { self == .asShot }

    /// Stops between red and blue at warmth ±100, each way: a camera's white balance from
    /// daylight to a warm tungsten look.
    static let warmthStops = 0.6
    /// Stops of green at tint ±100.
    static let tintStops = 0.4

    /// Exposure, warmth and tint as factors on red, green and blue in linear light, as a
    /// camera's white balance and exposure are: warmth raises red and lowers blue, tint lowers
    /// green (towards magenta), and the pair keeps the luminance, so only exposure brightens.
    public var linearGains: [Double] {
        let warm = warmth / 100 * Self.warmthStops
        let green = -tint / 100 * Self.tintStops
        let gains = [pow(2, warm), pow(2, green), pow(2, -warm)]
        let luminance = LabColor.luminance(red: gains[0], green: gains[1], blue: gains[2])
        let exposure = pow(2, self.exposure / 50)
        return gains.map { $0 / luminance * exposure }
    }

    /// The warmth and tint that undo a colour cast of `gains` (red, green, blue, in linear
    /// light), clamped to their ranges.
    public static func balancing(gains: [Double]) -> (warmth: Double, tint: Double) {
        guard gains.count == 3, gains.allSatisfy({ $0 > 0 && $0.isFinite }) else { return (0, 0) }
        let warm = (log2(gains[0]) - log2(gains[2])) / 2
        let green = log2(gains[1]) - (log2(gains[0]) + log2(gains[2])) / 2
        return (
            max(-100, min(100, (-warm / warmthStops * 100).rounded())),
            max(-100, min(100, (green / tintStops * 100).rounded()))
        )
    }

    /// Every adjustment, by the name documents and the editor use, with what it accepts.
    public static let fields:
        [(name: String, keyPath: WritableKeyPath<Adjustments, Double> & Sendable, range: ClosedRange<Double>)] =
            [
                ("exposure", \.exposure, -100...100), ("contrast", \.contrast, -100...100),
                ("highlights", \.highlights, -100...100), ("shadows", \.shadows, -100...100),
                ("saturation", \.saturation, -100...100), ("vibrance", \.vibrance, -100...100),
                ("warmth", \.warmth, -100...100), ("tint", \.tint, -100...100), ("sharpness", \.sharpness, 0...100),
                ("vignette", \.vignette, -100...100), ("grain", \.grain, 0...100),
            ]

    /// Each adjustment times `factor` (a filter at less than full strength).
    public func scaled(by factor: Double) -> Adjustments {
        var scaled = self
        for field in Self.fields { scaled[keyPath: field.keyPath] *= factor }
        return scaled
    }

    /// Both sets together, each sum held in its range.
    public func adding(_ other: Adjustments) -> Adjustments {
        var sum = self
        for field in Self.fields {
            let total = self[keyPath: field.keyPath] + other[keyPath: field.keyPath]
            sum[keyPath: field.keyPath] = min(field.range.upperBound, max(field.range.lowerBound, total))
        }
        return sum
    }

    /// The first adjustment out of its range, as a sentence; `nil` when all are in range.
    public var problem: String? {
        for field in Self.fields {
            let value = self[keyPath: field.keyPath]
            guard value.isFinite, field.range.contains(value) else {
                return "\(field.name) must be a number \(Limits.describe(field.range)), got \(JSONValue.format(value))"
            }
        }
        return nil
    }
}

/// A curve for one colour channel: control points (input, output), each 0…1, joined by straight lines.
public struct ToneCurve: Hashable, Sendable {
    /// The points, by input; the curve holds the first and last outputs beyond them.
    public var points: [Point]

    /// A curve through `points`.
    public init(_ points: [(Double, Double)]) { self.points = points.map { Point(x: $0.0, y: $0.1) } }

    /// Output equals input.
    public static let identity = ToneCurve([(0, 0), (1, 1)])

    /// The output for `input`.
    public func value(at input: Double) -> Double {
        guard let first = points.first, let last = points.last else { return input }
        if input <= first.x { return first.y }
        if input >= last.x { return last.y }
        for (start, end) in zip(points, points.dropFirst()) where input <= end.x {
            let k = end.x > start.x ? (input - start.x) / (end.x - start.x) : 1
            return start.y + (end.y - start.y) * k
        }
        return last.y
    }
}

/// A named look, as photo apps have them: adjustments and a tone curve per channel, applied at
/// a strength. Filters are data: adding one is adding a row to ``catalog``.
public struct Filter: Hashable, Sendable {
    /// What documents, the API and `collage make --filter` call it.
    public let id: String
    /// What the editor shows.
    public let name: String
    /// The adjustments it makes at full strength.
    public let adjustments: Adjustments
    /// The curves applied last, per channel (red, green, blue).
    public let curves: [ToneCurve]

    /// A filter.
    public init(id: String, name: String, adjustments: Adjustments, curves: [ToneCurve] = []) {
        self.id = id
        self.name = name
        self.adjustments = adjustments
        self.curves = curves.isEmpty ? [.identity, .identity, .identity] : curves
    }

    /// The filter with `id`, if there is one.
    public static func named(_ id: String) -> Filter? { catalog.first { $0.id == id } }

    private static func adjusted(_ change: (inout Adjustments) -> Void) -> Adjustments {
        var adjustments = Adjustments()
        change(&adjustments)
        return adjustments
    }

    /// Every filter, in the order the editor shows them.
    public static let catalog: [Filter] = [
        Filter(
            id: "vivid", name: "Vivid",
            adjustments: adjusted {
                $0.contrast = 15; $0.saturation = 30; $0.vibrance = 25
            }),
        Filter(
            id: "warm", name: "Warm",
            adjustments: adjusted {
                $0.warmth = 35; $0.exposure = 4; $0.saturation = 6
            },
            curves: [ToneCurve([(0, 0.02), (0.5, 0.53), (1, 1)]), .identity, .identity]),
        Filter(
            id: "cool", name: "Cool",
            adjustments: adjusted {
                $0.warmth = -35; $0.tint = -5; $0.contrast = 5
            }),
        Filter(
            id: "fade", name: "Fade",
            adjustments: adjusted {
                $0.contrast = -20; $0.saturation = -20
            },
            curves: Array(repeating: ToneCurve([(0, 0.12), (1, 0.95)]), count: 3)),
        Filter(
            id: "film", name: "Film",
            adjustments: adjusted {
                $0.contrast = 10; $0.saturation = -10; $0.grain = 25
            },
            curves: [
                ToneCurve([(0, 0.05), (0.5, 0.52), (1, 0.97)]), ToneCurve([(0, 0.03), (1, 0.96)]),
                ToneCurve([(0, 0.1), (0.5, 0.48), (1, 0.9)]),
            ]),
        Filter(
            id: "matte", name: "Matte",
            adjustments: adjusted {
                $0.contrast = -15; $0.shadows = 20
            },
            curves: Array(repeating: ToneCurve([(0, 0.1), (0.25, 0.28), (1, 0.92)]), count: 3)),
        Filter(
            id: "mono", name: "Mono",
            adjustments: adjusted {
                $0.saturation = -100; $0.contrast = 8
            }),
        Filter(
            id: "noir", name: "Noir",
            adjustments: adjusted {
                $0.saturation = -100; $0.contrast = 45; $0.shadows = -15; $0.vignette = 35
            }),
        Filter(
            id: "sepia", name: "Sepia",
            adjustments: adjusted {
                $0.saturation = -100; $0.contrast = 5
            },
            curves: [
                ToneCurve([(0, 0.08), (1, 1)]), ToneCurve([(0, 0.04), (1, 0.9)]), ToneCurve([(0, 0), (1, 0.72)]),
            ]),
        Filter(
            id: "vintage", name: "Vintage",
            adjustments: adjusted {
                $0.saturation = -25; $0.warmth = 20; $0.contrast = -10; $0.vignette = 30; $0.grain = 15
            },
            curves: [.identity, .identity, ToneCurve([(0, 0.1), (1, 0.85)])]),
        Filter(
            id: "dramatic", name: "Dramatic",
            adjustments: adjusted {
                $0.contrast = 40; $0.highlights = -30; $0.shadows = 25; $0.saturation = -15; $0.vignette = 25
                $0.sharpness = 30
            }),
        Filter(
            id: "soft", name: "Soft",
            adjustments: adjusted {
                $0.contrast = -20; $0.highlights = -15; $0.exposure = 5; $0.saturation = -10
            },
            curves: Array(repeating: ToneCurve([(0, 0.05), (1, 1)]), count: 3)),
    ]
}

/// A filter on a photo, at a strength from 0 (none of it) to 1 (all of it).
public struct FilterChoice: Hashable, Sendable {
    /// The ``Filter/id``.
    public var id: String
    /// How much of it, 0…1.
    public var strength: Double

    /// A filter at a strength (all of it by default).
    public init(id: String, strength: Double = 1) {
        self.id = id
        self.strength = strength
    }

    /// What is wrong with it, as a sentence; `nil` when the filter exists and the strength is in range.
    public var problem: String? {
        guard Filter.named(id) != nil else {
            return
                "no filter named \"\(id.prefix(40))\"; expected one of \(Filter.catalog.map(\.id).joined(separator: ", "))"
        }
        guard strength.isFinite, (0...1).contains(strength) else {
            return "a filter's strength must be a number from 0 to 1, got \(JSONValue.format(strength))"
        }
        return nil
    }
}
