import CollageCore
import CollageRender
import Foundation
import Testing

/// The sticker effects, each checked by a property a person would see: Comic's few flat colours
/// and ink lines, Puffy's lit top and shaded bottom, Shiny's spread of hues.
@Suite("Rendering: sticker effects")
struct StickerEffectTests {
    /// A 240 × 240 sticker: a disc of radius 90 whose colour runs smoothly from orange to teal
    /// left to right (many colours, one hue family each side), transparent around it.
    static func sticker() -> Bitmap {
        var bitmap = Bitmap(width: 240, height: 240, color: [0, 0, 0, 0])
        for y in 0..<240 {
            for x in 0..<240 {
                let (dx, dy) = (Double(x) - 119.5, Double(y) - 119.5)
                guard dx * dx + dy * dy <= 8100 else { continue }
                let t = Double(x) / 239
                let shade = 0.8 + 0.2 * Double(y) / 239
                bitmap[x, y] = [
                    UInt8((230 * (1 - t) + 30 * t) * shade), UInt8((140 * (1 - t) + 170 * t) * shade),
                    UInt8((40 * (1 - t) + 160 * t) * shade), 255,
                ]
            }
        }
        return bitmap
    }

    func render(_ effect: StickerEffect?, sticker: Bitmap = sticker()) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        try sticker.write(to: fixtures.url("disc.png"), format: .png)
        var collage = Collage(id: "e", title: "e", created: Date(), canvas: Size(width: 240, height: 240))
        collage.style.background = .white
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("disc.png"), frame: Rect(x: 0, y: 0, width: 240, height: 240)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 0, shadow: false, effect: effect)),
        ])
        return try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(1), format: .png))
    }

    /// The pixels well inside the disc (away from its rim).
    static func inside(_ image: Bitmap, margin: Double = 10) -> [(x: Int, y: Int, rgb: [UInt8])] {
        var result: [(Int, Int, [UInt8])] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (dx, dy) = (Double(x) - 119.5, Double(y) - 119.5)
                if dx * dx + dy * dy <= (90 - margin) * (90 - margin) {
                    result.append((x, y, Array(image[x, y].prefix(3))))
                }
            }
        }
        return result
    }

    @Test func comicHasFewFlatColoursAndInkAllRound() throws {
        let plain = Set(Self.inside(try render(nil)).map(\.rgb))
        let comic = try render(.comic)
        let colours = Set(Self.inside(comic).map(\.rgb))
        #expect(plain.count > 1_000, "the sticker has many colours of its own: \(plain.count)")
        #expect(colours.count <= 13, "a comic's 12 flat colours and its ink: \(colours.count)")
        // Ink on the rim: dark pixels in the outer 3 pixels of the disc, all the way round.
        var inked = 0
        for step in 0..<36 {
            let angle = Double(step) * .pi / 18
            let depths = [87.5, 88.5, 89.5].map { (Int(119.5 + $0 * cos(angle)), Int(119.5 + $0 * sin(angle))) }
            if depths.contains(where: { Self.isInk(comic[$0.0, $0.1]) }) { inked += 1 }
        }
        #expect(inked == 36, "\(inked) of 36 points of the rim are inked")
    }

    static func isInk(_ pixel: [UInt8]) -> Bool { pixel.prefix(3).allSatisfy { $0 < 60 } }

    @Test func comicDrawsNoSpeckOfInkOnASmoothGradient() throws {
        let comic = try render(.comic)
        let specks = Self.inside(comic, margin: 14).filter { Self.isInk($0.rgb) }
        #expect(specks.isEmpty, "ink inside a smooth disc at \(specks.prefix(5).map { ($0.x, $0.y) })")
    }

    @Test func comicInksAnEdgeInsideTheSubjectAndItsOutlineIsHeavierBelowRight() throws {
        // The disc with its right half dark: an edge down the middle.
        var sticker = Self.sticker()
        for y in 0..<240 {
            for x in 120..<240 where sticker[x, y][3] > 0 { sticker[x, y] = [40, 50, 70, 255] }
        }
        let comic = try render(.comic, sticker: sticker)
        let middle = (105..<136).filter { Self.isInk(comic[$0, 120]) }
        #expect(!middle.isEmpty && middle.count <= 12, "ink across the middle edge at x \(middle)")
        // The outline's depth along the diagonal, from the rim inwards.
        func depth(_ direction: (Double, Double)) -> Int {
            var depth = 0
            for step in 0..<30 {
                let radius = 89.0 - Double(step)
                let (x, y) = (Int(119.5 + radius * direction.0), Int(119.5 + radius * direction.1))
                guard Self.isInk(comic[x, y]) else { break }
                depth += 1
            }
            return depth
        }
        let upperLeft = depth((-0.6, -0.8)), lowerRight = depth((0.6, 0.8))
        #expect(
            upperLeft >= 1 && lowerRight > upperLeft, "outline \(upperLeft) px above left, \(lowerRight) below right")
    }

    @Test func comicKeepsASmallPartsColourOnAPortraitSticker() throws {
        // 360 wide: the plan is the sticker itself, and a stride through its pixels in row order
        // that shared a factor with 360 saw a few columns only, missing the red stripe.
        var sticker = Bitmap(width: 360, height: 600, color: [40, 70, 200, 255])
        for y in 0..<600 { for x in 160..<190 { sticker[x, y] = [220, 30, 30, 255] } }
        let fixtures = try RenderFixtures()
        try sticker.write(to: fixtures.url("disc.png"), format: .png)
        var collage = Collage(id: "p", title: "p", created: Date(), canvas: Size(width: 360, height: 600))
        collage.style.background = .white
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("disc.png"), frame: Rect(x: 0, y: 0, width: 360, height: 600)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 0, shadow: false, effect: .comic)),
        ])
        let comic = try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(1), format: .png))
        let stripe = comic[175, 300]
        #expect(stripe[0] > 150 && stripe[2] < 100, "the stripe stays red: \(stripe)")
    }

    @Test func comicKeepsTheHueOfSmallPartsUnlikeTheRest() throws {
        // Fur in many browns, lit from the top (a cat's face), with an olive eye (the sample cat's)
        // and its black pupil: two small parts a palette of the browns' averages made brown.
        var sticker = Bitmap(width: 240, height: 240, color: [0, 0, 0, 0])
        for y in 0..<240 {
            for x in 0..<240 {
                let (dx, dy) = (Double(x) - 119.5, Double(y) - 119.5)
                guard dx * dx + dy * dy <= 8100 else { continue }
                let shade = 1.15 - 0.5 * Double(y) / 239 + 0.08 * sin(Double(x) * 0.7 + Double(y) * 0.3)
                let eye = (Double(x) - 85) * (Double(x) - 85) + (Double(y) - 100) * (Double(y) - 100)
                if eye <= 49 {
                    sticker[x, y] = [15, 14, 18, 255]
                } else if eye <= 196 {
                    sticker[x, y] = [113, 98, 52, 255]
                } else {
                    sticker[x, y] = [
                        UInt8(min(255, 190 * shade)), UInt8(min(255, 135 * shade)), UInt8(min(255, 90 * shade)), 255,
                    ]
                }
            }
        }
        let comic = try render(.comic, sticker: sticker)
        let iris = comic[85, 89]
        let pupil = comic[85, 100]
        // The fur's green is 0.71 of its red, the eye's 0.87.
        #expect(Double(iris[1]) > 0.8 * Double(iris[0]), "the eye stays olive, not brown: \(iris)")
        #expect(pupil.prefix(3).allSatisfy { $0 < 60 }, "the pupil stays black: \(pupil)")
    }

    @Test func comicLeavesAVeilTranslucentRatherThanInked() throws {
        // A light sticker at just under half opacity all over (a veil, glass): not a dark slab.
        var veil = Bitmap(width: 240, height: 240, color: [0, 0, 0, 0])
        for y in 20..<220 { for x in 20..<220 { veil[x, y] = [230, 220, 200, 120] } }
        let comic = try render(.comic, sticker: veil)
        let middle = comic[120, 120]
        #expect(middle.prefix(3).allSatisfy { $0 > 180 }, "the veil's middle over white: \(middle)")
    }

    @Test func halftoneDotsGrowWithTheShade() throws {
        // Light on top, dark below: the dots cover more of the dark half.
        var sticker = Bitmap(width: 240, height: 240, color: [0, 0, 0, 0])
        for y in 10..<230 {
            for x in 10..<230 { sticker[x, y] = y < 120 ? [235, 225, 205, 255] : [120, 70, 60, 255] }
        }
        let halftone = try render(.halftone, sticker: sticker)
        func darkShare(_ rows: Range<Int>) -> (share: Double, shades: Int) {
            var (dark, total) = (0, 0)
            var shades = Set<[UInt8]>()
            for y in rows {
                for x in 30..<210 {
                    let pixel = Array(halftone[x, y].prefix(3))
                    shades.insert(pixel)
                    total += 1
                    if Int(pixel[0]) + Int(pixel[1]) + Int(pixel[2]) < 300 { dark += 1 }
                }
            }
            return (Double(dark) / Double(total), shades.count)
        }
        let light = darkShare(30..<100), dark = darkShare(140..<210)
        #expect(light.share < 0.05, "the light half is clean: \(light.share)")
        #expect(dark.share > 0.2 && dark.share < 0.9, "dots cover part of the dark half: \(dark.share)")
        #expect(dark.shades >= 2, "dots and the paper between them")
    }

    @Test func puffyIsLitFromAboveAndShadedBelow() throws {
        let plain = try render(nil)
        let puffy = try render(.puffy)
        func light(_ image: Bitmap, _ x: Int, _ y: Int) -> Double {
            let pixel = image[x, y]
            return 0.299 * Double(pixel[0]) + 0.587 * Double(pixel[1]) + 0.114 * Double(pixel[2])
        }
        // Near the top of the disc against near its bottom, compared with the plain sticker.
        let top = light(puffy, 120, 38) - light(plain, 120, 38)
        let bottom = light(puffy, 120, 202) - light(plain, 120, 202)
        #expect(top > bottom + 30, "the top edge is lit (\(top)) and the bottom shaded (\(bottom))")
        // The middle, flat on top of the dome, keeps about its own light.
        #expect(abs(light(puffy, 120, 120) - light(plain, 120, 120)) < 60)
    }

    @Test func aLargePuffyStickersLightChangesSmoothlyWithoutContourLines() throws {
        // A grey disc 900 px across: its dome's light should fall off smoothly from the lit top
        // left; heights kept in whole levels showed each step as a thin line in the light.
        let side = 900
        var disc = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
        for y in 0..<side {
            for x in 0..<side {
                let (dx, dy) = (Double(x) - 449.5, Double(y) - 449.5)
                if dx * dx + dy * dy <= 440 * 440 { disc[x, y] = [150, 150, 150, 255] }
            }
        }
        let styled = try StickerEffects.apply(to: disc, outlineWidth: 0, shadow: false, effect: .puffy)
        // Along a row across the dome's upper half, from its rim inwards, neighbours' light.
        var jumps: [Int] = []
        for x in 60..<840 {
            let (a, b) = (styled[x, 250], styled[x + 1, 250])
            guard a[3] == 255, b[3] == 255 else { continue }
            jumps.append(abs(Int(a[0]) - Int(b[0])))
        }
        #expect(jumps.count > 700, "the row lies on the disc")
        // Whole levels stepped by up to 60 between neighbours; smooth heights by 4 at most.
        #expect((jumps.max() ?? 0) <= 6, "the light steps by \(jumps.max() ?? 0) levels between neighbours")
    }

    @Test func shinySpreadsHuesAcrossTheSticker() throws {
        func hueSpread(_ image: Bitmap) -> Int {
            var hues = Set<Int>()
            for pixel in Self.inside(image) {
                let (r, g, b) = (Double(pixel.rgb[0]), Double(pixel.rgb[1]), Double(pixel.rgb[2]))
                let high = max(r, g, b)
                let low = min(r, g, b)
                guard high - low > 20 else { continue }
                var hue: Double
                if high == r {
                    hue = (g - b) / (high - low)
                } else if high == g {
                    hue = 2 + (b - r) / (high - low)
                } else {
                    hue = 4 + (r - g) / (high - low)
                }
                hue = (hue * 60).truncatingRemainder(dividingBy: 360)
                if hue < 0 { hue += 360 }
                hues.insert(Int(hue / 30))
            }
            return hues.count
        }
        let plain = hueSpread(try render(nil))
        let shiny = hueSpread(try render(.shiny))
        #expect(shiny >= plain + 4, "hues in twelve 30° sectors: \(plain) plain, \(shiny) shiny")
    }

    /// The editor draws a sticker at the few hundred pixels it shows, an export at thousands:
    /// Comic planned its regions and lines on the pixels at hand, and the export came out lighter
    /// than the editor had shown it, with other flat areas and grey discs for eyes. Both are now
    /// planned on the sticker's own file: the large drawing, reduced, is the small one.
    @Test(arguments: [StickerEffect.comic, .halftone])
    func aComicStickerLooksTheSameDrawnSmallOrLarge(_ effect: StickerEffect) throws {
        // A furred face: bands of fur colours with a grain, two dark eyes with a light in each.
        let side = 720
        var face = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
        for y in 0..<side {
            for x in 0..<side {
                let (dx, dy) = (Double(x) - 359.5, Double(y) - 359.5)
                guard dx * dx + dy * dy <= 320 * 320 else { continue }
                let grain = Double((x * 7 + y * 13) % 29) / 29 - 0.5
                let band = (sin(Double(y) / 40) + 1) / 2
                var colour = [200 - 70 * band + 30 * grain, 150 - 60 * band + 25 * grain, 90 - 40 * band + 20 * grain]
                for eye in [(250.0, 300.0), (470.0, 300.0)] {
                    let (ex, ey) = (Double(x) - eye.0, Double(y) - eye.1)
                    if ex * ex + ey * ey <= 45 * 45 { colour = [40, 45, 30] }
                    if (ex + 12) * (ex + 12) + (ey + 12) * (ey + 12) <= 10 * 10 { colour = [240, 240, 235] }
                }
                face[x, y] = colour.map { UInt8(max(0, min(255, $0.rounded()))) } + [255]
            }
        }
        let fixtures = try RenderFixtures()
        try face.write(to: fixtures.url("face.png"), format: .png)
        var collage = Collage(id: "f", title: "f", created: Date(), canvas: Size(width: 240, height: 240))
        collage.style.background = .white
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("face.png"), frame: Rect(x: 0, y: 0, width: 240, height: 240)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 0, shadow: false, effect: effect)),
        ])
        let small = try fixtures.render(collage, "small.png", options: RenderOptions(size: .scale(1), format: .png))
        let large = try fixtures.render(collage, "large.png", options: RenderOptions(size: .scale(4), format: .png))
        #expect(small.width == 240 && large.width == 960)
        // Compared a block of 6 × 6 pixels at a time (24 × 24 of the large drawing): the tone
        // of each part of the face, not where each halftone dot falls.
        var difference = 0.0
        var count = 0
        for blockY in stride(from: 0, to: 240, by: 6) {
            for blockX in stride(from: 0, to: 240, by: 6) {
                let (dx, dy) = (Double(blockX + 3) - 120, Double(blockY + 3) - 120)
                guard dx * dx + dy * dy <= 92 * 92 else { continue }
                for channel in 0..<3 {
                    var smallSum = 0
                    var largeSum = 0
                    for y in blockY..<(blockY + 6) {
                        for x in blockX..<(blockX + 6) {
                            smallSum += Int(small[x, y][channel])
                            for v in 0..<4 { for u in 0..<4 { largeSum += Int(large[x * 4 + u, y * 4 + v][channel]) } }
                        }
                    }
                    difference += abs(Double(largeSum) / 576 - Double(smallSum) / 36)
                    count += 1
                }
            }
        }
        // Halftone's dots fall elsewhere at each size, which blocks of them still show a little.
        #expect(
            difference / Double(count) < (effect == .halftone ? 6 : 0.5),
            "the large drawing, reduced, differs from the small one by \(difference / Double(count)) a channel")
    }

    @Test func anEffectIsPartOfTheDocument() throws {
        var collage = Collage(id: "d", title: "d", created: Date(), canvas: Size(width: 400, height: 400))
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("s.png"), frame: nil),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 4, shadow: true, effect: .puffy)),
        ])
        let data = CollageDocument.encode(collage)
        #expect(try CollageDocument.decode(data) == collage)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""effect" : "puffy""#) || text.contains(#""effect": "puffy""#), "\(text)")
        let wrong = text.replacingOccurrences(of: "puffy", with: "glitter")
        do {
            _ = try CollageDocument.decode(Data(wrong.utf8))
            Issue.record("an unknown effect was accepted")
        } catch {
            #expect(
                error.description.contains(
                    #"items[0].stickerStyle.effect: expected one of "comic", "halftone", "puffy", "shiny", got "glitter""#
                ))
        }
    }
}

