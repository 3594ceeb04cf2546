import CollageCore

/// Per-cell effects: rounded corners, rotation, sticker outline and shadow.
enum CellEffects {
    /// Clears the corners outside quarter circles of `radius` pixels, antialiased.
    static func roundCorners(_ cell: VipsImage, radius: Double) throws(VipsError) -> VipsImage {
        let radius = min(radius, Double(min(cell.width, cell.height)) / 2)
        guard radius >= 0.5 else { return cell }
        let mask = try VipsImage.fromPixels(
            cornerMask(width: cell.width, height: cell.height, radius: radius), width: cell.width,
            height: cell.height, bands: 1)
        return try multiplyAlpha(cell, by: mask)
    }

    /// A one-band mask, 255 inside the rounded rectangle and 0 outside; the edge pixels hold their
    /// coverage so the curve is smooth.
    static func cornerMask(width: Int, height: Int, radius: Double) -> [UInt8] {
        var mask = [UInt8](repeating: 255, count: width * height)
        let span = Int(radius.rounded(.up))
        for row in 0..<min(span, height) {
            for column in 0..<min(span, width) {
                let dx = radius - (Double(column) + 0.5)
                let dy = radius - (Double(row) + 0.5)
                guard dx > 0, dy > 0 else { continue }
                let coverage = min(1, max(0, radius - (dx * dx + dy * dy).squareRoot() + 0.5))
                let value = UInt8((coverage * 255).rounded())
                // The same value mirrors into all four corners.
                for (x, y) in [
                    (column, row), (width - 1 - column, row), (column, height - 1 - row),
                    (width - 1 - column, height - 1 - row),
                ] {
                    mask[y * width + x] = min(mask[y * width + x], value)
                }
            }
        }
        return mask
    }

    /// The cell mirrored as `look` asks (before anything drawn around it, such as an outline or a shadow).
    static func flip(_ cell: VipsImage, as look: ItemLook) throws(VipsError) -> VipsImage {
        var image = cell
        if look.flipsHorizontally { image = try image.flipped(vertically: false) }
        if look.flipsVertically { image = try image.flipped(vertically: true) }
        return image
    }

    /// The layer with its alpha scaled by `opacity` (an opaque RGB layer gains an alpha band), so
    /// an item see-through as a whole, its outline and shadow with it, as CSS opacity shows it.
    static func fade(_ layer: VipsImage, opacity: Double) throws(VipsError) -> VipsImage {
        guard opacity < 1 else { return layer }
        if layer.bands == 3 { return try layer.appendingBand(value: (255 * opacity).rounded()) }
        let alpha = try layer.extractBands(layer.bands - 1, count: 1).linear(multiply: opacity, add: 0).castToUInt8()
        return try layer.extractBands(0, count: layer.bands - 1).joining(alpha)
    }

    /// Scales the alpha band of a cell by a one-band 0–255 mask; an opaque RGB cell takes the mask as its alpha.
    static func multiplyAlpha(_ cell: VipsImage, by mask: VipsImage) throws(VipsError) -> VipsImage {
        if cell.bands == 3 { return try cell.joining(mask) }
        let alpha = try cell.extractBands(3, count: 1).multiplied(by: mask).linear(multiply: 1.0 / 255, add: 0)
            .castToUInt8()
        return try cell.extractBands(0, count: 3).joining(alpha)
    }

    /// Rotates clockwise about the centre. Premultiplying first keeps edges from darkening, and a
    /// one-pixel transparent border lets the interpolator antialias the outer edge.
    static func rotate(_ cell: VipsImage, degrees: Double) throws(VipsError) -> VipsImage {
        let cell = cell.bands == 3 ? try cell.appendingBand(value: 255) : cell
        return try cell.premultiply().embed(x: 1, y: 1, width: cell.width + 2, height: cell.height + 2)
            .rotate(degrees: degrees).unpremultiply().castToUInt8()
    }

