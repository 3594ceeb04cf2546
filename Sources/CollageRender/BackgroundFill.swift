import CVips
import CollageCore
import Foundation

/// The canvas's background as pixels: a colour, a gradient as CSS draws it, a pattern sized in
/// points, or a paper whose grain is made at a pixel a point and enlarged, so every export size
/// (and the editor's screen) shows the same paper.
enum BackgroundFill {
    /// The background, `width` × `height` pixels at `scale` pixels per point. With `keepsAlpha`,
    /// a background that lets anything through has four bands; otherwise it lies on white, in three.
    static func image(
        _ background: Background, width: Int, height: Int, scale: Double, keepsAlpha: Bool
    ) throws(VipsError) -> VipsImage {
        let alpha = keepsAlpha && background.hasTransparency
        switch background {
        case .color(let color):
            return try VipsImage.solid(width: width, height: height, values: values(color, keepsAlpha: alpha))
        case .linearGradient(let angle, let stops):
            // CSS: the line runs through the centre at the angle (0° up, clockwise), long enough
            // that its ends' perpendiculars pass through the corners.
            let radians = angle * .pi / 180
            let (dx, dy) = (sin(radians), -cos(radians))
            let length = max(1e-9, abs(Double(width) * dx) + abs(Double(height) * dy))
            let parameters = [
                dx / length, dy / length, 0.5 - (Double(width) / 2 * dx + Double(height) / 2 * dy) / length, 0,
            ]
            return try gradient(width: width, height: height, radial: false, parameters, stops, keepsAlpha: alpha)
        case .radialGradient(let stops):
            // CSS's default: an ellipse at the centre, of the canvas's shape, through the corners.
            let parameters = [
                Double(width) / 2, Double(height) / 2, Double(width) / 2 * 2.0.squareRoot(),
                Double(height) / 2 * 2.0.squareRoot(),
            ]
            return try gradient(width: width, height: height, radial: true, parameters, stops, keepsAlpha: alpha)
        case .pattern(let pattern):
            return try patterned(pattern, width: width, height: height, scale: scale, keepsAlpha: alpha)
        case .paper(let texture):
            return try paper(texture, width: width, height: height, scale: scale)
        case .photo:
            // A photo is drawn by ``photo(_:blur:width:height:scale:photos:limits:)``, which can
            // read its file; this grey is what stands in for it where there is none to read.
            return try VipsImage.solid(
                width: width, height: height, values: values(background.colors[0], keepsAlpha: false))
        }
    }

    /// A photo covering `width` × `height` pixels (aspect-fill around its subject or centre),
    /// blurred by `blur` points. A wide blur is made on a reduced copy and enlarged (a blurred
    /// picture has no detail to lose), so its cost stays that of a small decode at any size.
    static func photo(
        _ content: ItemContent, blur: Double, width: Int, height: Int, scale: Double, photos: some PhotoSource,
        limits: RenderLimits
    ) throws(RenderError) -> VipsImage {
        let file = try photos.file(for: content)
        let sigma = blur * scale
        let reduction = sigma > 4 ? 4 / sigma : 1
        let (smallWidth, smallHeight) = (
            max(1, Int((Double(width) * reduction).rounded())), max(1, Int((Double(height) * reduction).rounded()))
        )
        let crop = photos.automaticFocus(for: content, file: file).map { Crop(focus: $0) } ?? .centered
        let decoded = try PhotoDecoder(limits: limits).cover(
            file, width: smallWidth, height: smallHeight, crop: crop, materialize: sigma > 0)
        return try vips("blur the background photo \(file.path)") { () throws(VipsError) -> VipsImage in
            var image = decoded.bands == 4 ? try decoded.flattenedOnWhite() : decoded
            guard sigma > 0 else { return try exactly(image, width: width, height: height) }
            image = try image.gaussianBlur(sigma: sigma * reduction).copyToMemory()
            if reduction < 1 {
                image = try image.resize(
                    horizontal: Double(width) / Double(image.width), vertical: Double(height) / Double(image.height))
            }
            return try exactly(image, width: width, height: height).castToUInt8()
        }
    }

