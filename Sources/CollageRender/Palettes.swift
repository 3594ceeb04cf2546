/// Median cut: a sample of colours split, box by box, at the median of the box's widest channel
/// (among the first `channels`), until there are `count` boxes; each box gives its mean colour.
enum MedianCut {
    /// The mean colours of `sample` split into at most `count` boxes (fewer when the sample has
    /// fewer distinct colours), splitting along the first `channels` channels only.
    static func colours(of sample: [SIMD4<UInt8>], count: Int, channels: Int) -> [SIMD4<Double>] {
        guard !sample.isEmpty, count > 0 else { return [] }
        struct Box {
            var members: [SIMD4<UInt8>]
            var widest: Int
            var channel: Int
        }
        func box(_ members: [SIMD4<UInt8>]) -> Box {
            var (lowest, highest) = (SIMD4<UInt8>(repeating: 255), SIMD4<UInt8>(repeating: 0))
            for member in members {
                lowest = pointwiseMin(lowest, member)
                highest = pointwiseMax(highest, member)
            }
            var (widest, channel) = (0, 0)
            for candidate in 0..<channels where Int(highest[candidate]) - Int(lowest[candidate]) > widest {
                (widest, channel) = (Int(highest[candidate]) - Int(lowest[candidate]), candidate)
            }
            return Box(members: members, widest: members.count > 1 ? widest : 0, channel: channel)
        }
        var boxes = [box(sample)]
        while boxes.count < count {
            var best = 0
            for index in boxes.indices where boxes[index].widest > boxes[best].widest { best = index }
            guard boxes[best].widest > 0 else { break }
            let channel = boxes[best].channel
            let sorted = boxes[best].members.sorted { $0[channel] < $1[channel] }
            let middle = sorted.count / 2
            boxes[best] = box(Array(sorted[..<middle]))
            boxes.append(box(Array(sorted[middle...])))
        }
        return boxes.map { box in
            var sum = SIMD4<Double>(repeating: 0)
            for member in box.members {
                sum += SIMD4<Double>(Double(member[0]), Double(member[1]), Double(member[2]), Double(member[3]))
            }
            return sum / Double(box.members.count)
        }
    }

    /// For every colour at five bits a channel, the index of the nearest of `colours` (by red,
    /// green and blue weighted as the eye weighs them).
    static func nearestTable(_ colours: [SIMD4<Double>]) -> [UInt8] {
        var nearest = [UInt8](repeating: 0, count: 32 * 32 * 32)
        guard !colours.isEmpty else { return nearest }
        for red in 0..<32 {
            for green in 0..<32 {
                for blue in 0..<32 {
                    let (r, g, b) = (Double(red * 8 + 4), Double(green * 8 + 4), Double(blue * 8 + 4))
                    var (best, distance) = (0, Double.infinity)
                    for (index, colour) in colours.enumerated() {
                        let d =
                            (colour[0] - r) * (colour[0] - r) * 0.3 + (colour[1] - g) * (colour[1] - g) * 0.59
                            + (colour[2] - b) * (colour[2] - b) * 0.11
                        if d < distance { (best, distance) = (index, d) }
                    }
                    nearest[(red << 10) | (green << 5) | blue] = UInt8(best)
                }
            }
        }
        return nearest
    }

    /// `colour` (0–255 a channel, alpha in the fourth) as 0xAARRGGBB.
    static func packed(_ colour: SIMD4<Double>) -> UInt32 {
        func byte(_ value: Double) -> UInt32 { UInt32(max(0, min(255, value.rounded()))) }
        return byte(colour[3]) << 24 | byte(colour[0]) << 16 | byte(colour[1]) << 8 | byte(colour[2])
    }
}

/// 256 colours made for one collage (median cut of its finished frame, with white and the sparks'
/// gold kept), and a table from every 5-bit-a-channel colour to its nearest, for the GIF's frames.
/// A palette that keeps clear pixels (a live sticker's) gives its first entry to them: a GIF has
/// one fully clear colour and no partly clear ones, so a pixel under half opaque is clear and
/// the rest lie on white, as a messenger's light theme shows them.
struct GIFPalette {
    /// 0xAARRGGBB, 256 entries.
    let colours: [UInt32]
    private let nearest: [UInt8]
    private let keepsClear: Bool