    /// Puts an outline `width` pixels wide (white unless `color` says otherwise) around the
    /// opaque part of an RGBA image, grown outwards by embedding the image in a margin first.
    /// Hair-like parts thinner than a 125th of the sticker (whiskers, hairs) get no ring of their
    /// own and are drawn as they are, and the ring is closed by a disc as wide as it, so the
    /// notches between parts are round (see ``OutlineCore``). Nothing else of the image shows past
    /// the outline's outer edge: a faint haze reaching further (fur's glow) would otherwise float
    /// outside the die-cut shape. `planning` is the sticker at its plan's size, made from its own
    /// file and mirrored as `image` is (see ``StickerPlacement``): which parts are thin is decided
    /// on it, the same whatever size the sticker is drawn at; without it, on `image` at that size.
    static func outline(
        _ image: VipsImage, width: Double, color: [Double] = [255, 255, 255, 255], planning: VipsImage? = nil
    ) throws(VipsError) -> (VipsImage, margin: Int) {
        let (line, margin, coverage) = try ring(
            around: image, width: width, color: color, leavingOutThinParts: true, planning: planning)
        let padded = try image.embed(x: margin, y: margin, width: line.width, height: line.height)
        // A sticker with nothing half opaque has no outline to bound it: it stays as it is.
        guard let coverage else { return (try line.compositing([(padded, 0, 0)]), margin) }
        let bounded = try padded.extractBands(0, count: 3).joining(
            padded.extractBands(3, count: 1).multiplied(by: coverage).linear(multiply: 1.0 / 255, add: 0)
                .castToUInt8())
        return (try line.compositing([(bounded, 0, 0)]), margin)
    }

    /// The outline alone: `color` everywhere within `width` pixels of the image's at least half
    /// opaque pixels (but for small islands of them far from the rest, and with
    /// `leavingOutThinParts`, a sticker's, for hair-like parts thinner than a 125th of the image,
    /// and with the ring closed by a disc as wide: see ``OutlineCore``), on an image grown by the
    /// returned margin on every side; and where the image may show (0–255, one band: 255 inside
    /// the outline's outer edge, antialiased across it, and on the thin parts left out and a pixel
    /// around them), `nil` when no pixel is half opaque (there is no outline). The thin parts are
    /// decided on `planning` (see ``outline(_:width:color:planning:)``).
    static func ring(
        around image: VipsImage, width: Double, color: [Double], leavingOutThinParts: Bool = false,
        planning: VipsImage? = nil
    ) throws(VipsError) -> (VipsImage, margin: Int, coverage: VipsImage?) {
        let margin = Int(width.rounded(.up)) + 2
        let canvasWidth = image.width + 2 * margin
        let canvasHeight = image.height + 2 * margin
        let alpha = try image.extractBands(3, count: 1)
            .embed(x: margin, y: margin, width: canvasWidth, height: canvasHeight).pixels()
        // Distances from the subject's at least half opaque pixels; the line's edge is antialiased
        // over the pixel where the distance crosses the width.
        let thinRadius =
            leavingOutThinParts ? OutlineCore.thinRadius(width: image.width, height: image.height, ringWidth: width) : 0
        // A sticker's ring is rounded where its parts' rings meet; a text's keeps its letters apart.
        let roundingRadius = leavingOutThinParts ? width : 0
        let plan =
            thinRadius > 0
            ? try thickPlan(
                of: planning.flatMap { $0.bands == 4 ? $0 : nil } ?? image, drawnWidth: image.width, radius: thinRadius)
            : nil
        let (imageWidth, imageHeight) = (Double(image.width), Double(image.height))
        let core = OutlineCore.squaredDistances(
            alpha: alpha, width: canvasWidth, height: canvasHeight, ringWidth: width, thinRadius: thinRadius,
            roundingRadius: roundingRadius,
            thickInPlan: plan.map { plan in
                { index in
                    plan.holds(
                        x: (Double(index % canvasWidth - margin) + 0.5) / imageWidth,
                        y: (Double(index / canvasWidth - margin) + 0.5) / imageHeight)
                }
            })
        let opacity = (color.count > 3 ? color[3] : 255) / 255
        let coverage = OutlineCore.coverage(
            squared: core.squared, width: canvasWidth, height: canvasHeight, ringWidth: width,
            roundingRadius: roundingRadius)
        let ring = opacity >= 1 ? coverage : coverage.map { UInt8((Double($0) * opacity).rounded()) }
        let line = try VipsImage.solid(width: canvasWidth, height: canvasHeight, values: Array(color.prefix(3)))
            .joining(VipsImage.fromPixels(ring, width: canvasWidth, height: canvasHeight, bands: 1))
        guard core.hasCore else { return (line, margin, nil) }
        var shown = coverage
        if let thin = core.thin {
            // A thin part shows whole, with the pixel around it that antialiases its edges.
            for y in 0..<canvasHeight {
                for x in 0..<canvasWidth where thin[y * canvasWidth + x] {
                    for row in max(0, y - 1)...min(canvasHeight - 1, y + 1) {
                        for column in max(0, x - 1)...min(canvasWidth - 1, x + 1) {
                            shown[row * canvasWidth + column] = 255
                        }
                    }
                }
            }
        }
        return (line, margin, try VipsImage.fromPixels(shown, width: canvasWidth, height: canvasHeight, bands: 1))
    }

