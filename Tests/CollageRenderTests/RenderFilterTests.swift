import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: filters and adjustments")
struct RenderFilterTests {
    /// A 200 × 100 canvas filled by one photo: a grey ramp on the left half, a saturated orange
    /// on the right.
    func render(_ look: ItemLook, scale: Double = 1) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        var source = Bitmap(width: 200, height: 100, color: [0, 0, 0])
        for y in 0..<100 {
            for x in 0..<200 {
                source[x, y] =
                    x < 100 ? [UInt8(x * 255 / 99), UInt8(x * 255 / 99), UInt8(x * 255 / 99)] : [230, 120, 40]
            }
        }
        try source.write(to: fixtures.url("photo.png"), format: .png)
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 200, height: 100))
        collage = try collage.applying([
            .addItem(
                id: "p", content: .photo(fixtures.url("photo.png").path),
                frame: Rect(x: 0, y: 0, width: 200, height: 100)),
            .setLook(id: "p", look: look),
        ])
        return try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(scale), format: .png))
    }

    func lightness(_ pixel: [UInt8]) -> Double { Double(Int(pixel[0]) + Int(pixel[1]) + Int(pixel[2])) / 3 }
    func chroma(_ pixel: [UInt8]) -> Int { Int(pixel.prefix(3).max() ?? 0) - Int(pixel.prefix(3).min() ?? 0) }

    @Test func asShotIsThePhotoAndExposureActsInLinearLight() throws {
        let plain = try render(.plain)
        #expect(close(plain[150, 50], [230, 120, 40], tolerance: 1))
        var brighter = Adjustments()
        brighter.exposure = 50  // one stop: twice the light
        let image = try render(ItemLook(adjustments: brighter))
        // Mid-grey (sRGB 118 ≈ 18 % light) doubled is about 36 % light: sRGB ≈ 164.
        let grey = plain[46, 50][0]
        #expect(abs(Int(grey) - 118) <= 3)
        #expect(abs(Int(image[46, 50][0]) - 164) <= 4, "\(image[46, 50])")
        #expect(image[0, 50][0] <= 2, "black stays black")
    }

    @Test func saturationWarmthAndContrastMoveTheirOwnQualities() throws {
        let plain = try render(.plain)
        var mono = Adjustments()
        mono.saturation = -100
        let grey = try render(ItemLook(adjustments: mono))
        #expect(chroma(grey[150, 50]) <= 2, "no colour left: \(grey[150, 50])")
        #expect(abs(lightness(grey[150, 50]) - lightness(plain[150, 50])) < 30, "its lightness kept")
        var warm = Adjustments()
        warm.warmth = 60
        let warmer = try render(ItemLook(adjustments: warm))
        #expect(Int(warmer[50, 50][0]) - Int(warmer[50, 50][2]) > 15, "grey turns amber: \(warmer[50, 50])")
        var contrast = Adjustments()
        contrast.contrast = 60
        let punchy = try render(ItemLook(adjustments: contrast))
        #expect(punchy[20, 50][0] < plain[20, 50][0] && punchy[80, 50][0] > plain[80, 50][0], "darks down, lights up")
        var vignette = Adjustments()
        vignette.vignette = 80
        let framed = try render(ItemLook(adjustments: vignette))
        #expect(framed[199, 0][0] < plain[199, 0][0] - 30 && abs(Int(framed[101, 50][0]) - Int(plain[101, 50][0])) <= 2)
    }

    @Test(arguments: Filter.catalog.map(\.id))
    func everyFilterChangesThePhotoAndStrengthZeroIsNone(_ id: String) throws {
        let plain = try render(.plain)
        let filtered = try render(ItemLook(filter: FilterChoice(id: id)))
        var difference = 0
        for index in plain.pixels.indices { difference += abs(Int(plain.pixels[index]) - Int(filtered.pixels[index])) }
        #expect(
            difference / plain.pixels.count >= 3, "\(id) changes the photo (mean \(difference / plain.pixels.count))")
        #expect(try render(ItemLook(filter: FilterChoice(id: id, strength: 0))) == plain)
    }

    /// The spread (standard deviation) of red over the middle of a render of a flat grey photo.
    func grainSpread(scale: Double) throws -> Double {
        let fixtures = try RenderFixtures()
        try Bitmap(width: 120, height: 120, color: [128, 128, 128]).write(to: fixtures.url("grey.png"), format: .png)
        var grainy = Adjustments()
        grainy.grain = 80
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 120, height: 120))
        collage = try collage.applying([
            .addItem(
                id: "p", content: .photo(fixtures.url("grey.png").path),
                frame: Rect(x: 0, y: 0, width: 120, height: 120)),
            .setLook(id: "p", look: ItemLook(adjustments: grainy)),
        ])
        let image = try fixtures.render(collage, "grain.png", options: RenderOptions(size: .scale(scale), format: .png))
        var values: [Double] = []
        for y in image.height / 4..<image.height * 3 / 4 {
            for x in image.width / 4..<image.width * 3 / 4 { values.append(Double(image[x, y][0])) }
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
    }

    @Test func grainHasTheSameStrengthOnScreenAndInPrint() throws {
        // Grain 80 is 12.8 levels of spread, whether a grain is a pixel (the editor's drawing)
        // or several (a print at three pixels a point).
        let screen = try grainSpread(scale: 1)
        let print = try grainSpread(scale: 3)
        #expect((11...14.6).contains(screen), "on screen: \(screen)")
        #expect((11...14.6).contains(print), "in print: \(print)")
    }

    @Test func grainIsTheSameSizeAtEveryScaleAndTheDrawnPhotoIsTheExportsCell() throws {
        var grainy = Adjustments()
        grainy.grain = 80
        let small = try render(ItemLook(adjustments: grainy))
        let again = try render(ItemLook(adjustments: grainy))
        #expect(small == again, "the same grain every time")
        let fixtures = try RenderFixtures()
        try RenderFixtures.quadrants(width: 200, height: 100).write(to: fixtures.url("q.png"), format: .png)
        let item = CollageItem(
            id: "p", content: .photo("q.png"), frame: Rect(x: 0, y: 0, width: 200, height: 100),
            look: ItemLook(flipsHorizontally: true, filter: FilterChoice(id: "mono")))
        let drawn = try CollageRenderer().writeDrawnItem(
            item, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), scale: 1, to: fixtures.url("d.png"))
        let cell = try Bitmap.read(fixtures.url("d.png"))
        #expect(drawn.width == 200 && drawn.height == 100)
        #expect(chroma(cell[20, 20]) <= 2, "the filter is drawn")
        // Mirrored as the export mirrors it: green's lighter grey on the left, red's darker on the right.
        #expect(Int(cell[20, 20][0]) > Int(cell[180, 20][0]) + 40, "\(cell[20, 20]) \(cell[180, 20])")
    }
}
