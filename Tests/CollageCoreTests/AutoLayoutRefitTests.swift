import CollageCore
import Foundation
import Testing

/// A smart layout made again for new spacing, padding or photo shapes keeps its tree: every
/// photo stays where it was among the others.
struct AutoLayoutRefitTests {
    let canvas = Size(width: 1200, height: 1200)

    /// For each pair of photos, whether one lies wholly left of, or above, the other.
    static func relations(_ frames: [Rect]) -> [String] {
        var relations: [String] = []
        for a in frames.indices {
            for b in frames.indices where a != b {
                if frames[a].maxX <= frames[b].x + 0.01 { relations.append("\(a) left of \(b)") }
                if frames[a].maxY <= frames[b].y + 0.01 { relations.append("\(a) above \(b)") }
            }
        }
        return relations
    }

    @Test(arguments: [1, 2, 3, 6, 12, 25])
    func theSameSettingsGiveTheSameFrames(count: Int) throws {
        let aspects = AutoLayoutTests.mixed(count, seed: 11)
        let original = try AutoLayout.arrange(aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 12)
        let again = try #require(
            AutoLayout.refit(
                frames: original.frames, gap: 12, aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 12))
        for (a, b) in zip(original.frames, again.frames) {
            #expect(abs(a.x - b.x) < 0.01 && abs(a.y - b.y) < 0.01 && abs(a.width - b.width) < 0.01, "\(a) vs \(b)")
        }
    }

    @Test(arguments: [0.0, 4, 30, 60])
    func newSpacingKeepsEveryPhotosPlaceAmongTheOthers(spacing: Double) throws {
        let aspects = AutoLayoutTests.mixed(8, seed: 5)
        let original = try AutoLayout.arrange(
            aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 12, options: .init(seed: 2))
        let refitted = try #require(
            AutoLayout.refit(
                frames: original.frames, gap: 12, aspectRatios: aspects, canvas: canvas, spacing: spacing, padding: 40))
        #expect(Self.relations(refitted.frames) == Self.relations(original.frames))
        // The new spacing and padding hold exactly.
        let tolerance = 2e-3
        #expect(refitted.frames.allSatisfy { $0.x >= 40 - tolerance && $0.maxX <= 1160 + tolerance })
        for a in refitted.frames {
            for b in refitted.frames where a != b && abs(a.maxX + spacing - b.x) < 1 {
                #expect(abs(a.maxX + spacing - b.x) < tolerance)
            }
        }
    }

    @Test func photosTradingPlacesAreRefittedToTheirNewShapes() throws {
        // A panorama and a portrait trade places: each frame takes its new photo's shape.
        let aspects = [3.0, 1, 0.6667, 1.5]
        let original = try AutoLayout.arrange(
            aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 12, options: .init(maximumCrop: 0))
        var swapped = aspects
        swapped.swapAt(0, 2)
        let refitted = try #require(
            AutoLayout.refit(
                frames: original.frames, gap: 12, aspectRatios: swapped, canvas: canvas, spacing: 12, padding: 12,
                maximumCrop: 0))
        #expect(Self.relations(refitted.frames) == Self.relations(original.frames))
        for (frame, aspect) in zip(refitted.frames, swapped) {
            #expect(abs(frame.width / frame.height - aspect) / aspect < 0.01, "\(frame) for \(aspect)")
        }
    }

    @Test func rowsWhoseGapsOnlyDoNotOverlapAreNotColumns() throws {
        // Two rows of two, the gaps 10 points apart: cut into columns, the frames would change.
        let frames = [
            Rect(x: 0, y: 0, width: 600, height: 400), Rect(x: 612, y: 0, width: 588, height: 400),
            Rect(x: 0, y: 412, width: 590, height: 788), Rect(x: 602, y: 412, width: 598, height: 788),
        ]
        let aspects = frames.map { $0.width / $0.height }
        let again = try #require(
            AutoLayout.refit(
                frames: frames, gap: 12, aspectRatios: aspects, canvas: canvas, spacing: 12, padding: 0,
                maximumCrop: 0.1))
        #expect(Self.relations(again.frames) == Self.relations(frames))
        for (a, b) in zip(frames, again.frames) {
            #expect(abs(a.x - b.x) < 0.01 && abs(a.maxX - b.maxX) < 0.01, "the rows keep their own gaps: \(a) vs \(b)")
        }
    }

    @Test func framesMovedByHandAreNotALayoutToKeep() {
        // Two frames that overlap cannot be cut apart.
        let frames = [Rect(x: 0, y: 0, width: 600, height: 600), Rect(x: 300, y: 300, width: 600, height: 600)]
        #expect(
            AutoLayout.refit(frames: frames, gap: 0, aspectRatios: [1, 1], canvas: canvas, spacing: 0, padding: 0)
                == nil)
        // The classic pinwheel of five boxes has no straight cut.
        let pinwheel = [
            Rect(x: 0, y: 0, width: 800, height: 400), Rect(x: 800, y: 0, width: 400, height: 800),
            Rect(x: 400, y: 800, width: 800, height: 400), Rect(x: 0, y: 400, width: 400, height: 800),
            Rect(x: 400, y: 400, width: 400, height: 400),
        ]
        #expect(
            AutoLayout.refit(
                frames: pinwheel, gap: 0, aspectRatios: [2, 0.5, 2, 0.5, 1], canvas: canvas, spacing: 0, padding: 0)
                == nil)
        // Absurd numbers are refused, not trapped on.
        #expect(
            AutoLayout.refit(
                frames: [Rect(x: 0, y: 0, width: 1, height: 1), Rect(x: 1, y: 0, width: 1, height: 1)], gap: 0,
                aspectRatios: [1, 1], canvas: canvas, spacing: 1e300, padding: 0) == nil)
        #expect(
            AutoLayout.refit(
                frames: [Rect(x: .nan, y: 0, width: 1, height: 1)], gap: 0, aspectRatios: [1], canvas: canvas,
                spacing: 0,
                padding: 0) == nil)
    }
}

/// Many photos of extreme shapes: laid out whenever a usable layout exists, and a plain reason when not.
struct AutoLayoutManyPhotosTests {
    @Test(arguments: [29, 35, 40])
    func manyPhotosOfExtremeShapesAreLaidOut(count: Int) throws {
        let shapes: [Double] = [3, 1.0 / 3, 16.0 / 9, 9.0 / 16, 1, 4, 0.25]
        let aspects = (0..<count).map { shapes[$0 % shapes.count] }
        for spacing in [0.0, 12] {
            let result = try AutoLayout.arrange(
                aspectRatios: aspects, canvas: Size(width: 1200, height: 1200), spacing: spacing, padding: spacing)
            #expect(result.frames.count == count)
            #expect(result.frames.allSatisfy { min($0.width, $0.height) >= EditRules.minimumItemSide })
        }
    }

    @Test func whenNoLayoutCanHoldThemTheReasonIsSaid() {
        // Forty squares on a 120-point canvas: each would be under 20 points.
        #expect(throws: AutoLayout.Failure.framesTooSmall(count: 40)) {
            try AutoLayout.arrange(
                aspectRatios: Array(repeating: 1, count: 40), canvas: Size(width: 120, height: 120), spacing: 0,
                padding: 0)
        }
        #expect(AutoLayout.Failure.framesTooSmall(count: 40).description.contains("use fewer photos"))
    }
}
