import CollageCore
import CollageRender
import Foundation
import Testing

/// The white outline around a sticker follows the exact distance from its opaque pixels, for any
/// shape (the distance field behind it is computed in linear time, not by libvips' fill).
@Suite("Rendering: sticker outline")
struct StickerOutlineTests {
    /// An opaque shape with concave corners, holes and lone pixels: a ring of every case. The
    /// lone pixels lie within 3 px of the block or the bar, close enough for their rings to join
    /// the shape's (islands further away get none: see `aSpeckFarFromTheStickerGetsNoRingOfItsOwn`).
    static func shape(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, color: [0, 0, 0, 0])
        var seed: UInt64 = 7
        for y in 0..<height {
            for x in 0..<width {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let inBlock = (x > 10 && x < 40 && y > 8 && y < 30) && !(x > 20 && x < 30 && y > 14 && y < 22)
                let inBar = x > 50 && x < 54 && y > 5 && y < 60
                let nearBlock = (9..<42).contains(x) && (7..<32).contains(y) && !((23..<28).contains(x) && y == 18)
                let nearBar = (49..<56).contains(x) && (4..<62).contains(y)
                let speck = seed >> 58 == 0 && (nearBlock || nearBar)
                if inBlock || inBar || speck { bitmap[x, y] = [200, 40, 40, 255] }
            }
        }
        return bitmap
    }

    /// The ring is every pixel within the outline's width of the opaque ones, closed by a disc
    /// as wide (the notches between two parts' rings filled with round fillets): checked against
    /// both computed by brute force.
    @Test(arguments: [1.0, 3.5, 8.0])
    func theOutlineCoversExactlyThePixelsWithinItsWidthAndItsClosing(width: Double) throws {
        let (w, h) = (70, 64)
        let sticker = Self.shape(width: w, height: h)
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: width, shadow: false)
        let margin = (outlined.width - w) / 2
        let (cw, ch) = (outlined.width, outlined.height)
        let solid = (0..<(w * h)).filter { sticker.pixels[$0 * 4 + 3] >= 128 }.map {
            ($0 % w + margin, $0 / w + margin)
        }
        func distances(to points: [(Int, Int)]) -> [Double] {
            (0..<(cw * ch)).map { index in
                let (x, y) = (index % cw, index / cw)
                var nearest = Int.max
                for (px, py) in points { nearest = min(nearest, (px - x) * (px - x) + (py - y) * (py - y)) }
                return Double(nearest).squareRoot()
            }
        }
        let fromSolid = distances(to: solid)
        // The closing: the ring grown by the width (what lies within twice the width of the
        // opaque pixels), then shrunk back by it; past the canvas is outside.
        var outside = (0..<(cw * ch)).filter { fromSolid[$0] > 2 * width }.map { ($0 % cw, $0 / cw) }
        for x in -1...cw { outside += [(x, -1), (x, ch)] }
        for y in 0..<ch { outside += [(-1, y), (cw, y)] }
        let fromOutside = distances(to: outside)
        var checked = 0
        for y in 0..<ch {
            for x in 0..<cw {
                let index = y * cw + x
                let alpha = Int(outlined[x, y][3])
                // Well inside the ring or its closing: fully covered; a pixel and a half beyond
                // both: untouched.
                if fromSolid[index] <= width - 0.5 || fromOutside[index] >= width + 1.5 {
                    #expect(alpha == 255, "(\(x - margin), \(y - margin)) has alpha \(alpha)")
                    checked += 1
                } else if fromSolid[index] >= width + 1.5 && fromOutside[index] <= width {
                    #expect(alpha == 0, "(\(x - margin), \(y - margin)) has alpha \(alpha)")
                    checked += 1
                }
            }
        }
        #expect(checked > outlined.width * outlined.height / 2)
    }
}

