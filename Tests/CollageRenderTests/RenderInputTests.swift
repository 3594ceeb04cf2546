import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: orientation, input kinds and bad inputs")
struct RenderInputTests {
    /// The pixels to store so that a viewer applying EXIF `orientation` shows `upright`.
    static func stored(_ upright: Bitmap, orientation: Int) -> Bitmap {
        let (w, h) = (upright.width, upright.height)
        let swaps = orientation >= 5
        var out = Bitmap(width: swaps ? h : w, height: swaps ? w : h, color: [0, 0, 0])
        for y in 0..<out.height {
            for x in 0..<out.width {
                // Where in the upright image this stored pixel ends up once the viewer applies the tag.
                let (ux, uy): (Int, Int) =
                    switch orientation {
                    case 2: (w - 1 - x, y)
                    case 3: (w - 1 - x, h - 1 - y)
                    case 4: (x, h - 1 - y)
                    case 5: (y, x)
                    case 6: (w - 1 - y, x)
                    case 7: (w - 1 - y, h - 1 - x)
                    case 8: (y, h - 1 - x)
                    default: (x, y)
                    }
                out[x, y] = upright[ux, uy]
            }
        }
        return out
    }

    @Test(arguments: 1...8)
    func everyExifOrientationRendersUpright(orientation: Int) throws {
        let fixtures = try RenderFixtures()
        let upright = RenderFixtures.quadrants(width: 80, height: 60)
        let file = fixtures.url("o\(orientation).jpg")
        try Self.stored(upright, orientation: orientation).write(to: file, format: .jpeg, orientation: orientation)
        var collage = Collage(id: "o", title: "o", created: Date(), canvas: Size(width: 80, height: 60))
        collage = try collage.applying(
            .addItem(id: "a", content: .photo(file.path), frame: Rect(x: 0, y: 0, width: 80, height: 60)))
        let image = try fixtures.render(collage, "out.png", options: RenderOptions(size: .scale(2), format: .png))
        #expect(close(image[40, 30], [255, 0, 0], tolerance: 40), "top-left red, orientation \(orientation)")
        #expect(close(image[120, 30], [0, 255, 0], tolerance: 40), "top-right green")
        #expect(close(image[40, 90], [0, 0, 255], tolerance: 40), "bottom-left blue")
        #expect(close(image[120, 90], [255, 255, 255], tolerance: 40), "bottom-right white")
    }

    /// An off-centre, zoomed crop into a frame of another shape takes the same part of the photo
    /// whatever orientation it is stored in: the crop is cut from the stored pixels before they
    /// are turned upright, so a wrong mapping would show another part.
    @Test(arguments: 2...8)
    func offCentreCropsTakeTheSamePartInEveryOrientation(orientation: Int) throws {
        let fixtures = try RenderFixtures()
        var upright = Bitmap(width: 160, height: 80, color: [0, 0, 0])
        for y in 0..<80 {
            for x in 0..<160 { upright[x, y] = [UInt8(x * 255 / 159), UInt8(y * 255 / 79), 128] }
        }
        func render(stored: Bitmap, orientation: Int) throws -> Bitmap {
            let file = fixtures.url("crop\(orientation).jpg")
            try stored.write(to: file, format: .jpeg, quality: 98, orientation: orientation)
            var collage = Collage(id: "c", title: "c", created: Date(), canvas: Size(width: 30, height: 40))
            collage = try collage.applying(
                .addItem(id: "a", content: .photo(file.path), frame: Rect(x: 0, y: 0, width: 30, height: 40)))
            collage = try collage.applying(.setCrop(id: "a", crop: Crop(focus: Point(x: 0.2, y: 0.3), zoom: 1.5)))
            return try fixtures.render(
                collage, "crop\(orientation).png", options: RenderOptions(size: .scale(1), format: .png))
        }
        let expected = try render(stored: upright, orientation: 1)
        let actual = try render(stored: Self.stored(upright, orientation: orientation), orientation: orientation)
        #expect(actual.width == expected.width && actual.height == expected.height)
        // The left fifth of the photo: little red; the upper part: little green.
        #expect(expected[15, 5][0] < 80 && expected[15, 5][1] < 60, "\(expected[15, 5])")
        for (x, y) in [(1, 1), (28, 1), (15, 20), (1, 38), (28, 38)] {
            #expect(close(actual[x, y], expected[x, y], tolerance: 10), "(\(x), \(y)) orientation \(orientation)")
        }
    }

