import CollageCore
import CollageLibrary
import CollageRender
import Foundation

/// One stroke of the refine brush, in the sticker's own pixels.
public struct BrushStroke: Hashable, Sendable {
    /// What a stroke does.
    public enum Mode: String, CaseIterable, Sendable {
        /// Makes what it covers transparent.
        case erase
        /// Brings the photo's own pixels back where it covers.
        case restore
    }

    /// Erase or restore.
    public var mode: Mode
    /// Half the brush's width, in pixels of the sticker.
    public var radius: Double
    /// How much of the radius fades out: 0 is a hard edge, 1 fades from the centre.
    public var softness: Double
    /// The pointer's path, in pixels of the sticker (one point is a dab; points may lie past its
    /// sides, as far as the brush reaches).
    public var points: [Point]

    /// A stroke.
    public init(mode: Mode, radius: Double, softness: Double, points: [Point]) {
        self.mode = mode
        self.radius = radius
        self.softness = softness
        self.points = points
    }
}

/// Applies refine-brush strokes to a sticker: Erase takes away what the lift kept, Restore brings
/// back the photo's pixels it missed.
///
/// The brush is edge-aware, as a person expects of a cut-out tool: within the inner half of its
/// radius it does exactly what it is asked, and in the outer half it acts only on pixels whose
/// colour is like the photo's under the stroke, so a stroke along a subject's edge stops at the
/// edge instead of following the pointer's wobble into the subject (or out into the background).
public enum StickerRefinement {
    /// How unlike the stroke's colour (RGB distance, 0–441) a pixel in the brush's outer half
    /// may be and still be half affected: fur's own texture passes, a subject's edge does not.
    static let edgeColourDistance = 60.0

    /// How far the refine brush reaches past a sticker's box, on each side: a quarter of its
    /// longer side (16 to 512 pixels), so a part the model missed beside the subject (a hand, an
    /// ear) can be restored; less for a sticker near ``largestArea``, and none past it.
    public static func reach(width: Int, height: Int) -> Int {
        let reach = min(512, max(16, Int((Double(max(width, height)) * 0.25).rounded())))
        let (w, h, most) = (Double(width), Double(height), Double(largestArea))
        guard w * h < most else { return 0 }
        // (w + 2r)(h + 2r) ≤ most, solved for r.
        let fits = (-(w + h) + ((w + h) * (w + h) - 4 * (w * h - most)).squareRoot()) / 4
        return max(0, min(reach, Int(fits.rounded(.down))))
    }

    /// The most pixels the refine brush's picture has: the editor holds it several times over,
    /// and phones refuse canvases much past 16 megapixels.
    public static let largestArea = 16_000_000

    /// The part of the photo the refine brush works on for a `width` × `height` sticker whose
    /// top-left corner is `origin`: its box grown by ``reach(width:height:)`` on each side, as
    /// far as the photo goes (the box itself always, even where an outline took it past the photo).
    public static func area(
        width: Int, height: Int, origin: PixelPoint, photoWidth: Int, photoHeight: Int
    ) -> (x: Int, y: Int, width: Int, height: Int) {
        let reach = reach(width: width, height: height)
        let left = min(origin.x, max(0, origin.x - reach))
        let top = min(origin.y, max(0, origin.y - reach))
        let right = max(origin.x + width, min(photoWidth, origin.x + width + reach))
        let bottom = max(origin.y + height, min(photoHeight, origin.y + height + reach))
        return (left, top, right - left, bottom - top)
    }

