import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import StickerPrint
import Testing

/// Generated stickers with known subjects, at 254 dpi (10 pixels a millimetre).
enum PrintFixtures {
    static let options = CutLineOptions(offset: 2, minimumRadius: 1, dotsPerInch: 254)

    /// A transparent sticker whose opaque pixels are where `isSubject` holds.
    static func sticker(
        width: Int, height: Int, color: [UInt8] = [200, 60, 40], _ isSubject: (Int, Int) -> Bool
    )
        -> Bitmap
    {
        var image = Bitmap(width: width, height: height, color: [0, 0, 0, 0])
        for y in 0..<height {
            for x in 0..<width where isSubject(x, y) { image[x, y] = color + [255] }
        }
        return image
    }

    static func disc(_ x: Int, _ y: Int, cx: Double, cy: Double, r: Double) -> Bool {
        let (dx, dy) = (Double(x) + 0.5 - cx, Double(y) + 0.5 - cy)
        return dx * dx + dy * dy <= r * r
    }

    /// Two discs joined by a thin neck, a notch cut into one, and a hole in the other: everything
    /// a blade cannot follow.
    static var awkward: Bitmap {
        sticker(width: 360, height: 200) { x, y in
            let left = disc(x, y, cx: 90, cy: 100, r: 70) && !disc(x, y, cx: 90, cy: 100, r: 12)
            let right = disc(x, y, cx: 270, cy: 100, r: 70) && !(x > 300 && abs(y - 100) < 4)
            let neck = x >= 150 && x <= 210 && abs(y - 100) <= 2
            return left || right || neck
        }
    }