    /// A colour's channels; without alpha, laid on white.
    static func values(_ color: Color, keepsAlpha: Bool) -> [Double] {
        let channels = [color.red, color.green, color.blue].map(Double.init)
        if keepsAlpha { return channels + [Double(color.alpha)] }
        let alpha = Double(color.alpha) / 255
        return channels.map { $0 * alpha + 255 * (1 - alpha) }
    }

    /// The image cut, or its last row and column repeated, to exactly `width` × `height` (a
    /// resize may land a pixel either side).
    private static func exactly(_ image: VipsImage, width: Int, height: Int) throws(VipsError) -> VipsImage {
        let cut = try image.extractArea(x: 0, y: 0, width: min(width, image.width), height: min(height, image.height))
        guard cut.width < width || cut.height < height else { return cut }
        return try cut.extendingEdges(width: width, height: height)
    }

    // MARK: - Gradients

    /// How finely a gradient's colours are tabulated: a step is a sixteenth of an 8-bit level
    /// across the widest canvas.
    static let gradientTableSize = 4_096

    private static func gradient(
        width: Int, height: Int, radial: Bool, _ parameters: [Double], _ stops: [GradientStop], keepsAlpha: Bool
    ) throws(VipsError) -> VipsImage {
        let table = gradientTable(stops, onWhite: !keepsAlpha)
        return try VipsImage.make("draw a gradient") { out in
            table.withUnsafeBufferPointer { lut in
                cvips_gradient(
                    Int32(width), Int32(height), radial ? 1 : 0, parameters, lut.baseAddress, Int32(gradientTableSize),
                    keepsAlpha ? 4 : 3, out)
            }
        }
    }

    /// The gradient's colours at evenly spaced t from 0 to 1, RGBA, interpolated as CSS does:
    /// in sRGB with premultiplied alpha, each end colour held beyond its stop. `onWhite` lays
    /// them on white here, for 4,096 colours rather than every pixel (alpha then 255).
    static func gradientTable(_ stops: [GradientStop], onWhite: Bool = false) -> [UInt8] {
        var table = [UInt8](repeating: 0, count: gradientTableSize * 4)
        func premultiplied(_ color: Color) -> [Double] {
            let alpha = Double(color.alpha) / 255
            return [Double(color.red) * alpha, Double(color.green) * alpha, Double(color.blue) * alpha, alpha]
        }
        let colours = stops.map { premultiplied($0.color) }
        for index in 0..<gradientTableSize {
            let t = Double(index) / Double(gradientTableSize - 1)
            var mixed = colours[colours.count - 1]
            if t <= stops[0].position {
                mixed = colours[0]
            } else if let next = stops.firstIndex(where: { $0.position > t }) {
                let (start, end) = (stops[next - 1].position, stops[next].position)
                let k = end > start ? (t - start) / (end - start) : 1
                mixed = zip(colours[next - 1], colours[next]).map { $0 + ($1 - $0) * k }
            }
            let alpha = mixed[3]
            for band in 0..<3 {
                // Premultiplied, a colour on white is itself plus white where it lets white through.
                let value = onWhite ? mixed[band] + 255 * (1 - alpha) : alpha > 0 ? mixed[band] / alpha : 0
                table[index * 4 + band] = UInt8(max(0, min(255, value.rounded())))
            }
            table[index * 4 + 3] = UInt8(max(0, min(255, ((onWhite ? 1 : alpha) * 255).rounded())))
        }
        return table
    }

    // MARK: - Patterns

    /// The largest pattern tile drawn, in pixels a side; a larger one is drawn at this size and enlarged.
    static let maximumTileSide = 1_024

