import Foundation

/// The outline a photo is cut to inside its frame.
///
/// Each shape is defined once, here, as a polygon in the frame's unit coordinates: the renderer
/// cuts photos along it, hit-testing (``CollageItem/contains(_:)``) follows it, and the editor
/// receives the same points in the layout it draws. Curves are sampled finely enough that a
/// photo printed 30 cm wide is within a third of a pixel of the true curve at 300 dpi.
public enum PhotoShape: String, CaseIterable, Hashable, Sendable {
    /// The frame itself, with the collage's corner radius: what every photo had before shapes.
    case rectangle
    /// A square with well rounded corners, centred in the frame.
    case roundedSquare
    /// The largest circle in the frame.
    case circle
    /// An ellipse that fills the frame.
    case ellipse
    /// A heart, as wide as it is tall, centred.
    case heart
    /// A five-pointed star, centred.
    case star
    /// A hexagon standing on a point, centred.
    case hexagon
    /// A doorway: straight sides and a round top as wide as the frame.
    case arch
    /// A soft, irregular pebble that fills the frame.
    case blob

    /// The name people see, e.g. "Rounded square".
    public var name: String {
        switch self {
        case .rectangle: "Rectangle"
        case .roundedSquare: "Rounded square"
        case .circle: "Circle"
        case .ellipse: "Ellipse"
        case .heart: "Heart"
        case .star: "Star"
        case .hexagon: "Hexagon"
        case .arch: "Arch"
        case .blob: "Blob"
        }
    }

    /// The shape whose id (its raw value) is `id`, if there is one.
    public static func named(_ id: String) -> PhotoShape? { PhotoShape(rawValue: id) }

    /// The ids, for messages: "rectangle, roundedSquare, …".
    public static var idList: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// Whether the shape keeps its own proportions, centred in the frame (a circle stays round in
    /// a wide frame), rather than stretching to fill it.
    public var keepsProportions: Bool {
        switch self {
        case .roundedSquare, .circle, .heart, .star, .hexagon: true
        case .rectangle, .ellipse, .arch, .blob: false
        }
    }

    /// The outline in unit coordinates of a frame of `size` (0…1 each way, y down), as a closed
    /// polygon whose last point joins its first. Coordinates are rounded to 1/100,000 so the
    /// editor, which receives them as text, tests points against exactly the same polygon.
    ///
    /// `cornerRadius` (points) rounds a ``rectangle``'s corners, as the collage's style does.
    public func outline(in size: Size, cornerRadius: Double = 0) -> [Point] {
        let width = max(size.width, 1e-9)
        let height = max(size.height, 1e-9)
        var points: [Point]  // in points, within the frame
        switch self {
        case .rectangle:
            points = Self.roundedRectangle(
                Rect(x: 0, y: 0, width: width, height: height),
                radius: min(max(0, cornerRadius), width / 2, height / 2))
        case .roundedSquare:
            let side = min(width, height)
            let square = Rect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
            points = Self.roundedRectangle(square, radius: side * 0.22)
        case .arch:
            let radius = min(width / 2, height)
            points = (0...Self.curveSteps / 2).map { step in
                let angle = Double.pi + Double.pi * Double(step) / Double(Self.curveSteps / 2)
                return Point(x: width / 2 + radius * cos(angle), y: radius + radius * sin(angle))
            }
            points += [Point(x: width, y: height), Point(x: 0, y: height)]
        case .circle, .ellipse, .heart, .star, .hexagon, .blob:
            let unit = Self.unitPolygons[self] ?? []
            var box = Rect(x: 0, y: 0, width: width, height: height)
            if keepsProportions {
                let aspect = Self.aspects[self] ?? 1
                let fitted =
                    width / height > aspect
                    ? Size(width: height * aspect, height: height) : Size(width: width, height: width / aspect)
                box = Rect(
                    x: (width - fitted.width) / 2, y: (height - fitted.height) / 2, width: fitted.width,
                    height: fitted.height)
            }
            points = unit.map { Point(x: box.x + $0.x * box.width, y: box.y + $0.y * box.height) }
        }
        return points.map { point in
            Point(
                x: ((point.x / width) * 100_000).rounded() / 100_000,
                y: ((point.y / height) * 100_000).rounded() / 100_000)
        }
    }