    /// Greyscale, CMYK, 16-bit and palette files, and PNGs with alpha, all land as the right colour.
    @Test func unusualInputKindsComeOutRight() throws {
        let fixtures = try RenderFixtures()
        try fixtures.solid("base.png", [200, 120, 40], width: 60, height: 60)
        try fixtures.vips("colourspace", "base.png", "grey.jpg", "b-w")
        try fixtures.vips("colourspace", "base.png", "cmyk.jpg", "cmyk")
        try fixtures.vips("linear", "base.png", "wide.v", "257", "0")
        try fixtures.vips("cast", "wide.v", "wide16.v", "ushort")
        try fixtures.vips("copy", "wide16.v", "deep.png", "--interpretation", "rgb16")
        try fixtures.vips("pngsave", "base.png", "palette.png", "--palette")
        var translucent = Bitmap(width: 60, height: 60, color: [200, 120, 40, 255])
        for y in 0..<60 { for x in 0..<30 { translucent[x, y] = [0, 0, 0, 0] } }
        try translucent.write(to: fixtures.url("alpha.png"), format: .png)

        let expectations: [(String, [UInt8], Int)] = [
            ("grey.jpg", [139, 139, 139], 12), ("cmyk.jpg", [200, 120, 40], 30), ("deep.png", [200, 120, 40], 2),
            ("palette.png", [200, 120, 40], 8),
        ]
        for (name, color, tolerance) in expectations {
            var collage = Collage(id: "k", title: "k", created: Date(), canvas: Size(width: 60, height: 60))
            collage = try collage.applying(
                .addItem(id: "a", content: .photo(name), frame: Rect(x: 0, y: 0, width: 60, height: 60)))
            let image = try fixtures.render(
                collage, "\(name).out.png", options: RenderOptions(size: .scale(1), format: .png))
            #expect(image.channels == 3)
            #expect(close(image[30, 30], color, tolerance: tolerance), "\(name): \(image[30, 30])")
        }
        var collage = Collage(id: "k", title: "k", created: Date(), canvas: Size(width: 60, height: 60))
        collage.style.background = .color(Color(red: 0, green: 0, blue: 255))
        collage = try collage.applying(
            .addItem(id: "a", content: .photo("alpha.png"), frame: Rect(x: 0, y: 0, width: 60, height: 60)))
        let image = try fixtures.render(collage, "alpha.out.png", options: RenderOptions(size: .scale(1), format: .png))
        #expect(image[10, 30] == [0, 0, 255], "the see-through half shows the background")
        #expect(image[50, 30] == [200, 120, 40])
    }

    /// A Display P3 photo (as phones take them) is converted through its profile, not read as if
    /// its numbers were sRGB.
    /// A P3 photo is converted through its profile; one tagged sRGB keeps its numbers. PNG and
    /// JPEG take different decoding paths, so both are checked.
    @Test(arguments: ["png", "jpg"])
    func profilesAreConvertedNotReinterpreted(format: String) throws {
        let fixtures = try RenderFixtures()
        let color: [UInt8] = [30, 200, 60]
        try fixtures.solid("srgb.png", color, width: 40, height: 40)
        let quality = format == "jpg" ? "[Q=100]" : ""
        try fixtures.vips("icc_transform", "srgb.png", "p3.\(format)\(quality)", "p3")
        try fixtures.vips("icc_transform", "srgb.png", "tagged.\(format)\(quality)", "srgb")
        let stored = try fixtures.vipsOutput("getpoint", "p3.\(format)", "20", "20").split(separator: " ").compactMap {
            Int($0)
        }
        #expect(zip(stored, color).contains { abs($0 - Int($1)) > 15 }, "P3 numbers differ from sRGB: \(stored)")
        for name in ["p3", "tagged"] {
            var collage = Collage(id: "p", title: "p", created: Date(), canvas: Size(width: 40, height: 40))
            collage = try collage.applying(
                .addItem(id: "a", content: .photo("\(name).\(format)"), frame: Rect(x: 0, y: 0, width: 40, height: 40)))
            let image = try fixtures.render(
                collage, "\(name).out.png", options: RenderOptions(size: .scale(1), format: .png))
            #expect(close(image[20, 20], color, tolerance: 6), "\(name).\(format) comes out sRGB: \(image[20, 20])")
        }
    }

