import CollageCore
import Foundation

/// The sticker effects, drawn over a sticker's own RGBA pixels before its outline and shadow.
///
/// Every size (an ink line's width, the light's softness) is a fraction of the sticker's shorter
/// side, so a sticker looks the same on screen and in a print many times larger.
enum StickerLooks {
    /// `image` (RGBA, 8 bits) with `effect` drawn on it, the same size. `planning`, for Comic and
    /// Halftone, is the same sticker at the size of their plan for its file (see
    /// ``ComicLook/planSize(width:height:)``), so that the editor's drawing and an export of any
    /// size find the same regions and lines.
    static func apply(
        _ effect: StickerEffect, to image: VipsImage, planning: VipsImage? = nil
    ) throws(VipsError)
        -> VipsImage
    {
        let rgba = image.bands == 4 ? image : try image.appendingBand(value: 255)
        let (width, height) = (rgba.width, rgba.height)
        guard width >= 3, height >= 3 else { return rgba }
        var pixels = try rgba.pixels()
        let original = pixels
        switch effect {
        case .comic, .halftone:
            let weight = ComicLook.outlineWeight(width: width, height: height)
            let blurredAlpha = try rgba.extractBands(3, count: 1).gaussianBlur(sigma: weight).castToUInt8().pixels()
            let plan = try planning.map { image throws(VipsError) in
                let rgba = image.bands == 4 ? image : try image.appendingBand(value: 255)
                return (pixels: try rgba.pixels(), width: rgba.width, height: rgba.height)
            }
            ComicLook(width: width, height: height, halftone: effect == .halftone)
                .draw(&pixels, blurredAlpha: blurredAlpha, planning: plan)
        case .puffy:
            let sigma = max(1.5, 0.06 * Double(min(width, height)))
            let alpha = try rgba.extractBands(3, count: 1)
            let heights = try blurred(alpha, sigma: sigma)
            let contact = try blurred(alpha, sigma: max(1, sigma * 0.3))
            puffy(&pixels, heights: heights, contact: contact, width: width, height: height)
        case .shiny: shiny(&pixels, width: width, height: height)
        }
        // Comic and Halftone make the silhouette firm and ink its soft edge themselves.
        if effect != .comic, effect != .halftone { fadeOnFaintPixels(&pixels, from: original) }
        return try VipsImage.fromPixels(pixels, width: width, height: height, bands: 4)
    }

    /// `alpha` (one band) blurred by `sigma`, 0–255 a pixel, at its size. A wide blur is taken on
    /// a copy reduced until the blur is 4 of its pixels, then read back between that copy's pixels
    /// along smooth cubic curves: what it gives is smooth at that scale anyway, and Puffy's blur
    /// of a 3,000 px sticker (σ 150 px) took 6 s at full size. Read back that way the heights
    /// also keep their fractions: in whole levels a large Puffy sticker's light showed their
    /// steps as thin contour lines, and read back straight between pixels as facets.
    static func blurred(_ alpha: VipsImage, sigma: Double) throws(VipsError) -> [Double] {
        let (width, height) = (alpha.width, alpha.height)
        let factor = sigma / 4
        guard factor > 2 else { return try alpha.gaussianBlur(sigma: sigma).castToUInt8().pixels().map(Double.init) }
        let small = try alpha.resize(horizontal: 1 / factor, vertical: 1 / factor).gaussianBlur(sigma: 4)
            .castToUInt8()
        let (smallWidth, smallHeight) = (small.width, small.height)
        let values = try small.pixels()
        // Along the rows first (each of the copy's rows to the full width), then down the columns.
        let across = cubicTaps(count: width, from: smallWidth)
        var wide = [Double](repeating: 0, count: smallHeight * width)
        for row in 0..<smallHeight {
            for (x, tap) in across.enumerated() {
                var sum = 0.0
                for k in 0..<4 { sum += tap.weights[k] * Double(values[row * smallWidth + tap.indices[k]]) }
                wide[row * width + x] = sum
            }
        }
        let down = cubicTaps(count: height, from: smallHeight)
        var result = [Double](repeating: 0, count: width * height)
        for (y, tap) in down.enumerated() {
            for x in 0..<width {
                var sum = 0.0
                for k in 0..<4 { sum += tap.weights[k] * wide[tap.indices[k] * width + x] }
                result[y * width + x] = min(255, max(0, sum))
            }
        }
        return result
    }

    /// For each of `count` pixels spread over `source` ones, the four source pixels around it and
    /// their Catmull-Rom weights (a cubic through the samples, its slope continuous).
    static func cubicTaps(count: Int, from source: Int) -> [(indices: [Int], weights: [Double])] {
        (0..<count).map { index in
            let position = (Double(index) + 0.5) * Double(source) / Double(count) - 0.5
            let base = Int(position.rounded(.down))
            let t = position - Double(base)
            let (t2, t3) = (t * t, t * t * t)
            let weights = [
                (-t3 + 2 * t2 - t) / 2, (3 * t3 - 5 * t2 + 2) / 2, (-3 * t3 + 4 * t2 + t) / 2, (t3 - t2) / 2,
            ]
            let indices = (-1...2).map { min(source - 1, max(0, base + $0)) }
            return (indices, weights)
        }
    }

