import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: photos too small for their frames")
struct SoftPhotoTests {
    /// Side by side on a 400-point square canvas with no gaps, each frame is 200 × 400 points: a
    /// 100 × 400 px photo fills it with all its pixels, so at 1 px a point it is enlarged 2×
    /// (just sharp enough), at 3 px a point 6× (soft); a 1,200 × 2,400 px photo is sharp at both.
    /// A small photo and a large one side by side, with no gaps, and where their files are.
    func smallAndLarge() throws -> (Collage, DirectoryPhotoSource, RenderFixtures) {
        let fixtures = try RenderFixtures()
        let small = try fixtures.solid("small.png", [200, 40, 40], width: 100, height: 400)
        let large = try fixtures.solid("large.jpg", [40, 40, 200], width: 1200, height: 2400, format: .jpeg)
        let collage = try RenderFixtures.collage(
            template: "sideBySide", photos: [small, large], style: Style(spacing: 0, padding: 0))
        return (collage, DirectoryPhotoSource(baseDirectory: fixtures.directory), fixtures)
    }

    @Test func theEnlargedPhotoIsNamedWithHowMuch() throws {
        let (collage, photos, fixtures) = try smallAndLarge()
        defer { withExtendedLifetime(fixtures) {} }
        let renderer = CollageRenderer()
        #expect(renderer.softPhotos(in: collage, photos: photos, size: .longSide(400)).isEmpty)
        let soft = renderer.softPhotos(in: collage, photos: photos, size: .scale(3))
        #expect(soft.map(\.itemID) == ["i0"])
        #expect(abs((soft.first?.pixelsPerOutputPixel ?? 0) - 1.0 / 6) < 0.001)
        #expect(soft.first?.dotsPerInch == nil && soft.first?.file.lastPathComponent == "small.png")
        // Zoomed in twice, the large photo shows a quarter of its pixels: at 3 px a point its
        // frame of 600 px across shows 600 of them, still sharp; the small one 50 of them.
        var zoomed = collage
        for id in ["i0", "i1"] { zoomed = try zoomed.applying(.setCrop(id: id, crop: Crop(zoom: 2))) }
        let zoomedSoft = renderer.softPhotos(in: zoomed, photos: photos, size: .scale(3))
        #expect(zoomedSoft.map(\.itemID) == ["i0"])
        #expect(abs((zoomedSoft.first?.pixelsPerOutputPixel ?? 0) - 1.0 / 12) < 0.001)
    }

    /// On 4 × 4 in paper at 300 DPI each frame is 2 in wide: the small photo's 100 px there
    /// print at 50 DPI, the large one's 1,200 at 600.
    @Test func aPrintSaysTheDotsPerInchEachPhotoPrintsAt() throws {
        let (collage, photos, fixtures) = try smallAndLarge()
        defer { withExtendedLifetime(fixtures) {} }
        let print = try #require(PrintSize(parsing: "4x4in@300"))
        let soft = CollageRenderer().softPhotos(in: collage, photos: photos, size: .print(print))
        #expect(soft.map(\.itemID) == ["i0"])
        #expect(abs((soft.first?.dotsPerInch ?? 0) - 50) < 0.5, "\(soft)")
    }
}