    @Test func badInputsNameTheFileAndWriteNothing() throws {
        let fixtures = try RenderFixtures()
        let good = try fixtures.solid("good.jpg", [10, 200, 10], width: 400, height: 300, format: .jpeg)
        let jpeg = try Data(contentsOf: good)
        try Data().write(to: fixtures.url("empty.jpg"))
        try jpeg.prefix(jpeg.count / 3).write(to: fixtures.url("truncated.jpg"))
        let png = try Data(
            contentsOf: try fixtures.solid("good.png", [10, 200, 10], width: 400, height: 300, format: .png))
        try png.prefix(40).write(to: fixtures.url("truncated.png"))  // its signature, its header and 7 bytes more
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: fixtures.url("noise.png"))
        try Data("just some words, not a picture\n".utf8).write(to: fixtures.url("notes.jpg"))
        var corrupt = jpeg
        for index in stride(from: 600, to: corrupt.count - 2, by: 3) { corrupt[index] = 0xFF }
        try corrupt.write(to: fixtures.url("corrupt.jpg"))
        try Self.bombPNG(width: 50_000, height: 50_000).write(to: fixtures.url("bomb.png"))

        let cases: [(String, (RenderError) -> Bool)] = [
            ("missing.jpg", { if case .missingFile = $0 { true } else { false } }),
            ("empty.jpg", { if case .emptyFile = $0 { true } else { false } }),
            ("truncated.jpg", { if case .unreadableImage = $0 { true } else { false } }),
            ("truncated.png", { if case .unreadableImage = $0 { true } else { false } }),
            ("noise.png", { if case .unreadableImage = $0 { true } else { false } }),
            ("notes.jpg", { if case .unreadableImage = $0 { true } else { false } }),
            ("corrupt.jpg", { if case .unreadableImage = $0 { true } else { false } }),
            ("bomb.png", { if case .imageTooLarge(_, 50_000, 50_000, _) = $0 { true } else { false } }),
        ]
        for (name, matches) in cases {
            let collage = try RenderFixtures.collage(template: "grid2x2", photos: [good, fixtures.url(name)])
            let output = fixtures.url("out-\(name).png")
            let result = Result { () throws(RenderError) in
                try CollageRenderer().render(
                    collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
                    options: RenderOptions(size: .scale(1), format: .png), to: output)
            }
            guard case .failure(let error) = result else {
                Issue.record("\(name) rendered")
                continue
            }
            #expect(matches(error), "\(name): \(error)")
            #expect(error.description.contains(name), "the message names the file: \(error)")
            #expect(!error.description.contains("unknown"), "the message says what is wrong: \(error)")
            // A sticker's lift reads the photo whole (through libvips' thumbnail), which fails on a
            // PNG cut short with warnings alone: its message still says what is wrong.
            if name != "missing.jpg" {
                let read = Result { () throws(RenderError) in try Bitmap.read(fixtures.url(name)) }
                guard case .failure(let readError) = read else {
                    Issue.record("\(name) was read")
                    continue
                }
                #expect(readError.description.contains(name), "the message names the file: \(readError)")
                #expect(!readError.description.contains("unknown"), "the message says what is wrong: \(readError)")
            }
            #expect(try fixtures.files(startingWith: "out-\(name)").isEmpty, "nothing written for \(name)")
        }
    }

    @Test func aFailedRenderLeavesAnExistingOutputUntouched() throws {
        let fixtures = try RenderFixtures()
        let output = fixtures.url("keep.png")
        try Data("previous".utf8).write(to: output)
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: [fixtures.url("missing.png")])
        #expect(throws: RenderError.missingFile(fixtures.url("missing.png").path)) {
            try CollageRenderer().render(
                collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), to: output)
        }
        #expect(try String(contentsOf: output, encoding: .utf8) == "previous")
    }

    @Test func oversizedOutputsAndBadOptionsAreRefused() throws {
        let fixtures = try RenderFixtures()
        let collage = try RenderFixtures.collage(template: "grid2x2", photos: [])
        let source = DirectoryPhotoSource(baseDirectory: fixtures.directory)
        #expect(throws: RenderError.self) {
            try CollageRenderer().render(
                collage, photos: source, options: RenderOptions(size: .scale(200)), to: fixtures.url("huge.jpg"))
        }
        #expect(throws: RenderError.invalidOptions("the scale must be a number from 0.01 to 100, got 0")) {
            try CollageRenderer().render(
                collage, photos: source, options: RenderOptions(size: .scale(0)), to: fixtures.url("zero.jpg"))
        }
        #expect(throws: RenderError.self) {
            try CollageRenderer().render(collage, photos: source, to: URL(fileURLWithPath: "/no/such/folder/x.jpg"))
        }
    }

    /// A tiny PNG whose header declares `width` × `height` pixels: a decompression bomb.
    static func bombPNG(width: Int, height: Int) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed)))
        }
        let header = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        // An (invalid but small) zlib stream: enough for the header to be read, not the pixels.
        let data = [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01] as [UInt8]
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", data)
                + chunk("IEND", []))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A minimal EXIF block as a camera writes it: the software that made the photo and a GPS
    /// position (51° 30′ N), in a little-endian TIFF structure.
    static func exif(software: String) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: Int) -> [UInt8] { u16(value & 0xFFFF) + u16(value >> 16) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        var text = Array(software.utf8) + [0]
        if text.count % 2 == 1 { text.append(0) }
        let textOffset = 8 + 30
        let gpsOffset = textOffset + text.count
        let rationalsOffset = gpsOffset + 30
        var tiff: [UInt8] = Array("II".utf8) + u16(42) + u32(8)
        tiff += u16(2) + entry(0x0131, 2, software.utf8.count + 1, u32(textOffset))
        tiff += entry(0x8825, 4, 1, u32(gpsOffset)) + u32(0) + text
        tiff += u16(2) + entry(0x0001, 2, 2, Array("N".utf8) + [0]) + entry(0x0002, 5, 3, u32(rationalsOffset)) + u32(0)
        tiff += u32(51) + u32(1) + u32(30) + u32(1) + u32(0) + u32(1)
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// A collage is a new picture: whatever its photos carry (where they were taken, the camera)
    /// stays out of what it writes, in every format that could hold it. A print keeps its DPI.
    @Test(arguments: [OutputFormat.jpeg, .png, .webp])
    func photosMetadataStaysOutOfTheCollage(format: OutputFormat) throws {
        let fixtures = try RenderFixtures()
        let plain = fixtures.url("plain.jpg")
        try RenderFixtures.quadrants().write(to: plain, format: .jpeg)
        var bytes = try [UInt8](Data(contentsOf: plain))
        let payload = Self.exif(software: "LeakyCam 3000")
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]
        bytes.insert(contentsOf: segment + payload, at: 2)
        let tagged = fixtures.url("tagged.jpg")
        try Data(bytes).write(to: tagged)
        let before = try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-a", tagged.path])
        #expect(before.contains("LeakyCam 3000") && before.contains("GPSLatitude"), "the fixture carries both")

        let collage = try RenderFixtures.collage(template: "grid2x2", photos: [tagged, plain, tagged, tagged])
        let output = fixtures.url("out.\(format.rawValue)")
        let print = try #require(PrintSize(parsing: "4x4in@150"))
        try CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
            options: RenderOptions(size: .print(print), format: format), to: output)
        let after = try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-a", output.path])
        #expect(!after.contains("LeakyCam") && !after.contains("GPS"), "\(format): \(after)")
        let written = try String(decoding: Data(contentsOf: output), as: UTF8.self)
        #expect(!written.contains("LeakyCam"), "\(format): the bytes themselves")
        #expect(ICCProfile(embeddedIn: output.path)?.isSRGB == true, "\(format): tagged sRGB, as its pixels are")

        // The library's previews of the photo, which the editor shows and a person can save.
        let preview = fixtures.url("preview-\(format.rawValue).jpg")
        try ImageFiles.writeThumbnail(of: tagged, to: preview, maxSide: 64)
        let previewHeader = try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-a", preview.path])
        #expect(!previewHeader.contains("LeakyCam") && !previewHeader.contains("GPS"), "\(previewHeader)")
        if format != .webp {  // WebP has no resolution field of its own
            #expect(try RenderLayoutTests.header(output, field: "xres").hasPrefix("5.90"), "150 DPI is 5.906 px/mm")
        }
    }
}
