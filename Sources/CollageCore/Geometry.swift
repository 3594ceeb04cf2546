import Foundation

/// A point in canvas points; y grows downwards, as on screen and in images.
public struct Point: Hashable, Sendable {
    /// Horizontal position.
    public var x: Double
    /// Vertical position, growing downwards.
    public var y: Double

    /// A point at `x`, `y`.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The origin.
    public static let zero = Point(x: 0, y: 0)

    /// This point rotated clockwise (on screen) about `center` by `angle`.
    public func rotated(by angle: Angle, around center: Point) -> Point {
        let radians = angle.radians
        let (sine, cosine) = (sin(radians), cos(radians))
        let dx = x - center.x
        let dy = y - center.y
        return Point(x: center.x + dx * cosine - dy * sine, y: center.y + dx * sine + dy * cosine)
    }
}

/// A width and a height.
public struct Size: Hashable, Sendable {
    /// Horizontal extent.
    public var width: Double
    /// Vertical extent.
    public var height: Double

    /// A size of `width` × `height`.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Width divided by height; 0 for an empty height.
    public var aspectRatio: Double { height == 0 ? 0 : width / height }

    /// The area.
    public var area: Double { width * height }

    /// This size multiplied by `factor` in both directions.
    public func scaled(by factor: Double) -> Size { Size(width: width * factor, height: height * factor) }
}

/// An axis-aligned rectangle.
public struct Rect: Hashable, Sendable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Horizontal extent.
    public var width: Double
    /// Vertical extent.
    public var height: Double

    /// A rectangle whose top-left corner is (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rectangle from an origin and a size.
    public init(origin: Point, size: Size) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// A rectangle of `size` centred on `center`.
    public init(center: Point, size: Size) {
        self.init(x: center.x - size.width / 2, y: center.y - size.height / 2, width: size.width, height: size.height)
    }

    /// Top-left corner.
    public var origin: Point { Point(x: x, y: y) }
    /// Width and height.
    public var size: Size { Size(width: width, height: height) }
    /// Right edge.
    public var maxX: Double { x + width }
    /// Bottom edge.
    public var maxY: Double { y + height }
    /// The centre.
    public var center: Point { Point(x: x + width / 2, y: y + height / 2) }

    /// Whether `point` lies inside; the left and top edges are inside, the right and bottom are not,
    /// so adjacent rectangles never both contain a point.
    public func contains(_ point: Point) -> Bool {
        point.x >= x && point.x < maxX && point.y >= y && point.y < maxY
    }

    /// Whether `other` lies entirely inside this rectangle, allowing `tolerance` at each edge.
    public func contains(_ other: Rect, tolerance: Double = 0) -> Bool {
        other.x >= x - tolerance && other.y >= y - tolerance && other.maxX <= maxX + tolerance
            && other.maxY <= maxY + tolerance
    }

    /// The overlap of the two rectangles, or `nil` when they do not overlap with positive area.
    public func intersection(_ other: Rect) -> Rect? {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(maxX, other.maxX)
        let bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The four corners, clockwise from the top left, after rotating the rectangle about its centre.
    public func corners(rotatedBy angle: Angle) -> [Point] {
        [Point(x: x, y: y), Point(x: maxX, y: y), Point(x: maxX, y: maxY), Point(x: x, y: maxY)]
            .map { $0.rotated(by: angle, around: center) }
    }

    /// The smallest axis-aligned rectangle holding this one rotated about its centre by `angle`.
    public func boundingBox(rotatedBy angle: Angle) -> Rect {
        let points = corners(rotatedBy: angle)
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        let minX = xs.min() ?? x
        let minY = ys.min() ?? y
        return Rect(x: minX, y: minY, width: (xs.max() ?? maxX) - minX, height: (ys.max() ?? maxY) - minY)
    }

    /// The rectangle with each coordinate multiplied by `factor`.
    public func scaled(by factor: Double) -> Rect {
        Rect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}

/// A rotation, stored in degrees normalised to (-180, 180]; positive turns clockwise on screen.
public struct Angle: Hashable, Sendable {
    /// Degrees in (-180, 180].
    public let degrees: Double

    /// An angle of `degrees`, normalised so that 270 becomes -90 and -180 becomes 180.
    public init(degrees: Double) {
        self.degrees = Angle.normalize(degrees)
    }

    /// The angle in radians.
    public var radians: Double { degrees * .pi / 180 }

    /// No rotation.
    public static let zero = Angle(degrees: 0)

    /// Maps any finite angle in degrees into (-180, 180].
    public static func normalize(_ degrees: Double) -> Double {
        guard degrees.isFinite else { return 0 }
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value <= -180 { value += 360 }
        if value > 180 { value -= 360 }
        return value == 0 ? 0 : value  // folds -0 into 0 so equal angles compare equal
    }
}