extension StickerOutlineTests {
    @Test(arguments: [(1, 1), (1, 9), (9, 1)])
    func tinyStickersGetTheirOutline(width: Int, height: Int) throws {
        let sticker = Bitmap(width: width, height: height, color: [10, 20, 30, 255])
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: 2, shadow: false)
        let margin = (outlined.width - width) / 2
        #expect(outlined[margin - 1, margin][3] == 255)
        #expect(outlined[margin - 2, margin][3] == 128)
        #expect(outlined[0, 0][3] == 0)
    }
}

extension StickerOutlineTests {
    /// A disc with a faint haze reaching far past it (fur's glow in a plain sticker): with an
    /// outline nothing shows beyond the outline's outer edge, so no see-through patch floats
    /// outside the die-cut shape; without one the haze stays as it was.
    @Test func nothingOfTheStickerShowsPastItsOutline() throws {
        var sticker = Bitmap(width: 120, height: 80, color: [0, 0, 0, 0])
        for y in 0..<80 {
            for x in 0..<120 {
                let (dx, dy) = (Double(x) - 40, Double(y) - 40)
                sticker[x, y] = (dx * dx + dy * dy).squareRoot() <= 25 ? [200, 60, 40, 255] : [90, 90, 90, 30]
            }
        }
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: 6, shadow: false)
        let margin = (outlined.width - sticker.width) / 2
        // 20 px right of the disc's edge: well past the 6 px outline, in the haze.
        #expect(outlined[margin + 95, margin + 40][3] == 0, "\(outlined[margin + 95, margin + 40])")
        #expect(outlined[margin + 40, margin + 40] == [200, 60, 40, 255])
        // Within the outline the haze shows over the white, as before.
        #expect(outlined[margin + 68, margin + 40][3] == 255)
        let plain = try StickerEffects.apply(to: sticker, outlineWidth: 0, shadow: false, effect: nil)
        #expect(plain[95, 40] == [90, 90, 90, 30])
    }

    /// An effect's colours fade out on the soft edge: a faint pixel keeps most of its own colour
    /// under the shiny film, where an opaque one takes the film's.
    @Test func effectsFadeOutOnTheSoftEdge() throws {
        var sticker = Bitmap(width: 60, height: 40, color: [0, 0, 0, 0])
        for y in 0..<40 {
            for x in 0..<60 { sticker[x, y] = x < 30 ? [90, 90, 90, 255] : [90, 90, 90, 16] }
        }
        let shiny = try StickerEffects.apply(to: sticker, outlineWidth: 0, shadow: false, effect: .shiny)
        func change(_ pixel: [UInt8]) -> Int { pixel.prefix(3).map { abs(Int($0) - 90) }.reduce(0, +) }
        let opaque = change(shiny[20, 20])
        let faint = change(shiny[45, 20])
        #expect(opaque > 40, "the film shows on the opaque part: \(shiny[20, 20])")
        #expect(faint * 4 < opaque, "a faint pixel changed by \(faint) against \(opaque)")
        #expect(shiny[45, 20][3] == 16)
    }
}

extension StickerOutlineTests {
    /// A sticker with nothing half opaque has no outline to bound it: it is not made to vanish.
    @Test func aFaintStickerKeepsItsPixelsUnderAnOutline() throws {
        let faint = Bitmap(width: 30, height: 20, color: [120, 80, 40, 60])
        let outlined = try StickerEffects.apply(to: faint, outlineWidth: 5, shadow: false)
        let margin = (outlined.width - faint.width) / 2
        #expect(outlined[margin + 15, margin + 10] == [120, 80, 40, 60])
    }
}