    /// The distance from `point` (canvas pixels) to the nearest subject pixel's centre.
    static func distanceToSubject(_ point: Point, in sticker: CutSticker) -> Double {
        var best = Double.infinity
        let image = sticker.image
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y][3] >= 128 {
                let (dx, dy) = (Double(x) + 0.5 - point.x, Double(y) + 0.5 - point.y)
                best = min(best, dx * dx + dy * dy)
            }
        }
        return best.squareRoot()
    }

    /// Whether segments ab and cd cross (touching ends do not count).
    static func cross(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> Bool {
        func side(_ p: Point, _ q: Point, _ r: Point) -> Double {
            (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        }
        let (d1, d2, d3, d4) = (side(c, d, a), side(c, d, b), side(a, b, c), side(a, b, d))
        return d1 * d2 < 0 && d3 * d4 < 0
    }
}

@Suite("Cut lines")
struct CutLineTests {
    @Test func theCutLineIsOneClosedSmoothCurveOutsideTheSubjectAtTheOffset() throws {
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: PrintFixtures.options)
        let path = sticker.path
        #expect(path.segments.contains { if case .curve = $0 { true } else { false } }, "curves, not a staircase")
        let last = try #require(path.segments.last).end
        #expect(abs(last.x - path.start.x) < 1e-9 && abs(last.y - path.start.y) < 1e-9, "closed")

        let points = path.sampled(perSegment: 6)
        let distances = points.map { PrintFixtures.distanceToSubject($0, in: sticker) }
        // Everywhere at least the offset (20 px) from the subject, less the half pixel of tracing.
        #expect(try #require(distances.min()) >= 19, "\(distances.min() ?? 0)")
        // Where the subject bulges, exactly at the offset.
        let sorted = distances.sorted()
        #expect(abs(sorted[sorted.count / 2] - 20) < 1.5, "median \(sorted[sorted.count / 2])")

        // No self-intersections.
        var crossings = 0
        for i in 0..<(points.count - 3) {
            for j in (i + 2)..<(points.count - 1) where !(i == 0 && j == points.count - 2) {
                if PrintFixtures.cross(points[i], points[i + 1], points[j], points[j + 1]) { crossings += 1 }
            }
        }
        #expect(crossings == 0)

        // No bend tighter than the minimum radius (10 px), allowing the tracer's approximation.
        let spaced = path.sampled(perSegment: 3)
        var tightest = Double.infinity
        for index in 0..<spaced.count {
            let (a, b, c) = (
                spaced[(index + spaced.count - 4) % spaced.count], spaced[index], spaced[(index + 4) % spaced.count]
            )
            let (ab, bc, ca) = (hypot(b.x - a.x, b.y - a.y), hypot(c.x - b.x, c.y - b.y), hypot(a.x - c.x, a.y - c.y))
            let area = abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)) / 2
            if area > 1e-9, ab > 1, bc > 1 { tightest = min(tightest, ab * bc * ca / (4 * area)) }
        }
        #expect(tightest >= 7, "tightest bend \(tightest) px against a minimum of 10")
    }

    @Test func holesNecksAndNotchesAreClosedForTheBlade() throws {
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: PrintFixtures.options)
        let (x, y) = sticker.stickerOrigin
        let width = sticker.image.width
        #expect(sticker.inside[(y + 100) * width + x + 90], "the hole is inside the line")
        #expect(sticker.inside[(y + 100) * width + x + 330], "the notch is bridged")
        #expect(sticker.inside[(y + 80) * width + x + 180], "beside the thin neck is inside too")
    }

    @Test func partsFarApartGetOneLineAroundThemAll() throws {
        let twins = PrintFixtures.sticker(width: 600, height: 120) { x, y in
            PrintFixtures.disc(x, y, cx: 60, cy: 60, r: 50) || PrintFixtures.disc(x, y, cx: 540, cy: 60, r: 50)
        }
        let sticker = try CutSticker(sticker: twins, options: PrintFixtures.options)
        let (x, y) = sticker.stickerOrigin
        #expect(sticker.inside[(y + 60) * sticker.image.width + x + 60])
        #expect(sticker.inside[(y + 60) * sticker.image.width + x + 540])
        #expect(sticker.inside[(y + 60) * sticker.image.width + x + 300], "one shape, so one closed line")
    }

    @Test func theSVGHasThePNGsSizeInMillimetres() throws {
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: PrintFixtures.options)
        let svg = sticker.svg(title: "awkward <test> & co")
        let width = String(format: "%.3fmm", Double(sticker.image.width) / 10)
        let height = String(format: "%.3fmm", Double(sticker.image.height) / 10)
        #expect(svg.contains("width=\"\(width)\"") && svg.contains("height=\"\(height)\""), "\(svg.prefix(200))")
        #expect(svg.contains("awkward &lt;test&gt; &amp; co"))
        #expect(svg.contains("id=\"CutContour\"") && svg.contains(" C "))
    }

    @Test func whiteReachesTheCutLineAndTheSubjectKeepsItsColour() throws {
        var options = PrintFixtures.options
        options.whiteBacking = true
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: options)
        let (x, y) = sticker.stickerOrigin
        #expect(sticker.image[x + 270, y + 100] == [200, 60, 40, 255])
        // Inside the line but outside the subject: white; well outside the line: clear.
        let insideOnly = try #require(
            sticker.inside.indices.first { index in
                sticker.inside[index]
                    && sticker.image[index % sticker.image.width, index / sticker.image.width][0] == 255
            })
        #expect(
            sticker.image[insideOnly % sticker.image.width, insideOnly / sticker.image.width] == [255, 255, 255, 255])
        #expect(sticker.image[0, 0][3] == 0)
    }

    @Test func aStickerWithNothingOpaqueHasNoCutLine() {
        let empty = Bitmap(width: 40, height: 40, color: [0, 0, 0, 0])
        #expect(throws: PrintError.noSubject("empty.png")) {
            try CutSticker(sticker: empty, options: PrintFixtures.options, name: "empty.png")
        }
    }

    @Test func aSubjectClippedByItsPhotosEdgeIsWarnedAbout() throws {
        let clipped = PrintFixtures.sticker(width: 100, height: 100) { x, y in
            PrintFixtures.disc(x, y, cx: 0, cy: 50, r: 40)
        }
        let sticker = try CutSticker(sticker: clipped, options: PrintFixtures.options, name: "clipped.png")
        #expect(sticker.warnings.count == 1 && sticker.warnings[0].contains("clipped.png"))
    }

    @Test func lengthsPagesAndResolutionsAreReadWithTheirUnitsAndRanges() throws {
        #expect(try PrintLength.millimetres("2mm", option: "--offset", range: 0...10) == 2)
        #expect(try PrintLength.millimetres("0.5cm", option: "--offset", range: 0...10) == 5)
        #expect(try PrintLength.millimetres("1in", option: "--size", range: 10...1000) == 25.4)
        #expect(try PrintLength.page("letter") == (215.9, 279.4))
        #expect(try PrintLength.page("100x150mm") == (100, 150))
        let photoPage = try PrintLength.page("4x6in")
        #expect(abs(photoPage.width - 101.6) < 1e-9 && abs(photoPage.height - 152.4) < 1e-9)
        for bad in ["1e300mm", "nanmm", "2", "-1mm", "11mm"] {
            #expect(throws: PrintError.self) { try PrintLength.millimetres(bad, option: "--offset", range: 0...10) }
        }
        for bad in ["a9", "1e300x5mm", "100x", "x100mm"] {
            #expect(throws: PrintError.self) { try PrintLength.page(bad) }
        }
        #expect(throws: PrintError.self) { try PrintLength.dotsPerInch("1e300") }
    }
}