    /// Below half opacity a pixel is the sticker's soft edge (a strand's tip, the last of a
    /// glow): an effect's bright colours there would show the faint edge as a tinted patch
    /// reaching past the subject, so the effect fades out with the opacity.
    static func fadeOnFaintPixels(_ pixels: inout [UInt8], from original: [UInt8]) {
        for index in stride(from: 0, to: original.count, by: 4) {
            let alpha = Int(original[index + 3])
            guard alpha > 0, alpha < 128 else { continue }
            for channel in 0..<3 {
                let (was, drawn) = (Int(original[index + channel]), Int(pixels[index + channel]))
                pixels[index + channel] = UInt8(was + (drawn - was) * alpha / 128)
            }
        }
    }

    private static func luminance(_ pixels: [UInt8], _ index: Int) -> Double {
        0.299 * Double(pixels[index * 4]) + 0.587 * Double(pixels[index * 4 + 1]) + 0.114
            * Double(pixels[index * 4 + 2])
    }

    /// Lit from above as if inflated: the height is the blurred alpha, its slope turns the
    /// light, a soft highlight near the top, and a faint contact shadow just below.
    static func puffy(_ pixels: inout [UInt8], heights: [Double], contact: [Double], width: Int, height: Int) {
        let light = (x: -0.35, y: -0.75, z: 0.56)
        let norm = (light.x * light.x + light.y * light.y + light.z * light.z).squareRoot()
        let (lx, ly, lz) = (light.x / norm, light.y / norm, light.z / norm)
        let strength = Double(min(width, height)) * 0.09 / 255
        let drop = max(1, min(width, height) / 100)
        var result = pixels
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                let alpha = Double(pixels[index * 4 + 3])
                if alpha == 0 {
                    // The contact shadow, in the room around the subject.
                    let source = y - drop >= 0 ? contact[(y - drop) * width + x] : 0
                    let shade = source * 0.3
                    if shade >= 1 {
                        (result[index * 4], result[index * 4 + 1], result[index * 4 + 2], result[index * 4 + 3]) = (
                            0, 0, 0, UInt8(shade)
                        )
                    }
                    continue
                }
                let left = heights[y * width + max(0, x - 1)]
                let right = heights[y * width + min(width - 1, x + 1)]
                let up = heights[max(0, y - 1) * width + x]
                let down = heights[min(height - 1, y + 1) * width + x]
                var (nx, ny, nz) = (-(right - left) * strength, -(down - up) * strength, 1.0)
                let length = (nx * nx + ny * ny + nz * nz).squareRoot()
                (nx, ny, nz) = (nx / length, ny / length, nz / length)
                let diffuse = max(0, nx * lx + ny * ly + nz * lz)
                let factor = 0.55 + 0.65 * diffuse / lz
                let highlight = pow(diffuse, 24) * 110
                for channel in 0..<3 {
                    let value = Double(pixels[index * 4 + channel]) * factor + highlight
                    result[index * 4 + channel] = UInt8(min(255, max(0, value)).rounded())
                }
            }
        }
        pixels = result
    }

    /// An iridescent film: hues running diagonally across the sticker, shifted by its own light
    /// and dark, laid over its colours, with a few bright diagonal glints.
    static func shiny(_ pixels: inout [UInt8], width: Int, height: Int) {
        let band = Double(min(width, height)) * 0.3
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                guard pixels[index * 4 + 3] > 0 else { continue }
                let light = luminance(pixels, index) / 255
                let position = Double(x) / Double(width) * 0.6 + Double(y) / Double(height) * 0.4
                let hue = (position + light * 0.5).truncatingRemainder(dividingBy: 1)
                let film = rainbow(hue)
                let glint = pow(max(0, sin((Double(x) + Double(y)) / band * .pi)), 12) * 0.35
                for channel in 0..<3 {
                    let own = Double(pixels[index * 4 + channel])
                    let sheen = film[channel] * (0.45 + 0.55 * light)
                    let value = own * 0.5 + sheen * 0.5 + 255 * glint
                    pixels[index * 4 + channel] = UInt8(min(255, max(0, value)).rounded())
                }
            }
        }
    }

    /// A saturated, light colour of `hue` (0…1 round the wheel), 0–255 a channel.
    static func rainbow(_ hue: Double) -> [Double] {
        let sector = hue * 6
        let fraction = sector - sector.rounded(.down)
        let (high, low, rising, falling) = (255.0, 110.0, 110 + 145 * fraction, 255 - 145 * fraction)
        switch Int(sector) % 6 {
        case 0: return [high, rising, low]
        case 1: return [falling, high, low]
        case 2: return [low, high, rising]
        case 3: return [low, falling, high]
        case 4: return [rising, low, high]
        default: return [high, low, falling]
        }
    }
}