extension StickerOutlineTests {
    /// A whisker's tip kept past a gap, far from the face: the outline does not ring it (a white
    /// blob floating beside the sticker) and, bounded by the outline, it is gone. A speck close
    /// to the body is ringed with it, and a second large part (a person's other hand) keeps its own.
    @Test func aSpeckFarFromTheStickerGetsNoRingOfItsOwn() throws {
        let (w, h) = (120, 60)
        var sticker = Bitmap(width: w, height: h, color: [0, 0, 0, 0])
        for y in 10..<50 {
            for x in 10..<50 { sticker[x, y] = [200, 40, 40, 255] }  // the body
            for x in 80..<96 where y >= 20 && y < 40 { sticker[x, y] = [200, 40, 40, 255] }  // a hand apart
        }
        for x in 60..<64 { sticker[x, 5] = [250, 250, 250, 255] }  // a whisker's tip, far away
        sticker[52, 30] = [250, 250, 250, 255]  // a speck beside the body
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: 4, shadow: false)
        let margin = (outlined.width - w) / 2
        func alpha(_ x: Int, _ y: Int) -> UInt8 { outlined[x + margin, y + margin][3] }
        #expect(alpha(61, 5) == 0, "the far tip is still there")
        #expect(alpha(61, 2) == 0 && alpha(61, 8) == 0, "the far tip has a ring")
        #expect(alpha(52, 30) == 255 && alpha(55, 30) == 255, "the speck beside the body lost its ring")
        #expect(alpha(88, 30) == 255 && alpha(98, 30) == 255, "the second part lost its ring")
        #expect(alpha(30, 30) == 255 && alpha(52, 12) == 255)
    }
}

extension StickerOutlineTests {
    /// A cat's whiskers in a large sticker: each ringed on its own, they became fat white tubes
    /// and the cheek a starburst. Parts thinner than a 125th of the sticker get no ring and show
    /// as they are, past the outline too; a part as wide as a finger keeps its ring.
    @Test func thinPartsOfALargeStickerGetNoRingOfTheirOwn() throws {
        let (w, h) = (1_600, 800)
        var sticker = Bitmap(width: w, height: h, color: [0, 0, 0, 0])
        for y in 0..<h {
            for x in 0..<w {
                let (dx, dy) = (Double(x) - 500, Double(y) - 400)
                let body = (dx * dx + dy * dy).squareRoot() <= 300
                let whisker = x >= 700 && x < 1_100 && (300...302).contains(y)
                let finger = x >= 700 && x < 1_100 && (480..<520).contains(y)
                if body || finger { sticker[x, y] = [200, 120, 60, 255] }
                if whisker { sticker[x, y] = [250, 250, 250, 255] }
            }
        }
        let outlined = try StickerEffects.apply(to: sticker, outlineWidth: 24, shadow: false)
        let margin = (outlined.width - w) / 2
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { outlined[x + margin, y + margin] }
        // The whisker, far past the body's ring, shows whole, with no white around it.
        #expect(pixel(1_000, 301) == [250, 250, 250, 255])
        #expect(pixel(1_000, 290)[3] == 0, "the whisker is ringed: \(pixel(1_000, 290))")
        #expect(pixel(1_000, 312)[3] == 0, "the whisker is ringed: \(pixel(1_000, 312))")
        // The finger keeps its ring, and the body its own.
        #expect(pixel(1_000, 470) == [255, 255, 255, 255], "\(pixel(1_000, 470))")
        #expect(pixel(1_110, 500) == [255, 255, 255, 255], "\(pixel(1_110, 500))")
        #expect(pixel(500, 88) == [255, 255, 255, 255], "\(pixel(500, 88))")
        #expect(pixel(500, 60)[3] == 0)
    }
}