    private static func patterned(
        _ pattern: BackgroundPattern, width: Int, height: Int, scale: Double, keepsAlpha: Bool
    ) throws(VipsError) -> VipsImage {
        // A tile is one period each way: a stripe's period runs along the diagonal.
        let periodPoints: Double =
            switch pattern.kind {
            case .dots, .grid: pattern.scale
            case .stripes: pattern.scale * 2.0.squareRoot()
            case .checks: pattern.scale * 2
            }
        let exact = periodPoints * scale
        // Finer than two pixels a period, a pattern is its average colour (as a screen shows it
        // from afar), and costs no more than a colour on any canvas.
        if exact < 2 {
            let tile = patternTile(pattern.kind, side: 16, ink: pattern.ink, paper: pattern.paper)
            var sums = [Double](repeating: 0, count: 4)
            for index in tile.indices {
                sums[index % 4] +=
                    Double(tile[index]) * (index % 4 == 3 ? 1 : Double(tile[index - index % 4 + 3]) / 255)
            }
            let alpha = sums[3] / 256
            let average = (0..<3).map { alpha > 0 ? sums[$0] / 256 / (alpha / 255) : 0 }
            let colour = Color(
                red: UInt8(max(0, min(255, average[0].rounded()))),
                green: UInt8(max(0, min(255, average[1].rounded()))),
                blue: UInt8(max(0, min(255, average[2].rounded()))), alpha: UInt8(max(0, min(255, alpha.rounded()))))
            return try VipsImage.solid(width: width, height: height, values: values(colour, keepsAlpha: keepsAlpha))
        }
        let side = max(2, min(maximumTileSide, Int(exact.rounded())))
        let tile = try VipsImage.fromPixels(
            patternTile(pattern.kind, side: side, ink: pattern.ink, paper: pattern.paper), width: side, height: side,
            bands: 4)
        let grow = exact / Double(side)
        // Premultiplied while resized, so a see-through paper gives the ink no dark fringe.
        let premultiplied = try tile.premultiply()
        let across = Int((Double(width) / (Double(side) * grow)).rounded(.up)) + 1
        let down = Int((Double(height) / (Double(side) * grow)).rounded(.up)) + 1
        var image = try premultiplied.map("repeat the pattern") { cvips_replicate($0, Int32(across), Int32(down), $1) }
        if abs(grow - 1) > 1e-9 { image = try image.resize(horizontal: grow, vertical: grow) }
        image = try image.unpremultiply().castToUInt8()
        image = try exactly(image, width: width, height: height)
        if !keepsAlpha { image = try image.flattenedOnWhite() }
        return image
    }

    /// One tile of a pattern, RGBA, `side` pixels square, the ink's edges antialiased by their
    /// distance from each pixel's centre.
    static func patternTile(_ kind: BackgroundPattern.Kind, side: Int, ink: Color, paper: Color) -> [UInt8] {
        let length = Double(side)
        let root2 = 2.0.squareRoot()
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        let inkValues = [ink.red, ink.green, ink.blue, ink.alpha].map(Double.init)
        let paperValues = [paper.red, paper.green, paper.blue, paper.alpha].map(Double.init)
        for y in 0..<side {
            for x in 0..<side {
                let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
                // Negative inside the ink, in pixels.
                let distance: Double
                switch kind {
                case .dots:
                    let (cx, cy) = (px - length / 2, py - length / 2)
                    distance = (cx * cx + cy * cy).squareRoot() - length / 4
                case .stripes:
                    // Across the stripes, one period is length / √2; the ink is its first half.
                    let period = length / root2
                    let across = (px + py).truncatingRemainder(dividingBy: length) / root2
                    distance =
                        across < period / 2
                        ? -min(across, period / 2 - across) : min(across - period / 2, period - across)
                case .grid:
                    let line = max(1, length / 16)
                    distance = min(min(px, length - px), min(py, length - py)) - line / 2
                case .checks:
                    let cell = length / 2
                    let edgeX = min(
                        px.truncatingRemainder(dividingBy: cell), cell - px.truncatingRemainder(dividingBy: cell))
                    let edgeY = min(
                        py.truncatingRemainder(dividingBy: cell), cell - py.truncatingRemainder(dividingBy: cell))
                    let inked = (px < cell) == (py < cell)
                    distance = (inked ? -1 : 1) * min(edgeX, edgeY)
                }
                let coverage = max(0, min(1, 0.5 - distance))
                // Premultiplied, so a see-through paper does not darken the ink's edge.
                let alpha = inkValues[3] / 255 * coverage + paperValues[3] / 255 * (1 - coverage)
                let offset = (y * side + x) * 4
                for band in 0..<3 {
                    let premultiplied =
                        inkValues[band] * inkValues[3] / 255 * coverage + paperValues[band] * paperValues[3] / 255
                        * (1 - coverage)
                    pixels[offset + band] = UInt8(max(0, min(255, (alpha > 0 ? premultiplied / alpha : 0).rounded())))
                }
                pixels[offset + 3] = UInt8(max(0, min(255, (alpha * 255).rounded())))
            }
        }
        return pixels
    }