    init(_ rgba: [UInt8], width: Int, height: Int, keepsClear: Bool = false) {
        let count = width * height
        let step = max(1, count / 60_000)
        var sample: [SIMD4<UInt8>] = []
        for index in stride(from: 0, to: count, by: step) where !keepsClear || rgba[index * 4 + 3] >= 128 {
            let pixel = Self.onWhite(rgba, index)
            sample.append(SIMD4(pixel.0, pixel.1, pixel.2, 255))
        }
        // Every entry a colour of its own: FFmpeg's GIF encoder shrinks each frame's palette to
        // the colours it uses, matching them by value, and with an entry twice (white from the
        // median cut and again as kept, black as padding) it gave pixels another entry's index:
        // a white page came out near-black, green eyes brown.
        let clear = SIMD4<Double>(0, 0, 0, 0)
        var colours: [SIMD4<Double>] = keepsClear ? [clear] : []
        var seen = Set<UInt32>(colours.map(MedianCut.packed))
        let cut = sample.isEmpty ? [] : MedianCut.colours(of: sample, count: 254 - colours.count, channels: 3)
        for colour in cut + [SIMD4(255, 255, 255, 255), SIMD4(255, 200, 60, 255)]
        where seen.insert(MedianCut.packed(colour)).inserted {
            colours.append(colour)
        }
        // Unused entries, distinct dark greys and blues, fill it to 256.
        var filler = 0
        while colours.count < 256 {
            let padding = SIMD4<Double>(Double(filler & 7), Double(filler & 7), Double(filler >> 3), 255)
            if seen.insert(MedianCut.packed(padding)).inserted { colours.append(padding) }
            filler += 1
        }
        self.colours = colours.map(MedianCut.packed)
        self.keepsClear = keepsClear
        // The clear entry is never a visible pixel's nearest.
        nearest =
            keepsClear
            ? MedianCut.nearestTable(Array(colours.dropFirst())).map { $0 + 1 } : MedianCut.nearestTable(colours)
    }

    /// Pixel `index` of `rgba` over white.
    private static func onWhite(_ rgba: [UInt8], _ index: Int) -> (UInt8, UInt8, UInt8) {
        let alpha = Int(rgba[index * 4 + 3])
        func channel(_ value: UInt8) -> UInt8 { UInt8((Int(value) * alpha + 255 * (255 - alpha) + 127) / 255) }
        return (channel(rgba[index * 4]), channel(rgba[index * 4 + 1]), channel(rgba[index * 4 + 2]))
    }

    /// Each pixel's palette index, with a 4 × 4 ordered dither so gradients do not band.
    func indices(of rgba: [UInt8], width: Int, height: Int) -> [UInt8] {
        let bayer: [Int] = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5]
        var result = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                if keepsClear, rgba[index * 4 + 3] < 128 { continue }
                let offset = bayer[(y & 3) * 4 + (x & 3)] / 2 - 4
                func level(_ value: UInt8) -> Int { min(31, max(0, (Int(value) + offset) >> 3)) }
                let (red, green, blue) = Self.onWhite(rgba, index)
                result[index] = nearest[(level(red) << 10) | (level(green) << 5) | level(blue)]
            }
        }
        return result
    }
}

/// One palette for all of a moving sticker's frames (an APNG takes one), with alpha: entry 0 is
/// clear, a few entries are the see-through colours of the sticker's soft edge, and the rest are
/// a median cut of its opaque pixels. No dither: a palette APNG is made to fit a byte limit, and
/// dithered pixels deflate badly and differ from frame to frame. A class: one palette and its
/// cache of nearest colours serve every frame.
final class StickerPalette {
    /// 0xAARRGGBB (alpha not premultiplied), 256 entries.
    let colours: [UInt32]
    private let solid: [SIMD4<Double>]
    /// Each 5-bit-a-channel colour's nearest solid entry, found when first met (-1: not yet): a
    /// sticker meets a few thousand of the 32,768.
    private var nearestSolid = [Int16](repeating: -1, count: 32 * 32 * 32)
    private let edges: [(index: UInt8, colour: SIMD4<Double>)]
    /// The solid entries, as ``ComicLook/perceived(_:)`` sees them, for a palette of at most
    /// ``fewColours`` solid entries; `nil` for a median cut's.
    private let perceivedSolid: [(Double, Double, Double)]?
    /// Up to this many solid entries the palette keeps small parts' hues (see the init).
    static let fewColours = 64
    /// Pixels less opaque than this are clear.
    static let clearBelow: UInt8 = 16
    /// Pixels at least this opaque are solid; those between are the soft edge.
    static let opaque: UInt8 = 240