extension StickerOutlineTests {
    /// A star's point is not a hair: the thin end the disc cannot reach is ringed as before, so
    /// no bare tip pokes through the outline. And a sticker drawn in lines thinner than the disc
    /// (a bicycle, a signature) keeps its outline all along them.
    @Test func pointsAndLineArtKeepTheirRing() throws {
        let (w, h) = (1_600, 800)
        var star = Bitmap(width: w, height: h, color: [0, 0, 0, 0])
        var lines = Bitmap(width: w, height: h, color: [0, 0, 0, 0])
        for y in 0..<h {
            for x in 0..<w {
                let (dx, dy) = (Double(x) - 500, Double(y) - 400)
                // A point 30° wide, from the disc's edge 200 px out to the right.
                let inPoint = dx > 0 && dx < 500 && abs(dy) <= (500 - dx) * tan(Double.pi / 12)
                if (dx * dx + dy * dy).squareRoot() <= 300 || inPoint { star[x, y] = [200, 120, 60, 255] }
                if (200..<1_400).contains(x) && (y % 100 < 6 || x % 200 < 6) && (200..<600).contains(y) {
                    lines[x, y] = [30, 30, 30, 255]
                }
            }
        }
        let outlinedStar = try StickerEffects.apply(to: star, outlineWidth: 24, shadow: false)
        let margin = (outlinedStar.width - w) / 2
        // Past the point's tip (x 999): the ring, white, as the disc has.
        #expect(
            outlinedStar[1_010 + margin, 400 + margin] == [255, 255, 255, 255],
            "\(outlinedStar[1_010 + margin, 400 + margin])")
        #expect(outlinedStar[1_030 + margin, 400 + margin][3] == 0)
        let outlinedLines = try StickerEffects.apply(to: lines, outlineWidth: 24, shadow: false)
        // Beside a 6 px line, away from any crossing: the ring.
        #expect(
            outlinedLines[650 + margin, 315 + margin] == [255, 255, 255, 255],
            "\(outlinedLines[650 + margin, 315 + margin])")
    }
}

extension StickerOutlineTests {
    /// Whether a strand gets a ring of its own is decided on the sticker's file, not on the
    /// pixels at hand: a dog's cord, its width after resampling on the disc's line, grew a white
    /// horn in the 2× and 3× exports and in none of the 1×, 4× or 6× ones, nor in the editor.
    @Test(arguments: [3.5, 4.0]) func aStrandIsRingedAlikeAtEverySize(halfWidth: Double) throws {
        // A 1,000 px sticker: a disc, and a slanted cord 7 or 8 px wide (about twice the disc that
        // decides what is thin, a 250th of the sticker) reaching 190 px out of it to the upper
        // right. Decided at each size, the 7 px cord was ringed at 1× and 2× only, the 8 px one
        // at every size but 5×.
        let side = 1_000
        var sticker = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
        let (startX, startY, endX, endY) = (640.0, 360.0, 840.0, 160.0)
        for y in 0..<side {
            for x in 0..<side {
                let (px, py) = (Double(x) + 0.5, Double(y) + 0.5)
                if (px - 500) * (px - 500) + (py - 500) * (py - 500) <= 260 * 260 {
                    sticker[x, y] = [150, 100, 60, 255]
                    continue
                }
                // Supersampled 4 × 4, as a matte leaves a strand's sides.
                var covered = 0
                for v in 0..<4 {
                    for u in 0..<4 {
                        let (sx, sy) = (Double(x) + (Double(u) + 0.5) / 4, Double(y) + (Double(v) + 0.5) / 4)
                        let (dx, dy) = (endX - startX, endY - startY)
                        let t = max(0, min(1, ((sx - startX) * dx + (sy - startY) * dy) / (dx * dx + dy * dy)))
                        let (nx, ny) = (startX + t * dx - sx, startY + t * dy - sy)
                        if (nx * nx + ny * ny).squareRoot() <= halfWidth { covered += 1 }
                    }
                }
                if covered > 0 { sticker[x, y] = [60, 60, 60, UInt8(covered * 255 / 16)] }
            }
        }
        let fixtures = try RenderFixtures()
        try sticker.write(to: fixtures.url("cord.png"), format: .png)
        var collage = Collage(id: "c", title: "c", created: Date(), canvas: Size(width: 250, height: 250))
        collage.style.background = .color(Color(red: 0x30, green: 0x60, blue: 0xC0))
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("cord.png"), frame: Rect(x: 0, y: 0, width: 250, height: 250)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 8, shadow: false, effect: nil)),
        ])
        // The share of white among the pixels by the cord's outer half, past the disc's ring
        // (in canvas points: the cord runs from (160, 90) to (210, 40), the disc's ring to 73 points from its centre).
        var shares: [Int: Double] = [:]
        for scale in [1, 2, 3, 4, 5, 6] {
            let image = try fixtures.render(
                collage, "cord-\(scale).png", options: RenderOptions(size: .scale(Double(scale)), format: .png))
            var white = 0
            var count = 0
            for y in (30 * scale)..<(75 * scale) {
                for x in (170 * scale)..<(220 * scale) {
                    let (cx, cy) = ((Double(x) + 0.5) / Double(scale), (Double(y) + 0.5) / Double(scale))
                    // Beside the cord (3 to 7 points from its line), outside the disc's ring.
                    let along = ((cx - 160) * 50 + (cy - 90) * -50) / (50 * 50 * 2)
                    guard along < 0.9, (cx - 125) * (cx - 125) + (cy - 125) * (cy - 125) > 80 * 80 else { continue }
                    let (nx, ny) = (160 + along * 50 - cx, 90 - along * 50 - cy)
                    let apart = (nx * nx + ny * ny).squareRoot()
                    guard apart > 3, apart < 7 else { continue }
                    count += 1
                    if image[x, y].prefix(3).allSatisfy({ $0 > 230 }) { white += 1 }
                }
            }
            shares[scale] = Double(white) / Double(max(1, count))
        }
        let values = shares.values
        #expect(
            (values.max() ?? 0) - (values.min() ?? 0) < 0.2,
            "the cord is ringed at some sizes only (white beside it, by scale): \(shares.sorted { $0.key < $1.key })")
    }
}