extension StickerEffectTests {
    /// Comic draws a firm shape: a faint strand's pieces lying apart became ink blobs floating
    /// past a dog's coat, the see-through dots the matte left in a cat's nose blue holes ringed
    /// in ink, and a wide soft area (a chin's fur over the old background) a translucent shard
    /// with an ink line round part of it.
    @Test(arguments: [StickerEffect.comic, .halftone])
    func comicDrawsAFirmShapeWithoutSpecksPinholesOrHaze(_ effect: StickerEffect) throws {
        var sticker = Self.sticker()
        // Its left third dark, for a palette with a near-black colour.
        for y in 0..<240 { for x in 0..<80 where sticker[x, y][3] == 255 { sticker[x, y] = [70, 45, 30, 255] } }
        // A speck of the subject's colour apart from it, a pinhole in it, and a haze below it.
        for y in 20..<23 { for x in 200..<203 { sticker[x, y] = [200, 140, 60, 255] } }
        for y in 100..<103 { for x in 140..<143 { sticker[x, y] = [0, 0, 0, 0] } }
        for y in 206..<236 {
            for x in 60..<180 where sticker[x, y][3] == 0 { sticker[x, y] = [190, 150, 110, 115] }
        }
        let drawn = try StickerEffects.apply(to: sticker, outlineWidth: 0, shadow: false, effect: effect)
        #expect(drawn[201, 21][3] == 0, "the speck is drawn: \(drawn[201, 21])")
        #expect(drawn[141, 101][3] == 255, "the pinhole is left: \(drawn[141, 101])")
        // Filled with the colour round it, not a dark speck.
        let (filled, beside) = (drawn[141, 101], drawn[147, 101])
        #expect(
            (0..<3).map { abs(Int(filled[$0]) - Int(beside[$0])) }.reduce(0, +) < 90,
            "the pinhole is \(filled) beside \(beside)")
        // Past a pixel and a half of the disc's edge (radius 90 about its centre) nothing is
        // translucent, and the haze is gone.
        var translucent = 0
        for y in 0..<240 {
            for x in 0..<240 {
                let (dx, dy) = (Double(x) - 119.5, Double(y) - 119.5)
                guard abs((dx * dx + dy * dy).squareRoot() - 90) > 2.5 else { continue }
                if drawn[x, y][3] > 0 && drawn[x, y][3] < 255 { translucent += 1 }
            }
        }
        #expect(translucent == 0, "\(translucent) translucent pixels away from the edge")
        #expect(drawn[120, 225][3] == 0, "the haze is drawn: \(drawn[120, 225])")
    }
}