@Suite("Stickers sized for paper")
struct SheetStickerTests {
    @Test func aSmallSubjectInALargeClearPictureIsCutOutBeforeItIsEnlarged() throws {
        let folder = try TemporaryFolder("sized")
        let picture = PrintFixtures.sticker(width: 1500, height: 1500) { x, y in
            PrintFixtures.disc(x, y, cx: 1200, cy: 300, r: 10)
        }
        let file = folder.file("speck.png")
        try picture.write(to: file, format: .png)
        let sticker = try SheetStickers.prepare(file: file, name: "speck.png", size: 60, options: CutLineOptions())
        // 60 mm at 300 dpi is about 709 pixels: the canvas holds the subject and its cut line, not
        // the picture enlarged 35 times (52,000 pixels a side).
        #expect(sticker.image.width < 800 && sticker.image.height < 800, "\(sticker.image.width)")
        let (width, height) = sticker.sizeInMillimetres
        #expect(abs(max(width, height) - 60) < 1.5, "\(width) × \(height) mm")
        // Where the whole picture lies on the canvas: its subject's centre on the canvas's.
        let frame = sticker.pictureFrame
        let centreX = frame.x + 1200.0 / 1500 * frame.width
        #expect(abs(centreX - Double(sticker.image.width) / 2) < 3, "\(centreX)")
    }

    @Test func sizesAndOptionsWithNoRoomOrNoSenseAreRefused() throws {
        let folder = try TemporaryFolder("sized-bad")
        let file = folder.file("disc.png")
        try PrintFixtures.sticker(width: 100, height: 100) { x, y in PrintFixtures.disc(x, y, cx: 50, cy: 50, r: 40) }
            .write(to: file, format: .png)
        #expect(throws: PrintError.self) {
            try SheetStickers.prepare(file: file, name: "disc.png", size: 10, options: CutLineOptions(offset: 5))
        }
        #expect(throws: PrintError.self) {
            try CutSticker(sticker: PrintFixtures.awkward, options: CutLineOptions(offset: .nan))
        }
        #expect(throws: PrintError.self) {
            try CutSticker(sticker: PrintFixtures.awkward, options: CutLineOptions(dotsPerInch: 1e300))
        }
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: PrintFixtures.options)
        for gap in [0, -3, Double.nan, .infinity] {
            #expect(throws: PrintError.self) {
                try SheetPacker.pack([sticker], names: ["a"], options: SheetOptions(gap: gap))
            }
        }
    }
}
