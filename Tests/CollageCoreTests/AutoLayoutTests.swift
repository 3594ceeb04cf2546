import CollageCore
import Foundation
import Testing

/// Layouts made for the photos at hand: shapes kept, gaps and margins exact, seeds stable.
struct AutoLayoutTests {
    /// Portrait, landscape, square and panorama photos, a seeded mix.
    static func mixed(_ count: Int, seed: UInt64 = 7) -> [Double] {
        let shapes: [Double] = [0.6667, 1.5, 1, 1.3333, 0.75, 1.7778, 0.5625, 3]
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return shapes[Int(state >> 33) % shapes.count]
        }
    }

    let canvas = Size(width: 1200, height: 1200)

    @Test(arguments: [1, 2, 3, 5, 8, 16, 30, 40])
    func withoutCropEveryPhotoKeepsItsShapeWithinAPixel(count: Int) throws {
        let aspects = Self.mixed(count)
        let result = try AutoLayout.arrange(
            aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 20, options: .init(maximumCrop: 0))
        #expect(result.frames.count == count)
        for (frame, aspect) in zip(result.frames, aspects) {
            #expect(abs(frame.width - aspect * frame.height) < 1, "\(frame) for aspect \(aspect)")
        }
        #expect(result.cropLoss.allSatisfy { $0 == 0 })
    }

    @Test(arguments: [2, 4, 8, 16, 30])
    func gapsAreExactlyTheSpacingAndMarginsExactlyThePadding(count: Int) throws {
        let spacing = 10.0
        let padding = 24.0
        let result = try AutoLayout.arrange(
            aspectRatios: Self.mixed(count, seed: 3), canvas: Size(width: 1500, height: 1200), spacing: spacing,
            padding: padding)
        let frames = result.frames
        // Edges are kept to a thousandth of a point.
        let tolerance = 1.5e-3
        let left = frames.map(\.x).min() ?? 0
        let top = frames.map(\.y).min() ?? 0
        let right = frames.map(\.maxX).max() ?? 0
        let bottom = frames.map(\.maxY).max() ?? 0
        if result.emptyShare == 0 {
            #expect(abs(left - padding) < tolerance && abs(top - padding) < tolerance)
            #expect(abs(right - (1500 - padding)) < tolerance && abs(bottom - (1200 - padding)) < tolerance)
        }
        for (index, frame) in frames.enumerated() {
            // Each frame meets its neighbours at exactly the spacing, or the edge of the layout.
            if abs(frame.maxX - right) > tolerance {
                #expect(frames.contains { abs($0.x - (frame.maxX + spacing)) < tolerance }, "photo \(index)")
            }
            if abs(frame.maxY - bottom) > tolerance {
                #expect(frames.contains { abs($0.y - (frame.maxY + spacing)) < tolerance }, "photo \(index)")
            }
            for other in frames[(index + 1)...] {
                let apartAcross =
                    other.x >= frame.maxX + spacing - tolerance || frame.x >= other.maxX + spacing - tolerance
                let apartDown =
                    other.y >= frame.maxY + spacing - tolerance || frame.y >= other.maxY + spacing - tolerance
                #expect(apartAcross || apartDown, "\(frame) and \(other) are closer than the spacing")
            }
        }
    }

    @Test func theSameSeedGivesTheSameLayoutAndOthersGiveOthers() throws {
        let aspects = Self.mixed(9)
        func layout(_ seed: UInt64) throws -> [Rect] {
            try AutoLayout.arrange(
                aspectRatios: aspects, canvas: canvas, spacing: 8, padding: 8, options: .init(seed: seed)
            ).frames
        }
        #expect(try layout(42) == layout(42))
        // Each next seed is another good layout (they come round again after the last good one):
        // a Shuffle always changes what is seen.
        let others = try (0..<4).map { try layout($0) }
        for index in 0..<3 { #expect(others[index] != others[index + 1], "seeds \(index) and \(index + 1)") }
    }

    @Test func readingOrderRunsFromTheTopLeftToTheBottomRight() throws {
        for seed in 0..<5 as Range<UInt64> {
            let frames = try AutoLayout.arrange(
                aspectRatios: Self.mixed(7), canvas: canvas, spacing: 6, padding: 6, options: .init(seed: seed)
            ).frames
            let first = try #require(frames.first)
            let last = try #require(frames.last)
            let (left, top) = (frames.map(\.x).min() ?? 0, frames.map(\.y).min() ?? 0)
            let (right, bottom) = (frames.map(\.maxX).max() ?? 0, frames.map(\.maxY).max() ?? 0)
            #expect(first.x == left && first.y == top)
            #expect(abs(last.maxX - right) < 1e-9 && abs(last.maxY - bottom) < 1e-9)
        }
    }

    @Test(arguments: [0, 3, 5])
    func theHeroIsClearlyTheLargest(hero: Int) throws {
        let result = try AutoLayout.arrange(
            aspectRatios: Self.mixed(6, seed: 11), canvas: canvas, spacing: 8, padding: 8,
            options: .init(seed: 1, hero: hero))
        let areas = result.frames.map { $0.width * $0.height }
        for (index, area) in areas.enumerated() where index != hero {
            #expect(areas[hero] > 1.5 * area, "hero \(areas[hero]) against photo \(index) \(area)")
        }
    }

    /// A thumbnail among large photos took the largest frame (three landscape photos on a
    /// square: one on top, twice the others), enlarged 43 times. Given the photos' pixels, a
    /// photo with less than half another's gets no larger frame than it; photos of one size
    /// get the layout they had without them, and a hero asked for stays the hero.
    @Test func aPhotoWithFewerPixelsGetsNoLargerFrameThanASharperOne() throws {
        let aspects = [1.5, 1.5, 1.5]
        let plain = try AutoLayout.arrange(aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 12)
        let plainAreas = plain.frames.map { $0.width * $0.height }
        let largest = try #require(plainAreas.indices.max { plainAreas[$0] < plainAreas[$1] })
        #expect(plainAreas[largest] > 1.5 * (plainAreas.min() ?? 0), "\(plainAreas): one frame is the largest")
        var pixels = [12e6, 12e6, 12e6]
        pixels[largest] = 1_200
        let aware = try AutoLayout.arrange(
            aspectRatios: aspects, pixelCounts: pixels, canvas: canvas, spacing: 12, padding: 12)
        let areas = aware.frames.map { $0.width * $0.height }
        for other in areas.indices where other != largest {
            #expect(areas[largest] <= areas[other] + 1, "the thumbnail's \(areas[largest]) against \(areas[other])")
        }
        #expect(aware.emptyShare == 0)
        let alike = try AutoLayout.arrange(
            aspectRatios: aspects, pixelCounts: [12e6, 12e6, 12e6], canvas: canvas, spacing: 12, padding: 12)
        #expect(alike.frames == plain.frames)
        let hero = try AutoLayout.arrange(
            aspectRatios: aspects, pixelCounts: pixels, canvas: canvas, spacing: 12, padding: 12,
            options: .init(hero: largest))
        let heroAreas = hero.frames.map { $0.width * $0.height }
        #expect(heroAreas.indices.allSatisfy { $0 == largest || heroAreas[largest] > heroAreas[$0] })
    }

    @Test func aMixOfPhotosFillsTheCanvasWithLittleCropping() throws {
        for count in [8, 16, 30] {
            let result = try AutoLayout.arrange(
                aspectRatios: Self.mixed(count, seed: 5), canvas: canvas, spacing: 10, padding: 10)
            #expect(result.emptyShare == 0, "\(count) photos leave \(result.emptyShare) empty")
            // A little crop buys even sizes; bench/layout measures the mean over many sets (≤ 2 %).
            #expect((result.cropLoss.max() ?? 1) <= 0.05, "\(count) photos lose \(result.cropLoss)")
        }
    }

    @Test func theCropNeverPassesTheLimitAndWhatIsLeftStaysEmpty() throws {
        // Two panoramas cannot fill a tall canvas: the crop stops at the limit.
        let result = try AutoLayout.arrange(
            aspectRatios: [3, 3], canvas: Size(width: 800, height: 1600), spacing: 10, padding: 10,
            options: .init(maximumCrop: 0.05))
        #expect(result.cropLoss.allSatisfy { $0 <= 0.05 + 1e-9 })
        #expect(result.emptyShare > 0.3)
    }

    @Test func badRequestsAreRefusedWithTheirReason() {
        let size = Size(width: 100, height: 100)
        #expect(throws: AutoLayout.Failure.photoCount(0)) {
            try AutoLayout.arrange(aspectRatios: [], canvas: size, spacing: 0, padding: 0)
        }
        #expect(throws: AutoLayout.Failure.photoCount(41)) {
            try AutoLayout.arrange(aspectRatios: Array(repeating: 1, count: 41), canvas: size, spacing: 0, padding: 0)
        }
        #expect(throws: AutoLayout.Failure.invalidAspectRatio(index: 1)) {
            try AutoLayout.arrange(aspectRatios: [1, .nan], canvas: size, spacing: 0, padding: 0)
        }
        #expect(throws: AutoLayout.Failure.invalidHero(2, count: 2)) {
            try AutoLayout.arrange(aspectRatios: [1, 1], canvas: size, spacing: 0, padding: 0, options: .init(hero: 2))
        }
        #expect(throws: AutoLayout.Failure.invalidCrop(1e300)) {
            try AutoLayout.arrange(
                aspectRatios: [1, 1], canvas: size, spacing: 0, padding: 0, options: .init(maximumCrop: 1e300))
        }
        #expect(throws: AutoLayout.Failure.noRoom) {
            try AutoLayout.arrange(aspectRatios: [1, 1, 1], canvas: size, spacing: 60, padding: 10)
        }
    }
}