    /// `sticker` (RGBA) with `strokes` applied in order (their points in its pixels); `photo` is
    /// the photo's pixels under it (RGB or RGBA, its size), where Restore takes its colours from
    /// and whose edges the brush follows. A library sticker is refined on the picture of what the
    /// brush reaches (``area(width:height:origin:photoWidth:photoHeight:)``), the sticker laid in it.
    /// - Throws: ``StickerError/invalidOptions(_:)`` when the two differ in size or the sticker has no alpha.
    public static func apply(_ strokes: [BrushStroke], to sticker: Bitmap, photo: Bitmap) throws(StickerError) -> Bitmap
    {
        guard sticker.channels == 4 else { throw .invalidOptions("a sticker to refine needs an alpha channel") }
        guard photo.width == sticker.width, photo.height == sticker.height, photo.channels >= 3 else {
            throw .invalidOptions(
                "the photo under the sticker is \(photo.width) × \(photo.height) pixels, the sticker "
                    + "\(sticker.width) × \(sticker.height)")
        }
        var pixels = sticker.pixels
        let (width, height, channels) = (sticker.width, sticker.height, photo.channels)
        var weights = [Float](repeating: 0, count: width * height)
        // What the strokes did, for what Erase leaves behind (see `clearingErasedLeftovers`).
        var marks = [StrokeMark](repeating: .none, count: width * height)
        for stroke in strokes where !stroke.points.isEmpty {
            let radius = max(0.5, stroke.radius)
            let hard = radius * (1 - min(1, max(0, stroke.softness)))
            var (minX, minY, maxX, maxY) = (width, height, -1, -1)
            // Each segment marks the pixels within its reach with the strongest weight any
            // segment gives them; the stroke is then applied once, so a slow stroke that lays
            // many points over one place does not erase harder there.
            let points = stroke.points
            for index in points.indices {
                let start = points[max(0, index - 1)]
                let end = points[index]
                let left = max(0, Int((min(start.x, end.x) - radius).rounded(.down)))
                let right = min(width - 1, Int((max(start.x, end.x) + radius).rounded(.up)))
                let top = max(0, Int((min(start.y, end.y) - radius).rounded(.down)))
                let bottom = min(height - 1, Int((max(start.y, end.y) + radius).rounded(.up)))
                guard left <= right, top <= bottom else { continue }
                (minX, minY, maxX, maxY) = (min(minX, left), min(minY, top), max(maxX, right), max(maxY, bottom))
                let (dx, dy) = (end.x - start.x, end.y - start.y)
                let lengthSquared = dx * dx + dy * dy
                // The stroke's colour: the photo's mean around each end of the segment, between
                // them along it (one pixel's colour is too noisy a guide on fur or grain).
                let (from, to) = (meanColour(photo, at: start), meanColour(photo, at: end))
                for y in top...bottom {
                    for x in left...right {
                        let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
                        let along =
                            lengthSquared > 0
                            ? min(1, max(0, ((px - start.x) * dx + (py - start.y) * dy) / lengthSquared)) : 0
                        let (nearestX, nearestY) = (start.x + along * dx, start.y + along * dy)
                        let distance = ((px - nearestX) * (px - nearestX) + (py - nearestY) * (py - nearestY))
                            .squareRoot()
                        guard distance < radius else { continue }
                        var weight = distance <= hard ? 1 : smoothFall((distance - hard) / max(1e-6, radius - hard))
                        let cell = y * width + x
                        if distance > radius / 2 {
                            let reference = (0..<3).map { from[$0] + (to[$0] - from[$0]) * along }
                            let alike = likeness(photo, x, y, to: reference, channels: channels)
                            // Erase keeps from the subject what is solid: a faint leftover of the
                            // background (a shelf's edge behind a motorcycle) unlike the colour
                            // under the stroke goes in the outer half too, as the ring promises.
                            let solid = stroke.mode == .erase ? Double(pixels[cell * 4 + 3]) / 255 : 1
                            weight *= 1 - (1 - alike) * solid
                        }
                        weights[cell] = max(weights[cell], Float(weight))
                    }
                }
            }
            guard maxX >= minX, maxY >= minY else { continue }
            for y in minY...maxY {
                for x in minX...maxX {
                    let cell = y * width + x
                    let weight = Double(weights[cell])
                    guard weight > 0 else { continue }
                    weights[cell] = 0
                    let alpha = Double(pixels[cell * 4 + 3])
                    switch stroke.mode {
                    case .erase:
                        let kept = (alpha * (1 - weight)).rounded()
                        pixels[cell * 4 + 3] = UInt8(kept)
                        if kept < alpha {
                            marks[cell] =
                                alpha >= Double(seenOpacity) || marks[cell] == .fadedFromSeen
                                ? .fadedFromSeen : .lowered
                        }
                        if kept == 0 { (pixels[cell * 4], pixels[cell * 4 + 1], pixels[cell * 4 + 2]) = (0, 0, 0) }
                    case .restore:
                        // Up to what the photo shows: its own clear pixels hide colours nobody saw.
                        let ceiling = channels == 4 ? Double(photo.pixels[cell * channels + 3]) : 255
                        let restored = alpha + max(0, ceiling - alpha) * weight
                        // The photo's colour joins the sticker's in proportion to the opacity it adds.
                        let share = restored > 0 ? (restored - alpha) / restored : 0
                        for channel in 0..<3 {
                            let own = Double(pixels[cell * 4 + channel])
                            let source = Double(photo.pixels[cell * channels + channel])
                            pixels[cell * 4 + channel] = UInt8((own + (source - own) * share).rounded())
                        }
                        pixels[cell * 4 + 3] = UInt8(restored.rounded())
                        if restored.rounded() > alpha { marks[cell] = .restored }
                    }
                }
            }
        }
        clearingErasedLeftovers(&pixels, before: sticker.pixels, width: width, height: height, marks: marks)
        guard let refined = Bitmap(width: width, height: height, channels: 4, pixels: pixels) else {
            throw .invalidOptions("the refined sticker could not be made")
        }
        return refined
    }

    /// The least opacity (of 255) that a person sees: fainter pixels Erase left are cleared.
    public static let seenOpacity: UInt8 = 26

    /// What the last stroke to change a pixel did to it.
    enum StrokeMark: UInt8, Sendable {
        /// Nothing.
        case none
        /// Erase lowered it, from under ``seenOpacity``.
        case lowered
        /// Erase lowered it from ``seenOpacity`` or more.
        case fadedFromSeen
        /// Restore raised it.
        case restored
    }

