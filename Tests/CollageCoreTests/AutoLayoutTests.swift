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
        let others = try Set((0..<6).map { try layout($0).map { "\($0)" }.joined() })
        #expect(others.count > 1)
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

    @Test func aMixOfPhotosFillsTheCanvasWithLittleCropping() throws {
        for count in [8, 16, 30] {
            let result = try AutoLayout.arrange(
                aspectRatios: Self.mixed(count, seed: 5), canvas: canvas, spacing: 10, padding: 10)
            #expect(result.emptyShare == 0, "\(count) photos leave \(result.emptyShare) empty")
            #expect((result.cropLoss.max() ?? 1) <= 0.02, "\(count) photos lose \(result.cropLoss)")
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