extension StickerEffectTests {
    /// Every effect with an outline renders: Comic and the outline both read the sticker's plan,
    /// and decoded lazily it could be read only once ("out of order read").
    @Test(arguments: [StickerEffect.comic, .halftone, .puffy, .shiny])
    func everyEffectRendersWithAnOutlineAndAShadow(_ effect: StickerEffect) throws {
        // A sticker larger than its plan (see ComicLook.planSize): a disc of radius 200.
        var disc = Bitmap(width: 600, height: 600, color: [0, 0, 0, 0])
        for y in 0..<600 {
            for x in 0..<600 where (x - 300) * (x - 300) + (y - 300) * (y - 300) <= 200 * 200 {
                disc[x, y] = [UInt8(120 + x / 5), 90, UInt8(60 + y / 5), 255]
            }
        }
        let fixtures = try RenderFixtures()
        try disc.write(to: fixtures.url("disc.png"), format: .png)
        var collage = Collage(id: "o", title: "o", created: Date(), canvas: Size(width: 300, height: 300))
        collage.style.background = .color(Color(red: 0x30, green: 0x60, blue: 0xC0))
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("disc.png"), frame: Rect(x: 0, y: 0, width: 300, height: 300)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 6, shadow: true, effect: effect)),
        ])
        let image = try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(2), format: .png))
        // The outline, white, just past the disc's edge (radius 100 points, 200 px at 2×).
        #expect(image[300, 300 - 206].prefix(3).allSatisfy { $0 > 240 }, "\(image[300, 94])")
        // And past the outline, the background (a little shaded).
        #expect(image[300, 70][0] < 60 && image[300, 70][2] > 150, "\(image[300, 70])")
    }
}

extension StickerEffectTests {
    /// Comic prints colours more saturated than life, but a near grey stays grey: raised alike,
    /// a raccoon's grey fur, a little violet in the photo, came out lavender.
    @Test func comicKeepsAGreyGrey() throws {
        var fur = Bitmap(width: 240, height: 240, color: [0, 0, 0, 0])
        for y in 0..<240 {
            for x in 0..<240 where (x - 120) * (x - 120) + (y - 120) * (y - 120) <= 90 * 90 {
                // Grey from dark to light, blue 16 levels over green (red between).
                let light = 70 + Double(x) * 0.6
                fur[x, y] = [UInt8(light + 6), UInt8(light), UInt8(light + 16), 255]
            }
        }
        let comic = try render(.comic, sticker: fur)
        let tints = Self.inside(comic).map { pixel in Int(pixel.rgb.max() ?? 0) - Int(pixel.rgb.min() ?? 0) }
            .filter { $0 > 0 }
        let widest = tints.max() ?? 0
        // Brightened by 8 %, the 16 levels become 17; raised by a third too, 23.
        #expect(widest <= 19, "the grey's tint grew from 16 to \(widest) levels")
    }
}
