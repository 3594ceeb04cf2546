import CollageRender
import Foundation

/// How a cut line is drawn around a sticker.
public struct CutLineOptions: Hashable, Sendable {
    /// How far outside the subject the blade runs, in millimetres.
    public var offset: Double
    /// The tightest bend the blade is asked to follow, in millimetres: inward corners and
    /// gaps narrower than twice this are bridged.
    public var minimumRadius: Double
    /// Pixels per inch of the sticker on paper.
    public var dotsPerInch: Double
    /// Fill white out to the cut line (and half a millimetre past it, so a blade a little off
    /// never shows a clear edge): the printed outline and the cut agree.
    public var whiteBacking: Bool

    /// The usual: 2 mm outside the subject, bends of at least 1 mm, 300 dpi, no white.
    public init(offset: Double = 2, minimumRadius: Double = 1, dotsPerInch: Double = 300, whiteBacking: Bool = false) {
        self.offset = offset
        self.minimumRadius = minimumRadius
        self.dotsPerInch = dotsPerInch
        self.whiteBacking = whiteBacking
    }

    /// Pixels in a millimetre at ``dotsPerInch``.
    public var pixelsPerMillimetre: Double { dotsPerInch / PrintLength.millimetresPerInch }
}

/// A sticker ready to print and cut: its pixels on a canvas the cut line fits in, and the line.
public struct CutSticker: Sendable {
    /// The sticker (RGBA) on a canvas holding the cut line with a pixel to spare.
    public let image: Bitmap
    /// The cut line in the canvas's pixels.
    public let path: CutPath
    /// Which canvas pixels lie inside the cut line.
    public let inside: [Bool]
    /// The options it was made with.
    public let options: CutLineOptions
    /// Things a person should know (a subject clipped by its photo's edge).
    public let warnings: [String]
    /// Where the sticker given lies on the canvas: its top-left corner, in canvas pixels.
    public let stickerOrigin: (x: Int, y: Int)
    /// The size of the sticker given, in pixels.
    public let stickerSize: (width: Int, height: Int)
    /// Where the whole picture the sticker was cut and sized from lies on the canvas, in canvas
    /// pixels (the sticker given, unless ``SheetStickers`` cropped it to its subject), so a page
    /// can draw that picture in its place.
    public internal(set) var pictureFrame: (x: Double, y: Double, width: Double, height: Double)
    /// How many of its picture's own pixels the subject has an inch on paper, when
    /// ``SheetStickers`` sized it from a file (`nil` otherwise): below about 150 a print looks soft.
    public internal(set) var pictureDotsPerInch: Double?

    /// The canvas's size on paper, in millimetres.
    public var sizeInMillimetres: (width: Double, height: Double) {
        (Double(image.width) / options.pixelsPerMillimetre, Double(image.height) / options.pixelsPerMillimetre)
    }

    /// The cut line in millimetres from the canvas's top-left corner.
    public var pathInMillimetres: CutPath { path.scaled(by: 1 / options.pixelsPerMillimetre) }