    /// What Erase left behind that nobody wants: pixels it faded from seen to under a tenth opaque
    /// (a ghost of the grass it was drawn over), and small pieces it cut off from the rest of the
    /// sticker (the two ends of a blade erased across its middle, which stayed as islands beside
    /// it). A piece is cut off when it was part of the largest piece of the sticker as it came
    /// (`before`, RGBA), is under a hundredth of the largest piece now, touches a pixel Erase
    /// lowered, and holds none that Restore raised. A piece apart before (a second subject the
    /// lift kept, a strand's tip) stays, however near the brush passed.
    static func clearingErasedLeftovers(
        _ pixels: inout [UInt8], before: [UInt8], width: Int, height: Int, marks: [StrokeMark]
    ) {
        guard marks.contains(where: { $0 == .lowered || $0 == .fadedFromSeen }) else { return }
        for cell in marks.indices where marks[cell] == .fadedFromSeen && pixels[cell * 4 + 3] < seenOpacity {
            for channel in 0..<4 { pixels[cell * 4 + channel] = 0 }
        }
        let (original, originalAreas) = pieces(of: before, width: width, height: height)
        guard let originalLargest = originalAreas.indices.max(by: { originalAreas[$0] < originalAreas[$1] }) else {
            return
        }
        let (now, areas) = pieces(of: pixels, width: width, height: height)
        guard let largest = areas.max(), areas.count > 1 else { return }
        var touched = [Bool](repeating: false, count: areas.count)
        var wasMain = [Bool](repeating: false, count: areas.count)
        var restored = [Bool](repeating: false, count: areas.count)
        for cell in 0..<(width * height) where now[cell] >= 0 {
            let piece = Int(now[cell])
            if original[cell] == Int32(originalLargest) { wasMain[piece] = true }
            if marks[cell] == .restored { restored[piece] = true }
            guard !touched[piece] else { continue }
            let (x, y) = (cell % width, cell / width)
            for ny in max(0, y - 1)...min(height - 1, y + 1) {
                for nx in max(0, x - 1)...min(width - 1, x + 1) {
                    let mark = marks[ny * width + nx]
                    if mark == .lowered || mark == .fadedFromSeen { touched[piece] = true }
                }
            }
        }
        let small = max(16, largest / 100)
        let cleared = areas.indices.map { touched[$0] && wasMain[$0] && !restored[$0] && areas[$0] < small }
        guard cleared.contains(true) else { return }
        for cell in 0..<(width * height) where now[cell] >= 0 && cleared[Int(now[cell])] {
            for channel in 0..<4 { pixels[cell * 4 + channel] = 0 }
        }
    }

    /// The pieces of an RGBA picture at least ``seenOpacity`` opaque, eight neighbours joining:
    /// each pixel's piece (-1 for none) and each piece's area, numbered as a raster scan meets them.
    static func pieces(of pixels: [UInt8], width: Int, height: Int) -> (labels: [Int32], areas: [Int]) {
        let parts = PixelParts(width: width, height: height) { pixels[$0 * 4 + 3] >= seenOpacity }
        var labels = [Int32](repeating: -1, count: width * height)
        for (index, run) in parts.runs.enumerated() {
            let piece = Int32(parts.partOfRun[index])
            for x in run.start..<run.end { labels[run.row * width + x] = piece }
        }
        return (labels, parts.areas)
    }

    /// 1 at 0, 0 at 1, smooth at both ends.
    private static func smoothFall(_ t: Double) -> Double {
        let clamped = min(1, max(0, t))
        return 1 - clamped * clamped * (3 - 2 * clamped)
    }

    /// How alike the photo's colour at (x, y) is to `reference` (RGB, 0–255): 1 for the same,
    /// ½ at ``edgeColourDistance``, towards 0 beyond.
    private static func likeness(_ photo: Bitmap, _ x: Int, _ y: Int, to reference: [Double], channels: Int) -> Double {
        var squared = 0.0
        for channel in 0..<3 {
            let difference = Double(photo.pixels[(y * photo.width + x) * channels + channel]) - reference[channel]
            squared += difference * difference
        }
        return 1 / (1 + squared / (edgeColourDistance * edgeColourDistance))
    }

    /// The photo's mean colour over the 5 × 5 pixels around `point` (clamped to the photo).
    private static func meanColour(_ photo: Bitmap, at point: Point) -> [Double] {
        let cx = min(photo.width - 1, max(0, Int(point.x)))
        let cy = min(photo.height - 1, max(0, Int(point.y)))
        var sums = [0.0, 0.0, 0.0]
        var count = 0.0
        for y in max(0, cy - 2)...min(photo.height - 1, cy + 2) {
            for x in max(0, cx - 2)...min(photo.width - 1, cx + 2) {
                for channel in 0..<3 {
                    sums[channel] += Double(photo.pixels[(y * photo.width + x) * photo.channels + channel])
                }
                count += 1
            }
        }
        return sums.map { $0 / count }
    }
}