    /// A palette of at most `count` entries (2–256) for `frames` (RGBA, straight alpha).
    init(frames: [[UInt8]], count: Int) {
        let picked = Set([0, frames.count / 4, frames.count / 2, frames.count * 3 / 4, frames.count - 1])
            .filter { frames.indices.contains($0) }.sorted()
        var (solidPixels, softPixels): ([SIMD4<UInt8>], [SIMD4<UInt8>]) = ([], [])
        for frame in picked.map({ frames[$0] }) {
            let pixels = frame.count / 4
            let step = max(1, pixels * picked.count / 60_000)
            for pixel in stride(from: 0, to: pixels, by: step) {
                let alpha = frame[pixel * 4 + 3]
                guard alpha >= Self.clearBelow else { continue }
                let colour = SIMD4(frame[pixel * 4], frame[pixel * 4 + 1], frame[pixel * 4 + 2], alpha)
                if alpha >= Self.opaque { solidPixels.append(colour) } else { softPixels.append(colour) }
            }
        }
        let available = max(2, min(256, count)) - 1
        let softCount = softPixels.isEmpty ? 0 : min(available - 1, max(4, available / 8))
        let softColours = MedianCut.colours(of: softPixels, count: softCount, channels: 4)
        let solidCount = available - softColours.count
        var solidColours: [SIMD4<Double>]
        if solidCount <= Self.fewColours, !solidPixels.isEmpty {
            // Few colours: the comic look's palette, where a small part unlike the rest keeps a
            // colour of its own (a median cut into 19 boxes, for a pack of moving stickers at 24
            // colours, turned a cat's green eyes to the brown of its fur), and the pixels go to
            // the nearest entry as the eye judges it.
            let values = solidPixels.flatMap { [Float($0[0]), Float($0[1]), Float($0[2])] }
            solidColours = ComicLook.palette(
                values, alpha: [Float](repeating: 1, count: solidPixels.count), count: solidCount
            ).map { SIMD4($0[0].rounded(), $0[1].rounded(), $0[2].rounded(), 255) }
            perceivedSolid = solidColours.map { ComicLook.perceived(($0[0], $0[1], $0[2])) }
        } else {
            solidColours = MedianCut.colours(of: solidPixels, count: solidCount, channels: 3)
                .map { SIMD4($0[0], $0[1], $0[2], 255) }
            perceivedSolid = nil
        }
        if solidColours.isEmpty { solidColours = [SIMD4(255, 255, 255, 255)] }
        var colours: [UInt32] = [0]
        colours += solidColours.map(MedianCut.packed)
        edges = softColours.enumerated().map { (UInt8(colours.count + $0.offset), $0.element) }
        colours += softColours.map(MedianCut.packed)
        while colours.count < 256 { colours.append(0) }
        self.colours = colours
        solid = solidColours
    }

    /// Each pixel's palette index.
    func indices(of rgba: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: rgba.count / 4)
        for pixel in result.indices {
            let (red, green, blue, alpha) = (
                rgba[pixel * 4], rgba[pixel * 4 + 1], rgba[pixel * 4 + 2], rgba[pixel * 4 + 3]
            )
            guard alpha >= Self.clearBelow else { continue }
            guard alpha < Self.opaque, !edges.isEmpty else {
                result[pixel] = solidIndex(red, green, blue)
                continue
            }
            let colour = SIMD4(Double(red), Double(green), Double(blue), Double(alpha))
            var (best, distance) = (edges[0].index, Double.infinity)
            for edge in edges {
                // Alpha counts twice: a wrong opacity shows as a halo, a slightly wrong colour at
                // a soft edge does not.
                let difference = edge.colour - colour
                let d = (difference * difference * SIMD4(0.3, 0.59, 0.11, 2)).sum()
                if d < distance { (best, distance) = (edge.index, d) }
            }
            result[pixel] = best
        }
        return result
    }

    private func solidIndex(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> UInt8 {
        let key = Int(red >> 3) << 10 | Int(green >> 3) << 5 | Int(blue >> 3)
        if nearestSolid[key] < 0 {
            let centre = SIMD4(Double(red >> 3) * 8 + 4, Double(green >> 3) * 8 + 4, Double(blue >> 3) * 8 + 4, 0)
            var (best, distance) = (0, Double.infinity)
            if let perceivedSolid {
                best = ComicLook.nearestIndex(
                    ComicLook.perceived((centre[0], centre[1], centre[2])), in: perceivedSolid)
            } else {
                for (index, colour) in solid.enumerated() {
                    let difference = colour - centre
                    let d = (difference * difference * SIMD4(0.3, 0.59, 0.11, 0)).sum()
                    if d < distance { (best, distance) = (index, d) }
                }
            }
            nearestSolid[key] = Int16(best + 1)
        }
        return UInt8(nearestSolid[key])
    }
}
