import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: gradients, patterns and papers")
struct RenderBackgroundTests {
    func render(
        _ text: String, width: Double = 256, height: Double = 64, scale: Double = 1, format: OutputFormat = .png
    ) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: width, height: height))
        collage.style.background = try Background(parsing: text)
        return try fixtures.render(
            collage, "bg.\(format.rawValue)", options: RenderOptions(size: .scale(scale), format: format))
    }

    /// The mean of each channel over the image.
    func mean(_ image: Bitmap) -> [Double] {
        var sums = [Double](repeating: 0, count: image.channels)
        for (index, value) in image.pixels.enumerated() { sums[index % image.channels] += Double(value) }
        return sums.map { $0 / Double(image.width * image.height) }
    }

    @Test func aLinearGradientRunsAsCSSDrawsIt() throws {
        // To the right: each pixel's centre along the width.
        let across = try render("linear-gradient(90deg, #000000, #ffffff)")
        for x in [0, 64, 128, 200, 255] {
            let expected = (Double(x) + 0.5) / 256 * 255
            #expect(abs(Double(across[x, 30][0]) - expected) <= 1.5, "x \(x): \(across[x, 30]) ≠ \(expected)")
        }
        // 180° runs down; a stop at 50 % holds its colour to there and blends on after.
        let down = try render("linear-gradient(#ff0000, #ff0000 50%, #0000ff)", width: 64, height: 256)
        #expect(close(down[30, 100], [255, 0, 0], tolerance: 1))
        #expect(close(down[30, 192], [128, 0, 127], tolerance: 2))
        // At 45° on a wide canvas the corners are the ends (CSS's "magic corners").
        let turned = try render("linear-gradient(45deg, #000000, #ffffff)", width: 300, height: 100)
        #expect(turned[0, 99][0] <= 3 && turned[299, 0][0] >= 252)
        #expect(abs(Int(turned[150, 50][0]) - 128) <= 2, "the middle is halfway")
    }

    @Test func aRadialGradientReachesTheCornersAndKeepsAlphaWherePNGCan() throws {
        let image = try render("radial-gradient(#ffffff, #00000000)", width: 200, height: 100)
        #expect(image.channels == 4)
        #expect(close(image[100, 50], [255, 255, 255, 255], tolerance: 3))
        #expect(image[0, 0][3] <= 4 && image[199, 99][3] <= 4, "the corners are the last colour")
        // Halfway to the side along the middle row: t = ½ / √2 ≈ 0.354 of the way.
        #expect(abs(Int(image[150, 50][3]) - Int(255 * (1 - 0.354))) <= 3)
        // JPEG has no alpha: the gradient lies on white.
        let flat = try render("radial-gradient(#000000, #00000000)", width: 200, height: 100, format: .jpeg)
        #expect(flat.channels == 3 && flat[0, 0][0] >= 245 && flat[100, 50][0] <= 8)
    }

    @Test func patternsAreSizedInPointsAtEveryScale() throws {
        for scale in [1.0, 2.5] {
            let dots = try render("dots(#ff0000, #ffffff, 20)", width: 100, height: 100, scale: scale)
            func at(_ x: Double, _ y: Double) -> [UInt8] { Array(dots[Int(x * scale), Int(y * scale)].prefix(3)) }
            #expect(close(at(10, 10), [255, 0, 0]), "a dot's centre, scale \(scale)")
            #expect(close(at(70, 50), [255, 0, 0]), "another, a few periods on")
            #expect(close(at(0.5, 0.5), [255, 255, 255]) && close(at(20, 30), [255, 255, 255]), "between dots")
        }
        let checks = try render("checks(#000000, #ffffff, 10)", width: 40, height: 40)
        #expect(checks[5, 5][0] < 10 && checks[15, 5][0] > 245 && checks[15, 15][0] < 10 && checks[35, 25][0] > 245)
        let grid = try render("grid(#0000ff, #ffffff, 32)", width: 64, height: 64, scale: 2)
        #expect(grid[64, 20][2] > 200 && grid[64, 20][0] < 120, "a line every 32 points")
        #expect(close(Array(grid[32, 20].prefix(3)), [255, 255, 255]), "paper between lines")
        let stripes = try render("stripes(#000000, #ffffff, 20)", width: 100, height: 100)
        let dark = stripes.pixels.enumerated().filter { $0.offset % 3 == 0 && $0.element < 128 }.count
        #expect(abs(Double(dark) / 10_000 - 0.5) < 0.05, "ink and paper share the stripes equally")
    }

    @Test(arguments: PaperTexture.allCases)
    func aPaperHasItsColourAGrainAndLooksTheSameAtAnySize(_ texture: PaperTexture) throws {
        let small = try render("paper(\(texture.rawValue))", width: 300, height: 200)
        let again = try render("paper(\(texture.rawValue))", width: 300, height: 200)
        #expect(small == again, "made the same way every time")
        let average = mean(small)
        let wanted = [texture.color.red, texture.color.green, texture.color.blue].map(Double.init)
        for (found, colour) in zip(average, wanted) { #expect(abs(found - colour) < 8, "\(average) ≠ \(wanted)") }
        var spread = 0.0
        for index in stride(from: 0, to: small.pixels.count, by: 3) {
            spread += abs(Double(small.pixels[index]) - average[0])
        }
        #expect(spread / Double(small.width * small.height) > 1, "it has a grain")
        // At three times the size, reduced again, it is the same paper (the editor's and the export's).
        let fixtures = try RenderFixtures()
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 300, height: 200))
        collage.style.background = .paper(texture)
        try CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
            options: RenderOptions(size: .scale(3), format: .png), to: fixtures.url("large.png"))
        try fixtures.vips("resize", "large.png", "reduced.png", "0.3333333")
        let reduced = try Bitmap.read(fixtures.url("reduced.png"))
        var difference = 0.0
        for y in 0..<min(reduced.height, 200) {
            for x in 0..<min(reduced.width, 300) {
                difference += abs(Double(reduced[x, y][0]) - Double(small[x, y][0]))
            }
        }
        #expect(difference / 60_000 < 3, "mean difference \(difference / 60_000) between sizes")
    }

    @Test func theEditorsBackgroundIsTheExportsAndStaysWithinItsBudget() throws {
        let fixtures = try RenderFixtures()
        var collage = try RenderFixtures.collage(
            template: nil, photos: [], canvas: Size(width: 20_000, height: 20_000))
        collage.style.background = try Background(parsing: "linear-gradient(90deg, #000000, #ffffff)")
        let scale = try CollageRenderer().writeBackground(
            of: collage, scale: 1, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
            to: fixtures.url("drawn.png"))
        let drawn = try Bitmap.read(fixtures.url("drawn.png"))
        #expect(scale < 1 && drawn.width * drawn.height <= CollageRenderer.maximumDrawnBackgroundPixels)
        #expect(drawn[0, 10][0] <= 2 && drawn[drawn.width - 1, 10][0] >= 253)
        #expect(throws: RenderError.self) {
            try CollageRenderer().writeBackground(
                of: collage, scale: .infinity, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
                to: fixtures.url("bad.png"))
        }
    }

    /// A photo background covers the canvas (aspect-fill), blurred by points: the same softness at
    /// every scale, and a sharp edge in the photo becomes a ramp that wide.
    @Test func aPhotoBackgroundCoversTheCanvasBlurredByPoints() throws {
        let fixtures = try RenderFixtures()
        // Left half black, right half white, 400 × 100: covering a 200 × 100 canvas shows its middle.
        var photo = Bitmap(width: 400, height: 100, color: [0, 0, 0])
        for y in 0..<100 { for x in 200..<400 { photo[x, y] = [255, 255, 255] } }
        try photo.write(to: fixtures.url("edge.png"), format: .png)
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 200, height: 100))
        for (blur, scale) in [(0.0, 1.0), (8.0, 1.0), (8.0, 3.0)] {
            collage.style.background = .photo(reference: fixtures.url("edge.png").path, blur: blur)
            let image = try fixtures.render(
                collage, "photo-bg.png", options: RenderOptions(size: .scale(scale), format: .png))
            #expect(image.width == Int(200 * scale))
            let (left, middle, right) = (
                image[Int(20 * scale), 50][0], image[Int(100 * scale), 50][0], image[Int(180 * scale), 50][0]
            )
            #expect(left < 10 && right > 245, "blur \(blur) at \(scale): \(left) \(right)")
            if blur == 0 {
                #expect(image[Int(95 * scale), 50][0] < 10 && image[Int(105 * scale), 50][0] > 245, "a sharp edge")
            } else {
                #expect((90...165).contains(middle), "the edge blurred to grey in the middle: \(middle)")
                // Eight points from the edge, about one sigma: partway, at any scale.
                let near = Double(image[Int(108 * scale), 50][0])
                #expect((170...240).contains(near), "blur \(blur) at \(scale): \(near)")
            }
        }
        // A photo background that cannot be found is named.
        collage.style.background = .photo(reference: fixtures.url("gone.png").path, blur: 4)
        #expect(throws: RenderError.self) {
            try fixtures.render(collage, "gone.png", options: RenderOptions(size: .scale(1), format: .png))
        }
    }
}
