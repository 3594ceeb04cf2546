import CPotrace
import CollageCore
import Foundation

/// A closed outline made of straight lines and cubic Bézier curves, y pointing down, in the
/// units of its points (pixels or millimetres).
public struct CutPath: Hashable, Sendable {
    /// One piece of the outline, from where the last one ended.
    public enum Segment: Hashable, Sendable {
        /// A straight line to a point.
        case line(Point)
        /// A cubic Bézier curve through two control points to a point.
        case curve(Point, Point, Point)

        /// Where the segment ends.
        public var end: Point {
            switch self {
            case .line(let end), .curve(_, _, let end): end
            }
        }
    }

    /// Where the outline starts (and, being closed, ends).
    public var start: Point
    /// The pieces, the last ending at ``start``.
    public var segments: [Segment]

    /// An outline from `start` through `segments`.
    public init(start: Point, segments: [Segment]) {
        self.start = start
        self.segments = segments
    }

    /// The path with every point mapped by `transform`.
    public func mapped(_ transform: (Point) -> Point) -> CutPath {
        CutPath(
            start: transform(start),
            segments: segments.map { segment in
                switch segment {
                case .line(let end): .line(transform(end))
                case .curve(let first, let second, let end): .curve(transform(first), transform(second), transform(end))
                }
            })
    }

    /// The path scaled by `factor` about the origin (pixels to millimetres: 25.4 / dpi).
    public func scaled(by factor: Double) -> CutPath {
        mapped { Point(x: $0.x * factor, y: $0.y * factor) }
    }

    /// Points along the path, `perSegment` for each curve (lines give their end), the start first.
    public func sampled(perSegment: Int = 16) -> [Point] {
        var points = [start]
        var current = start
        for segment in segments {
            switch segment {
            case .line(let end):
                points.append(end)
            case .curve(let first, let second, let end):
                for step in 1...perSegment {
                    let t = Double(step) / Double(perSegment)
                    let u = 1 - t
                    let a = u * u * u
                    let b = 3 * u * u * t
                    let c = 3 * u * t * t
                    let d = t * t * t
                    points.append(
                        Point(
                            x: a * current.x + b * first.x + c * second.x + d * end.x,
                            y: a * current.y + b * first.y + c * second.y + d * end.y))
                }
            }
            current = segment.end
        }
        return points
    }

    /// The smallest box holding every point of the path, control points included.
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double) {
        var box = (minX: start.x, minY: start.y, maxX: start.x, maxY: start.y)
        for segment in segments {
            let points: [Point] =
                switch segment {
                case .line(let end): [end]
                case .curve(let first, let second, let end): [first, second, end]
                }
            for point in points {
                box = (min(box.minX, point.x), min(box.minY, point.y), max(box.maxX, point.x), max(box.maxY, point.y))
            }
        }
        return box
    }

    /// The path as SVG path data, numbers with `decimals` places.
    public func svgData(decimals: Int = 3) -> String {
        func number(_ value: Double) -> String { String(format: "%.\(decimals)f", value) }
        func point(_ point: Point) -> String { "\(number(point.x)) \(number(point.y))" }
        var data = "M \(point(start))"
        for segment in segments {
            switch segment {
            case .line(let end): data += " L \(point(end))"
            case .curve(let first, let second, let end): data += " C \(point(first)) \(point(second)) \(point(end))"
            }
        }
        return data + " Z"
    }
}

/// potrace, tracing a bitmap into smooth outlines.
enum Tracer {
    /// The outer outline of each separate shape in `mask` (`true` = inside), in pixel
    /// coordinates whose unit square (x, y)…(x + 1, y + 1) is pixel (x, y); holes are ignored.
    static func outlines(of mask: [Bool], width: Int, height: Int) throws(PrintError) -> [CutPath] {
        let bits = Int(MemoryLayout<potrace_word>.size * 8)
        let wordsPerRow = (width + bits - 1) / bits
        var words = [potrace_word](repeating: 0, count: wordsPerRow * height)
        for y in 0..<height {
            for x in 0..<width where mask[y * width + x] {
                words[y * wordsPerRow + x / bits] |= potrace_word(1) << potrace_word(bits - 1 - x % bits)
            }
        }
        guard let parameters = potrace_param_default() else { throw .tracing("potrace could not start") }
        defer { potrace_param_free(parameters) }
        // Specks a blade cannot cut are gone already; corners are smoothed (potrace's default 1).
        parameters.pointee.turdsize = 2
        parameters.pointee.alphamax = 1.2
        parameters.pointee.opticurve = 1
        parameters.pointee.opttolerance = 0.2
        return try words.withUnsafeMutableBufferPointer { buffer throws(PrintError) -> [CutPath] in
            var bitmap = potrace_bitmap_t(
                w: Int32(width), h: Int32(height), dy: Int32(wordsPerRow), map: buffer.baseAddress)
            guard let state = potrace_trace(parameters, &bitmap) else { throw .tracing("potrace ran out of memory") }
            defer { potrace_state_free(state) }
            guard state.pointee.status == POTRACE_STATUS_OK else { throw .tracing("potrace reported a failure") }
            var paths: [CutPath] = []
            var node = state.pointee.plist
            while let path = node {
                // Outer outlines are '+'; holes ('-') are filled in a cut shape.
                if path.pointee.sign == Int32(UInt8(ascii: "+")) {
                    paths.append(convert(path.pointee.curve))
                }
                node = path.pointee.next
            }
            return paths
        }
    }

    private static func convert(_ curve: potrace_curve_t) -> CutPath {
        let count = Int(curve.n)
        func point(_ value: potrace_dpoint_t) -> Point { Point(x: value.x, y: value.y) }
        guard count > 0, let tags = curve.tag, let corners = curve.c else {
            return CutPath(start: Point(x: 0, y: 0), segments: [])
        }
        let start = point(corners[count - 1].2)
        var segments: [CutPath.Segment] = []
        for index in 0..<count {
            let (first, second, end) = corners[index]
            if tags[index] == POTRACE_CORNER {
                segments.append(.line(point(second)))
                segments.append(.line(point(end)))
            } else {
                segments.append(.curve(point(first), point(second), point(end)))
            }
        }
        return CutPath(start: start, segments: segments)
    }
}