    /// The cut line as an SVG document of the canvas's size in millimetres, stroked in the
    /// magenta that print shops read as `CutContour`.
    public func svg(title: String) -> String {
        let (width, height) = sizeInMillimetres
        let size = String(
            format: "width=\"%.3fmm\" height=\"%.3fmm\" viewBox=\"0 0 %.3f %.3f\"", width, height, width, height)
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" \(size)>
              <title>\(SheetSVG.escaped(title))</title>
              <path id="CutContour" d="\(pathInMillimetres.svgData())" fill="none" stroke="#ec008c" stroke-width="0.25"/>
            </svg>

            """
    }

    /// Cuts around `sticker`'s opaque subject (alpha at least half; a sticker without alpha is
    /// all subject) at `options.offset`, closing holes, thin necks and bends tighter than the
    /// minimum radius, so the line is one smooth closed curve a blade can follow.
    /// - Throws: ``PrintError/noSubject(_:)`` when nothing is opaque; ``PrintError/tracing(_:)``.
    public init(
        sticker: Bitmap, options: CutLineOptions = CutLineOptions(), name: String = "the sticker"
    )
        throws(PrintError)
    {
        guard options.offset.isFinite, (0...50).contains(options.offset), options.minimumRadius.isFinite,
            (0...20).contains(options.minimumRadius), options.dotsPerInch.isFinite,
            (10...2400).contains(options.dotsPerInch)
        else {
            throw .invalidOption(
                "a cut line needs an offset of 0 to 50 mm, a radius of 0 to 20 mm and 10 to 2,400 dots per inch")
        }
        let scale = options.pixelsPerMillimetre
        let offset = options.offset * scale
        let radius = options.minimumRadius * scale
        let bleed = options.whiteBacking ? 0.5 * scale : 0
        let pad = Int((offset + radius + bleed).rounded(.up)) + 2
        let (width, height) = (sticker.width + 2 * pad, sticker.height + 2 * pad)
        var subject = [Bool](repeating: false, count: width * height)
        var warnings: [String] = []
        var touchesEdge = false
        let alphaChannel = sticker.channels == 4 || sticker.channels == 2 ? sticker.channels - 1 : nil
        sticker.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<sticker.height {
                for x in 0..<sticker.width {
                    let opaque =
                        alphaChannel.map { pixels[(y * sticker.width + x) * sticker.channels + $0] >= 128 } ?? true
                    guard opaque else { continue }
                    subject[(y + pad) * width + x + pad] = true
                    if x == 0 || y == 0 || x == sticker.width - 1 || y == sticker.height - 1 { touchesEdge = true }
                }
            }
        }
        guard subject.contains(true) else { throw .noSubject(name) }
        let subjectMask = subject
        // A picture without alpha is all subject: touching its edges is what it is; but a photo
        // given where a lifted sticker was meant came out as a rectangle without a word. A
        // picture whose alpha is opaque all over (a GIF, a PNG saved with alpha) is one too, and
        // so is one opaque but for a sliver (a drawing on white with a half-clear edge column
        // was said to be a subject clipped at its edge): a lifted sticker's margin alone is more.
        let opaqueAllOver = Double(subject.lazy.filter { $0 }.count) >= 0.99 * Double(sticker.width * sticker.height)
        if alphaChannel == nil || opaqueAllOver {
            warnings.append(
                "\(name) has no transparency, so it is cut as a rectangle round the whole picture; lift its subject "
                    + "with 'collage sticker' first for a cut round the subject")
        }
        if touchesEdge, alphaChannel != nil, !opaqueAllOver {
            warnings.append(
                "\(name): the subject touches the edge of its picture, where it was clipped; the cut line follows the clipped edge"
            )
        }
        // Closing: out to offset + radius, then back in by radius, rounds every inward bend and
        // bridges gaps narrower than twice the radius; outward bends are rounded by the offset.
        let reach = Float((offset + radius) * (offset + radius))
        let near = DistanceField.squaredDistances(width: width, height: height) { subjectMask[$0] }
        let grown = near.map { $0 <= reach }
        let fromOutside = DistanceField.squaredDistances(width: width, height: height) { !grown[$0] }
        let squaredRadius = Float(radius * radius)
        var inside = fromOutside.map { $0 > squaredRadius }
        // A subject already inside (a sticker whose offset is 0) stays inside.
        for index in inside.indices where subjectMask[index] { inside[index] = true }
        Self.fillHoles(&inside, width: width, height: height)
        if Self.hasSeveralParts(inside, width: width, height: height) {
            // Parts further apart than the bridging reaches: one line around them all.
            Self.fillConvexHull(&inside, width: width, height: height)
        }
        // The canvas: the cut shape (and the white's bleed) with a pixel to spare.
        var covered = inside
        if bleed > 0 {
            let shape = inside
            let fromShape = DistanceField.squaredDistances(width: width, height: height) { shape[$0] }
            covered = fromShape.map { $0 <= Float(bleed * bleed) }
        }
        var box = (minX: width, minY: height, maxX: -1, maxY: -1)
        for y in 0..<height {
            for x in 0..<width where covered[y * width + x] {
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y))
            }
        }
        let left = max(0, box.minX - 1)
        let top = max(0, box.minY - 1)
        let right = min(width - 1, box.maxX + 1)
        let bottom = min(height - 1, box.maxY + 1)
        let (canvasWidth, canvasHeight) = (right - left + 1, bottom - top + 1)
        var canvas = [UInt8](repeating: 0, count: canvasWidth * canvasHeight * 4)
        var canvasInside = [Bool](repeating: false, count: canvasWidth * canvasHeight)
        let channels = sticker.channels
        sticker.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<canvasHeight {
                for x in 0..<canvasWidth {
                    let (paddedX, paddedY) = (x + left, y + top)
                    let target = (y * canvasWidth + x) * 4
                    canvasInside[y * canvasWidth + x] = inside[paddedY * width + paddedX]
                    var (red, green, blue, alpha) = (0, 0, 0, 0)
                    let (sourceX, sourceY) = (paddedX - pad, paddedY - pad)
                    if sourceX >= 0, sourceY >= 0, sourceX < sticker.width, sourceY < sticker.height {
                        let source = (sourceY * sticker.width + sourceX) * channels
                        red = Int(pixels[source])
                        green = channels >= 3 ? Int(pixels[source + 1]) : red
                        blue = channels >= 3 ? Int(pixels[source + 2]) : red
                        alpha = channels == 4 || channels == 2 ? Int(pixels[source + channels - 1]) : 255
                    }
                    if options.whiteBacking, covered[paddedY * width + paddedX] {
                        // Over white: each channel moves towards 255 by what the alpha leaves.
                        red = (red * alpha + 255 * (255 - alpha) + 127) / 255
                        green = (green * alpha + 255 * (255 - alpha) + 127) / 255
                        blue = (blue * alpha + 255 * (255 - alpha) + 127) / 255
                        alpha = 255
                    }
                    canvas[target] = UInt8(red)
                    canvas[target + 1] = UInt8(green)
                    canvas[target + 2] = UInt8(blue)
                    canvas[target + 3] = UInt8(alpha)
                }
            }
        }
        guard let image = Bitmap(width: canvasWidth, height: canvasHeight, channels: 4, pixels: canvas) else {
            throw .tracing("the canvas could not be made")
        }
        let traced = try Tracer.outlines(of: canvasInside, width: canvasWidth, height: canvasHeight)
        guard
            let outline = traced.max(by: {
                let (a, b) = ($0.bounds, $1.bounds)
                return (a.maxX - a.minX) * (a.maxY - a.minY) < (b.maxX - b.minX) * (b.maxY - b.minY)
            })
        else { throw .tracing("potrace found no outline") }
        self.image = image
        self.path = outline
        self.inside = canvasInside
        self.options = options
        self.warnings = warnings
        self.stickerOrigin = (pad - left, pad - top)
        self.stickerSize = (sticker.width, sticker.height)
        self.pictureFrame = (
            Double(pad - left), Double(pad - top), Double(sticker.width), Double(sticker.height)
        )
    }

    /// Marks as inside every outside pixel that the canvas's border cannot reach.
    static func fillHoles(_ inside: inout [Bool], width: Int, height: Int) {
        var reached = [Bool](repeating: false, count: inside.count)
        var stack: [Int] = []
        func visit(_ index: Int) {
            if !inside[index] && !reached[index] {
                reached[index] = true
                stack.append(index)
            }
        }
        for x in 0..<width {
            visit(x)
            visit((height - 1) * width + x)
        }
        for y in 0..<height {
            visit(y * width)
            visit(y * width + width - 1)
        }
        while let index = stack.popLast() {
            let (x, y) = (index % width, index / width)
            if x > 0 { visit(index - 1) }
            if x < width - 1 { visit(index + 1) }
            if y > 0 { visit(index - width) }
            if y < height - 1 { visit(index + width) }
        }
        for index in inside.indices where !reached[index] { inside[index] = true }
    }

    /// Whether the inside pixels make more than one 8-connected region (found over runs of them
    /// along the rows, so the pixels are read once, in order).
    static func hasSeveralParts(_ inside: [Bool], width: Int, height: Int) -> Bool {
        inside.withUnsafeBufferPointer { inside in
            PixelParts(width: width, height: height) { inside[$0] }.count > 1
        }
    }

    /// Fills the convex hull of the inside pixels (their corners), row by row.
    static func fillConvexHull(_ inside: inout [Bool], width: Int, height: Int) {
        var points: [(Double, Double)] = []
        for y in 0..<height {
            let row = inside[(y * width)..<(y * width + width)]
            guard let first = row.firstIndex(of: true), let last = row.lastIndex(of: true) else { continue }
            let (low, high) = (Double(first - y * width), Double(last - y * width + 1))
            points += [(low, Double(y)), (low, Double(y + 1)), (high, Double(y)), (high, Double(y + 1))]
        }
        points.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        func cross(_ o: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
            (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
        }
        var hull: [(Double, Double)] = []
        for pass in 0..<2 {
            let start = hull.count
            for point in pass == 0 ? points : points.reversed() {
                while hull.count >= start + 2, cross(hull[hull.count - 2], hull[hull.count - 1], point) <= 0 {
                    hull.removeLast()
                }
                hull.append(point)
            }
            hull.removeLast()
        }
        guard hull.count >= 3 else { return }
        for y in 0..<height {
            let centre = Double(y) + 0.5
            var crossings: [Double] = []
            for index in hull.indices {
                let (a, b) = (hull[index], hull[(index + 1) % hull.count])
                if (a.1 <= centre) != (b.1 <= centre) {
                    crossings.append(a.0 + (centre - a.1) / (b.1 - a.1) * (b.0 - a.0))
                }
            }
            guard let low = crossings.min(), let high = crossings.max() else { continue }
            for x in max(0, Int(low.rounded(.down)))..<min(width, Int(high.rounded(.up))) {
                if Double(x) + 0.5 >= low, Double(x) + 0.5 <= high { inside[y * width + x] = true }
            }
        }
    }
}