/// The arrangement kept in documents: version 2 writes it, version 1 documents still read.
struct ArrangementDocumentTests {
    func collage() -> Collage {
        let photos = (1...3).map { index in
            CollageItem(
                id: "p\(index)", content: .photo("photo\(index).jpg"),
                frame: Rect(x: Double(index) * 10, y: 10, width: 100, height: 80))
        }
        return Collage(
            id: "c", title: "Arranged", created: Date(timeIntervalSince1970: 1_800_000_000),
            canvas: Size(width: 1200, height: 800), templateID: "strip", items: photos)
    }

    @Test func anArrangeEditLaysPhotosOutAndIsKeptThroughJSON() throws {
        let frames = [
            "p1": Rect(x: 12, y: 12, width: 500, height: 400), "p2": Rect(x: 524, y: 12, width: 300, height: 400),
        ]
        let arranged = try collage().applying(
            .arrange(frames: frames, arrangement: Arrangement(seed: 3, hero: "p1", maximumCrop: 0.05)))
        #expect(arranged.templateID == nil)
        #expect(arranged.item("p1")?.frame == frames["p1"] && arranged.item("p1")?.slot == nil)
        #expect(arranged.item("p3")?.frame == collage().item("p3")?.frame)
        let again = try CollageDocument.decode(CollageDocument.encode(arranged))
        #expect(again.arrangement == Arrangement(seed: 3, hero: "p1", maximumCrop: 0.05))
        #expect(again == arranged)
        guard case .object(let written) = try JSONValue.parse(CollageDocument.encode(arranged)) else {
            Issue.record("not an object")
            return
        }
        #expect(written["version"] == .number(2))
        // A photo moved by hand makes the layout the person's own; a sticker does not.
        #expect(try arranged.applying(.moveItem(id: "p2", origin: Point(x: 40, y: 40))).arrangement == nil)
        #expect(try arranged.applying(.rotateItem(id: "p2", degrees: 5)).arrangement == nil)
        #expect(try arranged.applying(.rename(title: "Still arranged")).arrangement != nil)
        // Deleting the hero leaves an arrangement without one, and the collage stays valid.
        let withoutHero = try arranged.applying(.removeItem(id: "p1"))
        #expect(withoutHero.arrangement?.hero == nil && withoutHero.arrangement?.seed == 3)
        #expect(CollageDocument.issues(in: withoutHero).isEmpty)
        // A template takes over from the arrangement.
        #expect(try arranged.applying(.applyTemplate(id: "strip")).arrangement == nil)
        #expect(throws: EditError.unknownItem("zz")) {
            try collage().applying(
                .arrange(frames: ["zz": Rect(x: 0, y: 0, width: 50, height: 50)], arrangement: .init()))
        }
    }

    @Test func aVersionOneDocumentStillOpens() throws {
        let text = #"""
            {"format": "collage", "version": 1, "id": "old", "title": "From before",
             "created": "2026-01-01T00:00:00.000Z", "updated": "2026-01-01T00:00:00.000Z",
             "canvas": {"width": 1200, "height": 1200}, "template": "grid2x2", "items": []}
            """#
        let collage = try CollageDocument.decode(Data(text.utf8))
        #expect(collage.title == "From before" && collage.arrangement == nil && collage.templateID == "grid2x2")
    }

    @Test func aBadArrangementIsNamedWithItsPath() {
        let text = #"""
            {"format": "collage", "version": 2, "id": "x", "title": "x",
             "created": "2026-01-01T00:00:00.000Z", "updated": "2026-01-01T00:00:00.000Z",
             "canvas": {"width": 1200, "height": 1200}, "items": [],
             "arrangement": {"seed": -1, "maximumCrop": 1e300, "hero": "ghost"}}
            """#
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("a bad arrangement was read")
        } catch {
            let paths = Set(error.issues.map(\.path))
            #expect(paths.isSuperset(of: ["arrangement.seed", "arrangement.maximumCrop"]), "\(error.issues)")
        }
    }

    @Test func withAnyOrderTheHeroCanLeadFromTheMiddleOfTheList() throws {
        let aspects = [1.0, 1.5, 1.5, 1.5]
        let result = try AutoLayout.arrange(
            aspectRatios: aspects, canvas: Size(width: 1200, height: 1200), spacing: 12, padding: 12,
            options: .init(hero: 1, keepsOrder: false))
        let areas = result.frames.map { $0.width * $0.height }
        for index in [0, 2, 3] { #expect(areas[1] > 2 * areas[index]) }
    }
}
