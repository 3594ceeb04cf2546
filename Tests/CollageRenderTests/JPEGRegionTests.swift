import CollageCore
import CollageTestSupport
import Foundation
import Testing

@testable import CollageRender

@Suite("Renderer: a JPEG's crop decoded on its own")
struct JPEGRegionTests {
    /// JPEGs of every kind the region decoder takes, made from one textured photo of an odd
    /// size (its last blocks partial): by libvips 4:4:4, 4:2:0, progressive, with restart
    /// markers and grey; by libjpeg-turbo's `cjpeg` the chroma layouts cameras also write
    /// (4:2:2, 4:4:0, 4:1:1) and one stored as RGB rather than YCbCr.
    static func kinds(in fixtures: RenderFixtures) throws -> [String] {
        let photo = try #require(DecodingAheadTests.texturedPhoto(3, width: 1001, height: 757))
        try photo.write(to: fixtures.url("source.png"), format: .png)
        try fixtures.vips("jpegsave", "source.png", "full.jpg", "--Q", "92", "--subsample-mode", "off")
        try fixtures.vips("jpegsave", "source.png", "halved.jpg", "--Q", "80", "--subsample-mode", "on")
        try fixtures.vips("jpegsave", "source.png", "progressive.jpg", "--Q", "85", "--interlace")
        try fixtures.vips("jpegsave", "source.png", "restarts.jpg", "--Q", "85", "--restart-interval", "3")
        try fixtures.vips("colourspace", "source.png", "grey.v", "b-w")
        try fixtures.vips("jpegsave", "grey.v", "grey.jpg", "--Q", "85")
        try fixtures.vips("ppmsave", "source.png", "source.ppm")
        let cjpeg: [(name: String, options: [String])] = [
            ("h2v1.jpg", ["-sample", "2x1"]), ("h1v2.jpg", ["-sample", "1x2"]), ("h4v1.jpg", ["-sample", "4x1"]),
            ("rgb.jpg", ["-rgb"]),
        ]
        for (name, options) in cjpeg {
            let made = try Tools.run(
                "/usr/bin/cjpeg", options + ["-quality", "85", "-outfile", name, "source.ppm"],
                in: fixtures.directory)
            #expect(made.status == 0, "cjpeg \(options)")
        }
        return ["full.jpg", "halved.jpg", "progressive.jpg", "restarts.jpg", "grey.jpg"] + cjpeg.map(\.name)
    }