    // MARK: - Paper

    /// The most pixels a paper's grain is made with before it is enlarged.
    static let maximumGrainPixels = 4_000_000

    private static func paper(
        _ texture: PaperTexture, width: Int, height: Int, scale: Double
    ) throws(VipsError) -> VipsImage {
        var (grainWidth, grainHeight) = (Double(width) / scale, Double(height) / scale)
        let reduction = min(1, (Double(maximumGrainPixels) / (grainWidth * grainHeight)).squareRoot())
        grainWidth = max(8, (grainWidth * reduction).rounded())
        grainHeight = max(8, (grainHeight * reduction).rounded())
        let kind: Int32 =
            switch texture {
            case .kraft: 0
            case .linen: 1
            case .watercolour: 2
            }
        let colour = [Double(texture.color.red), Double(texture.color.green), Double(texture.color.blue)]
        var image = try VipsImage.make("make the paper") { out in
            cvips_paper(Int32(grainWidth), Int32(grainHeight), kind, colour, out)
        }
        image = try image.copyToMemory()
        image = try image.resize(horizontal: Double(width) / grainWidth, vertical: Double(height) / grainHeight)
        image = try exactly(image, width: width, height: height)
        return image
    }
}

extension CollageRenderer {
    /// The most pixels a background drawn for a screen has: more than any display needs.
    public static let maximumDrawnBackgroundPixels = 4_000_000

    /// Draws a collage's background alone, as an export draws it, at `scale` pixels per canvas
    /// point (lowered to stay within ``maximumDrawnBackgroundPixels``), and writes it as a PNG:
    /// what the editor shows behind the items, so the screen shows what the export will.
    /// - Returns: the scale it was drawn at.
    /// - Throws: ``RenderError`` when the scale is outside ``CollageCore/Limits/exportScale``.
    @discardableResult
    public func writeBackground(
        of collage: Collage, scale requested: Double, photos: some PhotoSource, to output: URL
    ) throws(RenderError)
        -> Double
    {
        guard Limits.exportScale.contains(requested) else {
            throw .invalidOptions(
                "the scale must be a number of pixels per point \(Limits.describe(Limits.exportScale)), "
                    + "got \(JSONValue.format(requested))")
        }
        if let problem = collage.style.background.problem { throw .invalidDocument(["style.background: \(problem)"]) }
        let area = collage.canvas.width * collage.canvas.height
        let scale = min(requested, (Double(Self.maximumDrawnBackgroundPixels) / area).squareRoot())
        let width = max(1, Int((collage.canvas.width * scale).rounded()))
        let height = max(1, Int((collage.canvas.height * scale).rounded()))
        let image = try background(
            of: collage, width: width, height: height, scale: scale, keepsAlpha: true, photos: photos)
        try vips("draw the background") { () throws(VipsError) in
            try image.asNewSRGBPicture().save(to: output.path, format: .png, quality: 90)
        }
        return scale
    }

    /// The collage's background at `width` × `height` pixels: a photo read through `photos`,
    /// anything else drawn.
    func background(
        of collage: Collage, width: Int, height: Int, scale: Double, keepsAlpha: Bool, photos: some PhotoSource
    ) throws(RenderError) -> VipsImage {
        if case .photo(let reference, let blur) = collage.style.background {
            return try BackgroundFill.photo(
                .photo(reference), blur: blur, width: width, height: height, scale: scale, photos: photos,
                limits: limits)
        }
        return try vips("draw the background") { () throws(VipsError) -> VipsImage in
            try BackgroundFill.image(
                collage.style.background, width: width, height: height, scale: scale, keepsAlpha: keepsAlpha)
        }
    }
}