    /// Where a sticker drawn `drawnWidth` pixels wide with a thin-part disc of `radius` pixels is
    /// thick, decided on `sticker` (RGBA) brought to its plan's size (see ``OutlineCore/ThickPlan``).
    private static func thickPlan(
        of sticker: VipsImage, drawnWidth: Int, radius: Double
    ) throws(VipsError) -> OutlineCore.ThickPlan {
        let size = ComicLook.planSize(width: sticker.width, height: sticker.height)
        var plan = try sticker.extractBands(3, count: 1)
        if size.width != sticker.width || size.height != sticker.height {
            plan = try plan.resize(
                horizontal: Double(size.width) / Double(sticker.width),
                vertical: Double(size.height) / Double(sticker.height))
        }
        let pixels = try plan.castToUInt8().pixels()
        return OutlineCore.ThickPlan(
            alpha: pixels, width: plan.width, height: plan.height,
            radius: radius * Double(plan.width) / Double(drawnWidth))
    }

    /// The largest blur a shadow is computed with at full size; larger ones are computed on a
    /// reduced copy.
    static let largestShadowSigma = 8.0

    /// Puts a soft shadow below an RGBA image, `sigma` pixels of blur, offset downwards.
    static func shadow(
        _ image: VipsImage, sigma: Double, opacity: Double = 0.45
    ) throws(VipsError) -> (
        VipsImage, margin: Int
    ) {
        let offset = Int((sigma * 0.6).rounded())
        let margin = Int((sigma * 3).rounded(.up)) + offset
        let canvasWidth = image.width + 2 * margin
        let canvasHeight = image.height + 2 * margin
        let placed = try image.extractBands(3, count: 1)
            .embed(x: margin, y: margin + offset, width: canvasWidth, height: canvasHeight)
        let blurred = try softened(placed, sigma: sigma)
        let alpha = try blurred.linear(multiply: opacity, add: 0).castToUInt8()
        let shade = try VipsImage.solid(width: canvasWidth, height: canvasHeight, values: [0, 0, 0]).joining(alpha)
        return (try shade.compositing([(image, margin, margin)]), margin)
    }

    /// Casts a shadow of an RGBA image's alpha, `offsetX`/`offsetY` pixels away and `sigma`
    /// pixels soft, in `color` (its alpha is the shadow's opacity), and puts the image on it. The
    /// result grows by as much on each side as on its opposite: `left` and `top` say by how much
    /// the image's corner moved.
    static func dropShadow(
        _ image: VipsImage, sigma: Double, offsetX: Double, offsetY: Double, color: Color
    ) throws(VipsError) -> (image: VipsImage, left: Int, top: Int) {
        let image = image.bands == 3 ? try image.appendingBand(value: 255) : image
        let reach = Int((3 * sigma).rounded(.up)) + 1
        let dx = Int(offsetX.rounded())
        let dy = Int(offsetY.rounded())
        // Grown alike on opposite sides, so the image's centre stays the frame's: a turned
        // item turns about its centre.
        let left = reach + abs(dx)
        let top = reach + abs(dy)
        let width = image.width + 2 * left
        let height = image.height + 2 * top
        let placed = try image.extractBands(3, count: 1).embed(x: left + dx, y: top + dy, width: width, height: height)
        let blurred = sigma >= 0.3 ? try softened(placed, sigma: sigma) : placed
        let alpha = try blurred.linear(multiply: color.opacity, add: 0).castToUInt8()
        let shade = try VipsImage.solid(width: width, height: height, values: color.channels).joining(alpha)
        return (try shade.compositing([(image, left, top)]), left, top)
    }

    /// A one-band image blurred by `sigma` pixels. A blur's cost grows with its radius, and the
    /// radius with the picture: a large one is blurred on a reduced copy (a shadow has no detail
    /// to lose) and enlarged back, so its cost stays in proportion to the pixels, whatever the size.
    private static func softened(_ placed: VipsImage, sigma: Double) throws(VipsError) -> VipsImage {
        let reduction = min(1, Self.largestShadowSigma / sigma)
        guard reduction < 1 else { return try placed.gaussianBlur(sigma: sigma) }
        let (width, height) = (placed.width, placed.height)
        let small = try placed.resize(horizontal: reduction, vertical: reduction).copyToMemory()
        var grown = try small.gaussianBlur(sigma: sigma * reduction).copyToMemory()
            .resize(horizontal: Double(width) / Double(small.width), vertical: Double(height) / Double(small.height))
        if grown.width > width || grown.height > height {
            grown = try grown.extractArea(x: 0, y: 0, width: min(width, grown.width), height: min(height, grown.height))
        }
        if grown.width < width || grown.height < height {
            grown = try grown.extendingEdges(width: width, height: height)
        }
        return grown
    }
}