    /// The crop the renderer asks for is what libvips' loader gives at the same shrink, cropped
    /// after: every pixel, at every shrink, at offsets on and off the blocks' edges.
    @Test func theCropIsTheLoadersPixelsToTheByte() throws {
        let fixtures = try RenderFixtures()
        let rectangles: [(x: Int, y: Int, width: Int, height: Int)] = [
            (0, 0, 1001, 757), (0, 0, 64, 64), (13, 7, 300, 201), (511, 300, 489, 457), (250, 0, 500, 757),
            (16, 32, 64, 64), (0, 741, 1001, 16), (992, 0, 9, 757),
        ]
        for name in try Self.kinds(in: fixtures) {
            let path = fixtures.url(name).path
            for shrink in [1, 2, 4, 8] {
                let whole = try VipsImage.openSequential(path, loader: "jpegload", shrink: shrink)
                let (width, height) = (whole.width, whole.height)
                #expect(width == 1001 / shrink && height == 757 / shrink)
                for rectangle in rectangles {
                    let x = rectangle.x / shrink
                    let y = rectangle.y / shrink
                    let w = min(width - x, max(1, rectangle.width / shrink))
                    let h = min(height - y, max(1, rectangle.height / shrink))
                    let expected = try VipsImage.openSequential(path, loader: "jpegload", shrink: shrink)
                        .extractArea(x: x, y: y, width: w, height: h).pixels()
                    let region = try #require(
                        try VipsImage.jpegRegion(path, shrink: shrink, x: x, y: y, width: w, height: h))
                    #expect((region.width, region.height) == (w, h))
                    #expect(region.bands == (name == "grey.jpg" ? 1 : 3))
                    let same = try region.pixels() == expected
                    #expect(same, "\(name) at 1/\(shrink), \(w) × \(h) at (\(x), \(y))")
                }
            }
        }
    }

    /// Files it does not take come back as nil, for libvips' loader to open: CMYK, a PNG, and a
    /// rectangle outside the picture.
    @Test func whatItDoesNotTakeIsLeftToTheLoader() throws {
        let fixtures = try RenderFixtures()
        try fixtures.solid("base.png", [200, 120, 40], width: 60, height: 60)
        try fixtures.vips("colourspace", "base.png", "cmyk.jpg", "cmyk")
        try fixtures.vips("jpegsave", "base.png", "plain.jpg")
        #expect(
            try VipsImage.jpegRegion(fixtures.url("cmyk.jpg").path, shrink: 1, x: 0, y: 0, width: 60, height: 60) == nil
        )
        #expect(
            try VipsImage.jpegRegion(fixtures.url("base.png").path, shrink: 1, x: 0, y: 0, width: 60, height: 60) == nil
        )
        #expect(
            try VipsImage.jpegRegion(fixtures.url("plain.jpg").path, shrink: 1, x: 10, y: 0, width: 60, height: 60)
                == nil)
        #expect(
            try VipsImage.jpegRegion(fixtures.url("plain.jpg").path, shrink: 3, x: 0, y: 0, width: 20, height: 20)
                == nil)
        #expect(
            try VipsImage.jpegRegion(fixtures.url("plain.jpg").path, shrink: 1, x: 0, y: 0, width: 60, height: 60)
                != nil)
    }

    /// A JPEG cut short fails when its pixels are read, with the libjpeg's reason, whether the
    /// cut falls inside the rectangle or after it… and one cut after it still gives the rectangle.
    @Test func aTruncatedJPEGFailsWhereItsRowsAreMissing() throws {
        let fixtures = try RenderFixtures()
        let photo = try #require(DecodingAheadTests.texturedPhoto(5, width: 800, height: 600))
        try photo.write(to: fixtures.url("whole.jpg"), format: .jpeg)
        let bytes = try Data(contentsOf: fixtures.url("whole.jpg"))
        try bytes.prefix(bytes.count / 2).write(to: fixtures.url("half.jpg"))
        let path = fixtures.url("half.jpg").path
        let cut = try #require(try VipsImage.jpegRegion(path, shrink: 1, x: 0, y: 0, width: 800, height: 600))
        let error = #expect(throws: VipsError.self) { try cut.pixels() }
        #expect(error?.message.contains("Premature end of JPEG file") == true, "\(String(describing: error))")
        // Cut short above the rectangle: the rows skipped to reach it are missing.
        let below = try #require(try VipsImage.jpegRegion(path, shrink: 2, x: 0, y: 250, width: 400, height: 50))
        #expect(throws: VipsError.self) { try below.pixels() }
        // The top rows are all in the half that is there.
        let top = try #require(try VipsImage.jpegRegion(path, shrink: 1, x: 100, y: 0, width: 400, height: 64))
        let expected = try VipsImage.openSequential(fixtures.url("whole.jpg").path, loader: "jpegload", shrink: 1)
            .extractArea(x: 100, y: 0, width: 400, height: 64).pixels()
        let same = try top.pixels() == expected
        #expect(same)
    }

    /// Shrunk as it is decoded, the crop is libvips' resize of it to within the rounding: on
    /// photos of every kind, shrunk by factors from just over one to four, unevenly, to odd sizes.
    @Test func theShrunkCropIsLibvipsResizeToWithinRounding() throws {
        let fixtures = try RenderFixtures()
        let crops: [(x: Int, y: Int, width: Int, height: Int, to: (width: Int, height: Int))] = [
            (0, 0, 1001, 757, (895, 677)), (13, 7, 600, 600, (357, 357)), (250, 0, 500, 757, (250, 190)),
            (100, 50, 801, 601, (799, 160)), (0, 0, 64, 64, (63, 17)), (992, 0, 9, 757, (3, 757)),
        ]
        for name in try Self.kinds(in: fixtures) {
            let path = fixtures.url(name).path
            for crop in crops {
                let expected = try VipsImage.openSequential(path, loader: "jpegload", shrink: 1)
                    .extractArea(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
                    .resize(
                        horizontal: Double(crop.to.width) / Double(crop.width),
                        vertical: Double(crop.to.height) / Double(crop.height))
                let shrunk = try #require(
                    try VipsImage.jpegRegion(
                        path, shrink: 1, x: crop.x, y: crop.y, width: crop.width, height: crop.height,
                        shrunkTo: crop.to))
                #expect((shrunk.width, shrunk.height) == crop.to)
                #expect((expected.width, expected.height) == crop.to, "libvips' own size")
                let (largest, mean) = Self.difference(try shrunk.pixels(), try expected.pixels())
                // The test photo is a field of hard edges, 255 levels high, where libvips'
                // kernel, centred to the nearest 64th of a pixel rather than exactly, and its
                // rounding move a sample by a few levels, more the more it shrinks; a grid
                // shifted by a fraction of a pixel, or a wrong weight, moves the mean by several.
                // A cell's photo is shrunk on load to within twice its size, so that is the case
                // that counts.
                let factor = max(
                    Double(crop.width) / Double(crop.to.width), Double(crop.height) / Double(crop.to.height))
                #expect(
                    largest <= 10 && mean < (factor < 2 ? 0.2 : 0.5), "\(name) \(crop): \(largest), \(mean)")
            }
        }
    }

    /// A flat colour stays exactly that colour when shrunk (the weights sum to one exactly), and a
    /// crop asked for at its own size is the decoder's pixels untouched.
    @Test func shrinkingKeepsAFlatColourExact() throws {
        let fixtures = try RenderFixtures()
        let flat = try #require(
            Bitmap(
                width: 640, height: 480, channels: 3,
                pixels: [UInt8]((0..<(640 * 480)).flatMap { _ in [200, 31, 97] as [UInt8] })))
        try flat.write(to: fixtures.url("flat.png"), format: .png)
        try fixtures.vips("jpegsave", "flat.png", "flat.jpg", "--Q", "100", "--subsample-mode", "off")
        let path = fixtures.url("flat.jpg").path
        let decoded = try VipsImage.openSequential(path, loader: "jpegload", shrink: 1).pixels()
        let shrunk = try #require(
            try VipsImage.jpegRegion(path, shrink: 1, x: 0, y: 0, width: 640, height: 480, shrunkTo: (211, 173)))
        let pixels = try shrunk.pixels()
        #expect(Set(pixels.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)) == [decoded[0]])
        #expect(Set(pixels.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)) == [decoded[1]])
        #expect(Set(pixels.enumerated().filter { $0.offset % 3 == 2 }.map(\.element)) == [decoded[2]])
        // Larger than the crop, or more than four times smaller: not this reader's to make.
        #expect(
            try VipsImage.jpegRegion(path, shrink: 1, x: 0, y: 0, width: 100, height: 100, shrunkTo: (101, 50))
                == nil)
        #expect(
            try VipsImage.jpegRegion(path, shrink: 1, x: 0, y: 0, width: 100, height: 100, shrunkTo: (24, 50))
                == nil)
    }

    /// The largest difference between two buffers of samples, and the mean one.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (largest: Int, mean: Double) {
        guard a.count == b.count, !a.isEmpty else { return (Int.max, .infinity) }
        var largest = 0
        var total = 0
        for index in a.indices {
            let gap = abs(Int(a[index]) - Int(b[index]))
            largest = max(largest, gap)
            total += gap
        }
        return (largest, Double(total) / Double(a.count))
    }

    /// In a render of several photos (decoded ahead, so their crops come from here), files of
    /// every kind (an embedded profile and an EXIF turn among them) give the collage that
    /// decoding lazily through libvips' loader gives, to within the resampler's rounding.
    @Test func aCollageOfEveryKindIsTheSameDecodedAheadOrNot() throws {
        let fixtures = try RenderFixtures()
        var names = try Self.kinds(in: fixtures)
        try fixtures.vips("icc_transform", "full.jpg", "wide.jpg", "p3")
        let photo = try #require(DecodingAheadTests.texturedPhoto(7, width: 640, height: 480))
        try photo.write(to: fixtures.url("turned.jpg"), format: .jpeg, quality: 85, orientation: 6)
        try fixtures.vips("colourspace", "source.png", "cmyk.jpg", "cmyk")
        names += ["wide.jpg", "turned.jpg", "cmyk.jpg"]
        var collage = try RenderFixtures.collage(template: "grid4x4", photos: names.map { fixtures.url($0) })
        // Zoomed in off the centre, so the crop starts at a row and a column inside the photo.
        collage = try collage.applying(.setCrop(id: "i1", crop: Crop(focus: Point(x: 0.3, y: 0.7), zoom: 2.5)))
        func render(_ name: String, decodingAhead: Bool, size: Int) throws -> Bitmap {
            var renderer = CollageRenderer()
            renderer.decodesAhead = decodingAhead
            let output = fixtures.url(name)
            try renderer.render(
                collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
                options: RenderOptions(size: .longSide(size), format: .png), to: output)
            return try Bitmap.read(output)
        }
        for size in [900, 240] {
            // The crops must come from the region reader: a render finding the memory reserve
            // held by other tests' renders leaves every layer lazy, so it is tried again.
            var started = VipsImage.jpegRegionsStarted
            var ahead = try render("ahead\(size).png", decodingAhead: true, size: size)
            for _ in 0..<10 where VipsImage.jpegRegionsStarted < started + 10 {
                Thread.sleep(forTimeInterval: 0.2)
                started = VipsImage.jpegRegionsStarted
                ahead = try render("ahead\(size).png", decodingAhead: true, size: size)
            }
            #expect(VipsImage.jpegRegionsStarted >= started + 10, "at \(size) px")
            let lazy = try render("lazy\(size).png", decodingAhead: false, size: size)
            let (largest, mean) = Self.difference(ahead.pixels, lazy.pixels)
            // A wide-gamut photo's profile conversion stretches a difference by up to half again.
            #expect(largest <= 20 && mean < 0.3, "at \(size) px: \(largest), \(mean)")
        }
    }
}