extension StickerOutlineTests {
    /// A sticker made small keeps an outline in proportion: at its width in points a butterfly
    /// made small was a white blob with a speck in it. The ring is at most an eighth of the
    /// sticker's size (the root of its area); a large sticker keeps the width asked for.
    @Test func aSmallStickersOutlineIsInProportion() throws {
        var sticker = Bitmap(width: 400, height: 200, color: [0, 0, 0, 0])
        for y in 20..<180 { for x in 20..<380 { sticker[x, y] = [30, 30, 30, 255] } }
        let fixtures = try RenderFixtures()
        try sticker.write(to: fixtures.url("wing.png"), format: .png)
        func whiteReach(frameWidth: Double) throws -> Int {
            var collage = Collage(id: "w", title: "w", created: Date(), canvas: Size(width: 600, height: 400))
            collage.style.background = .color(Color(red: 0x30, green: 0x60, blue: 0xC0))
            collage = try collage.applying([
                .addItem(
                    id: "s", content: .sticker("wing.png"),
                    frame: Rect(
                        x: 300 - frameWidth / 2, y: 200 - frameWidth / 4, width: frameWidth, height: frameWidth / 2)),
                .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 24, shadow: false, effect: nil)),
            ])
            let image = try fixtures.render(
                collage, "wing-\(Int(frameWidth)).png", options: RenderOptions(size: .scale(1), format: .png))
            // White straight above the sticker's dark body (whose top edge is at 200 - w / 4 + w / 20).
            let top = Int(200 - frameWidth / 4 + frameWidth / 20)
            var reach = 0
            while top - reach - 1 >= 0, image[300, top - reach - 1].prefix(3).allSatisfy({ $0 > 200 }) { reach += 1 }
            return reach
        }
        let small = try whiteReach(frameWidth: 60)
        let large = try whiteReach(frameWidth: 500)
        // 60 × 30 points: an eighth of the root of 1,620 (the body fitted, 54 × 24) is 5.
        #expect(small <= 7, "a 60-point sticker's outline reaches \(small) points")
        // (Its last two points antialiased, under 200 of white.)
        #expect(large >= 21, "a 500-point sticker's outline reaches \(large) points")
    }
}