    /// Whether `point`, in unit coordinates of the frame, lies inside `outline` (even-odd rule, so
    /// a point on a left or top edge is inside as ``Rect/contains(_:)`` has it, in general).
    public static func contains(_ point: Point, outline: [Point]) -> Bool {
        var inside = false
        var previous = outline.count - 1
        for current in outline.indices {
            let (a, b) = (outline[current], outline[previous])
            if (a.y > point.y) != (b.y > point.y) {
                let crossing = (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x
                if point.x < crossing { inside.toggle() }
            }
            previous = current
        }
        return inside
    }

    // MARK: - Definitions

    /// Samples along a full curve: a circle 30 cm across at 300 dpi (3,543 px) strays from its
    /// polygon by at most 0.3 pixels.
    static let curveSteps = 240

    /// The curved and pointed shapes as drawn from their equations, at their own proportions.
    private static let curves: [PhotoShape: [Point]] = {
        let steps = (0..<curveSteps).map { 2 * Double.pi * Double($0) / Double(curveSteps) }
        let circle = steps.map { Point(x: cos($0), y: sin($0)) }
        // The classic heart curve, point down (y grows downwards).
        let heart = steps.map { t in
            Point(x: 16 * pow(sin(t), 3), y: -(13 * cos(t) - 5 * cos(2 * t) - 2 * cos(3 * t) - cos(4 * t)))
        }
        // Inner points at half the outer radius: rounder than a classic star, so a face still fits.
        let star = (0..<10).map { index in
            let angle = -Double.pi / 2 + Double.pi * Double(index) / 5
            let radius = index.isMultiple(of: 2) ? 1.0 : 0.5
            return Point(x: radius * cos(angle), y: radius * sin(angle))
        }
        let hexagon = (0..<6).map { index in
            let angle = -Double.pi / 2 + Double.pi * Double(index) / 3
            return Point(x: cos(angle), y: sin(angle))
        }
        let blob = steps.map { t in
            let radius = 1 + 0.09 * sin(2 * t + 0.4) + 0.07 * cos(3 * t + 1.1) + 0.04 * sin(5 * t + 2)
            return Point(x: radius * cos(t), y: radius * sin(t))
        }
        return [.circle: circle, .ellipse: circle, .heart: heart, .star: star, .hexagon: hexagon, .blob: blob]
    }()

    /// The curves stretched to fill the unit square.
    private static let unitPolygons: [PhotoShape: [Point]] = curves.mapValues { points in
        let box = bounds(of: points)
        return points.map { Point(x: ($0.x - box.x) / box.width, y: ($0.y - box.y) / box.height) }
    }

    /// Width over height of each curve, which the shapes that keep their proportions keep.
    private static let aspects: [PhotoShape: Double] = curves.mapValues { points in
        let box = bounds(of: points)
        return box.width / box.height
    }

    private static func bounds(of points: [Point]) -> Rect {
        let minX = points.map(\.x).min() ?? 0
        let minY = points.map(\.y).min() ?? 0
        return Rect(
            x: minX, y: minY, width: (points.map(\.x).max() ?? 1) - minX, height: (points.map(\.y).max() ?? 1) - minY)
    }

    /// A rounded rectangle as a polygon, clockwise from the top-left corner's end.
    private static func roundedRectangle(_ rect: Rect, radius: Double) -> [Point] {
        guard radius > 0 else {
            return [
                Point(x: rect.x, y: rect.y), Point(x: rect.maxX, y: rect.y), Point(x: rect.maxX, y: rect.maxY),
                Point(x: rect.x, y: rect.maxY),
            ]
        }
        let quarter = curveSteps / 4
        let corners = [
            (Point(x: rect.maxX - radius, y: rect.y + radius), -Double.pi / 2),
            (Point(x: rect.maxX - radius, y: rect.maxY - radius), 0),
            (Point(x: rect.x + radius, y: rect.maxY - radius), Double.pi / 2),
            (Point(x: rect.x + radius, y: rect.y + radius), Double.pi),
        ]
        return corners.flatMap { centre, start in
            (0...quarter).map { step in
                let angle = start + Double.pi / 2 * Double(step) / Double(quarter)
                return Point(x: centre.x + radius * cos(angle), y: centre.y + radius * sin(angle))
            }
        }
    }
}
