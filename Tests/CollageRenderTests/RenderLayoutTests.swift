import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: layout, background, corners, rotation")
struct RenderLayoutTests {
    static let colors: [[UInt8]] = [[220, 30, 30], [30, 200, 40], [40, 60, 220], [240, 200, 20]]

    @Test func eachSlotShowsItsPhotoAndGapsShowTheBackground() throws {
        let fixtures = try RenderFixtures()
        let photos = try Self.colors.enumerated().map { index, color in
            try fixtures.solid("p\(index).png", color, width: 90 + index * 30, height: 60 + index * 10)
        }
        let style = Style(background: .color(Color(red: 10, green: 20, blue: 30)), spacing: 20, padding: 10)
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: photos, style: style)
        let image = try fixtures.render(collage, "grid.png", options: RenderOptions(size: .scale(2), format: .png))
        #expect(image.width == 800 && image.height == 800)
        let frames = try #require(collage.template).frames(for: collage)
        for (frame, color) in zip(frames, Self.colors) {
            let center = frame.center
            #expect(close(image[Int(center.x * 2), Int(center.y * 2)], color, tolerance: 2))
            // Just inside each corner of the frame is still the photo: aspect-fill leaves no bars.
            #expect(close(image[Int(frame.x * 2) + 1, Int(frame.y * 2) + 1], color, tolerance: 2))
            #expect(close(image[Int(frame.maxX * 2) - 2, Int(frame.maxY * 2) - 2], color, tolerance: 2))
        }
        let background: [UInt8] = [10, 20, 30]
        for point in [(5, 5), (400, 3), (400, 400), (795, 400), (10, 790), (400, 150)] {
            #expect(image[point.0, point.1] == background, "gap or padding pixel \(point)")
        }
    }

    @Test func transparentBackgroundStaysTransparentInPNG() throws {
        let fixtures = try RenderFixtures()
        let photos = try (0..<3).map { try fixtures.solid("p\($0).png", Self.colors[$0]) }
        let collage = try RenderFixtures.collage(
            template: "strip", photos: photos, style: Style(background: .transparent, spacing: 30, padding: 20))
        let image = try fixtures.render(collage, "strip.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(image.channels == 4)
        #expect(image[5, 200][3] == 0, "padding is see-through")
        let frames = try #require(collage.template).frames(for: collage)
        let gapX = Int((frames[0].maxX + frames[1].x) / 2)
        #expect(image[gapX, 200][3] == 0, "spacing is see-through")
        #expect(image[Int(frames[1].center.x), 200] == Self.colors[1] + [255])
    }

    @Test func jpegFlattensATransparentBackgroundOntoWhite() throws {
        let fixtures = try RenderFixtures()
        let photo = try fixtures.solid("p.png", [0, 0, 0])
        let collage = try RenderFixtures.collage(
            template: "grid2x2", photos: [photo], style: Style(background: .transparent, spacing: 20, padding: 20))
        let image = try fixtures.render(collage, "out.jpg", options: RenderOptions(size: .scale(1), format: .jpeg))
        #expect(image.channels == 3)
        #expect(close(image[5, 5], [255, 255, 255], tolerance: 3))
    }

    @Test func cornerRadiusClearsTheCorners() throws {
        let fixtures = try RenderFixtures()
        let photo = try fixtures.solid("p.png", [200, 0, 0])
        let collage = try RenderFixtures.collage(
            template: "grid2x2", photos: [photo],
            style: Style(background: .white, spacing: 0, padding: 0, cornerRadius: 40))
        let image = try fixtures.render(collage, "round.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(image[1, 1] == [255, 255, 255], "the corner is background")
        #expect(image[198, 1] == [255, 255, 255])
        #expect(image[100, 100] == [200, 0, 0], "the middle is photo")
        #expect(image[100, 1] == [200, 0, 0], "the middle of an edge is photo")
        // The curve is antialiased: some corner pixels sit between photo and background.
        let blended = (0..<40).flatMap { y in (0..<40).map { x in image[x, y] } }.filter {
            $0 != [255, 255, 255] && $0 != [200, 0, 0]
        }
        #expect(blended.count >= 20)
    }

    @Test func rotatingNinetyDegreesTurnsThePhotoClockwise() throws {
        let fixtures = try RenderFixtures()
        var halves = Bitmap(width: 200, height: 100, color: [255, 0, 0])
        for y in 0..<100 { for x in 100..<200 { halves[x, y] = [0, 0, 255] } }
        let file = fixtures.url("halves.png")
        try halves.write(to: file, format: .png)
        var collage = Collage(id: "r", title: "r", created: Date(), canvas: Size(width: 400, height: 400))
        collage.style.background = .white
        collage = try collage.applying([
            .addItem(id: "a", content: .photo(file.path), frame: Rect(x: 100, y: 150, width: 200, height: 100)),
            .rotateItem(id: "a", degrees: 90),
        ])
        let image = try fixtures.render(collage, "rot.png", options: RenderOptions(size: .scale(1), format: .png))
        // Turned clockwise, the left (red) half is now on top and the item stands 100 × 200.
        #expect(close(image[200, 150], [255, 0, 0], tolerance: 4))
        #expect(close(image[200, 250], [0, 0, 255], tolerance: 4))
        #expect(image[120, 200] == [255, 255, 255], "where the unrotated frame was is now background")
        #expect(close(image[200, 105], [255, 0, 0], tolerance: 4))
        #expect(image[200, 95] == [255, 255, 255])
    }

    @Test func outputSizes() throws {
        let fixtures = try RenderFixtures()
        let photo = try fixtures.solid("p.png", [9, 9, 9])
        let collage = try RenderFixtures.collage(
            template: "grid2x2", photos: [photo], canvas: Size(width: 1200, height: 800))
        let renderer = CollageRenderer()
        let source = DirectoryPhotoSource(baseDirectory: fixtures.directory)
        let wide = try renderer.render(
            collage, photos: source, options: RenderOptions(size: .width(600)), to: fixtures.url("w.jpg"))
        #expect((wide.width, wide.height) == (600, 400))
        // No print size: tagged 72 DPI as screen images are, not libvips' 25.4.
        #expect(wide.dpi == nil)
        #expect(try Self.header(fixtures.url("w.jpg"), field: "xres").hasPrefix("2.83"), "72 DPI is 2.835 px/mm")
        let long = try renderer.render(
            collage, photos: source, options: RenderOptions(size: .longSide(900)), to: fixtures.url("l.jpg"))
        #expect((long.width, long.height) == (900, 600))
        let print = try #require(PrintSize(parsing: "6x4in@300"))
        let printed = try renderer.render(
            collage, photos: source, options: RenderOptions(size: .print(print)), to: fixtures.url("p.jpg"))
        #expect((printed.width, printed.height, printed.dpi) == (1800, 1200, 300))
        #expect(try Bitmap.read(fixtures.url("p.jpg")).width == 1800)
        #expect(try Self.header(fixtures.url("p.jpg"), field: "xres").hasPrefix("11.81"), "300 DPI is 11.81 px/mm")
    }

    /// A paper's own shape prints at exactly its pixels: A4 at 300 DPI is 2,480 × 3,508, as a print
    /// shop expects (its canvas of whole points, 0.06 % off the paper's shape, made it 2,479).
    @Test(arguments: [
        ("a4@300", 2480, 3508), ("a4@600", 4961, 7016), ("a3@300", 3508, 4961), ("letter@300", 2550, 3300),
    ])
    func aPaperShapedCollagePrintsAtThePapersPixels(paper: String, width: Int, height: Int) throws {
        let fixtures = try RenderFixtures()
        let photo = try fixtures.solid("p.png", [200, 100, 50])
        let print = try #require(PrintSize(parsing: paper))
        let canvas = try #require(print.aspectRatio?.canvasSize())
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: [photo], canvas: canvas)
        let made = try CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
            options: RenderOptions(size: .print(print)), to: fixtures.url("paper.jpg"))
        #expect((made.width, made.height) == (width, height))
        let image = try Bitmap.read(fixtures.url("paper.jpg"))
        #expect((image.width, image.height) == (width, height))
    }

    @Test(arguments: OutputFormat.allCases)
    func everyFormatWritesOrSaysWhyNot(format: OutputFormat) throws {
        let fixtures = try RenderFixtures()
        let photo = try fixtures.solid("p.png", [200, 100, 50])
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: [photo])
        let output = fixtures.url("out.\(format.rawValue)")
        let result = Result { () throws(RenderError) in
            try CollageRenderer().render(
                collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
                options: RenderOptions(size: .scale(0.5), format: format), to: output)
        }
        switch result {
        case .success:
            let frame = collage.items[0].frame
            #expect(close(try Bitmap.read(output)[Int(frame.center.x / 2), Int(frame.center.y / 2)], [200, 100, 50]))
        case .failure(let error):
            // HEIC and AVIF need encoders that libheif may lack; the error must say so and write nothing.
            guard case .unsupportedFormat(let unsupported, _) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect([.heic, .avif].contains(unsupported), "\(format) must be supported: \(error)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    static func header(_ file: URL, field: String) throws -> String {
        try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-f", field, file.path])
    }

    /// A photo zoomed to ten canvases across and turned (the largest frame edits allow) renders
    /// at print size: it is built within the cell budget and enlarged as it is placed, and the
    /// canvas shows its middle, the right colour the right way round.
    @Test func anItemTenCanvasesWideRendersWithinTheCellBudget() throws {
        let fixtures = try RenderFixtures()
        let file = fixtures.url("quadrants.png")
        try RenderFixtures.quadrants(width: 400, height: 400).write(to: file, format: .png)
        var collage = try RenderFixtures.collage(template: nil, photos: [file])
        // Centred on the canvas, 4,000 points square: the canvas shows its middle tenth, where
        // the four quadrants meet.
        collage = try collage.applying(
            .resizeItem(id: "i0", frame: Rect(x: -1800, y: -1800, width: 4000, height: 4000)))
        let straight = try fixtures.render(
            collage, "big.png", options: RenderOptions(size: .longSide(3000), format: .png))
        #expect(straight.width == 3000)
        #expect(close(straight[700, 700], [255, 0, 0]) && close(straight[2300, 700], [0, 255, 0]))
        #expect(close(straight[700, 2300], [0, 0, 255]) && close(straight[2300, 2300], [255, 255, 255]))
        collage = try collage.applying(.rotateItem(id: "i0", degrees: 180))
        let turned = try fixtures.render(
            collage, "turned.png", options: RenderOptions(size: .longSide(3000), format: .png))
        #expect(close(turned[700, 700], [255, 255, 255]) && close(turned[2300, 2300], [255, 0, 0]))
        // Wholly off the canvas, an item is not even decoded: a missing file does not matter.
        var away = try RenderFixtures.collage(template: nil, photos: [])
        away = try away.applying(.addItem(id: "gone", content: .photo("missing.png"), frame: nil))
        away.items[0].frame = Rect(x: 2000, y: 2000, width: 100, height: 100)
        #expect(throws: Never.self) {
            try fixtures.render(away, "away.png", options: RenderOptions(size: .longSide(400), format: .png))
        }
    }
}
