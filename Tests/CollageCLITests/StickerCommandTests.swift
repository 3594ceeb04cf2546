import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

@Suite("collage sticker and smart crops", .serialized)
struct StickerCommandTests {
    /// A wide photo: an orange disc in its left fifth on a pale background (900 × 400 pixels, or
    /// `scale` times as many a side).
    static func offCentrePhoto(in directory: URL, scale: Double = 1, name: String = "off centre.png") throws -> URL {
        let (width, height) = (Int(900 * scale), Int(400 * scale))
        var image = Bitmap(width: width, height: height, color: [236, 234, 228])
        let (cx, cy, rx, ry) = (150 * scale, 200 * scale, 70 * scale, 120 * scale)
        for y in 0..<height {
            for x in 0..<width where pow(Double(x) - cx, 2) / (rx * rx) + pow(Double(y) - cy, 2) / (ry * ry) <= 1 {
                image[x, y] = [230, 110, 20]
            }
        }
        let file = directory.appendingPathComponent(name)
        try image.write(to: file, format: .png)
        return file
    }

    @Test func aStickerForPrintHasACutLineInMillimetresAndWhiteOutToIt() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let output = directory.appendingPathComponent("print.png")
        let cut = directory.appendingPathComponent("cut.svg")
        let result = try CommandRunner.run([
            "sticker", photo.path, "--cut-line", cut.path, "--offset", "3mm", "--dpi", "150", "--outline", "1", "-o",
            output.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let sticker = try Bitmap.read(output)
        let svg = try String(contentsOf: cut, encoding: .utf8)
        let width = String(format: "%.3fmm", Double(sticker.width) / 150 * 25.4)
        #expect(svg.contains("width=\"\(width)\""), "the SVG has the PNG's size at 150 dpi: \(svg.prefix(160))")
        #expect(svg.contains(" C "), "traced into curves")
        let png = try Data(contentsOf: output)
        let tag = try #require(png.range(of: Data("pHYs".utf8)))
        #expect(Array(png[tag.upperBound..<tag.upperBound + 4]) == [0, 0, 0x17, 0x12], "5906 pixels a metre")
        #expect(sticker[sticker.width / 2, sticker.height / 2] == [230, 110, 20, 255])
        // Left of the disc, inside the 3 mm (18 px) offset: white; the canvas's corner: clear.
        let row = sticker.height / 2
        let firstOpaque = try #require((0..<sticker.width).first { sticker[$0, row][3] == 255 })
        #expect(sticker[firstOpaque, row] == [255, 255, 255, 255])
        #expect(sticker[0, 0][3] == 0)

        let stray = try CommandRunner.run(["sticker", photo.path, "--offset", "2mm", "-o", output.path])
        #expect(stray.status == 64 && stray.stderr.contains("--cut-line"))
        let mask = try CommandRunner.run([
            "sticker", photo.path, "--mask-only", "--cut-line", cut.path, "-o", output.path,
        ])
        #expect(mask.status == 64)
        let batch = try CommandRunner.run([
            "sticker", photo.path, photo.path, "--output-dir", directory.path, "--cut-line", cut.path,
        ])
        #expect(batch.status == 64 && batch.stderr.contains("--cut-line goes with one photo file"), "\(batch.stderr)")
    }

    /// Photos of one name from two folders each keep their sticker (the second was written over
    /// the first), and a sticker never takes the place of a photo it was cut from.
    @Test func aBatchGivesEachPhotoItsOwnFile() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let first = directory.appendingPathComponent("a/photo.png"),
            second = directory.appendingPathComponent("b/photo.png")
        try FileManager.default.copyItem(at: photo, to: first)
        try FileManager.default.copyItem(at: photo, to: second)
        let before = try Data(contentsOf: first)
        let result = try CommandRunner.run([
            "sticker", first.path, second.path, "--output-dir", directory.appendingPathComponent("a").path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = JSONBox(Data(result.stdout.utf8))
        let written = [files[0]["file"].string, files[1]["file"].string].compactMap { $0 }
        #expect(
            written.map { URL(fileURLWithPath: $0).lastPathComponent } == ["photo-sticker.png", "photo-sticker-2.png"])
        #expect(try Data(contentsOf: first) == before, "the photo a/photo.png is untouched")
        for file in written { #expect(try Bitmap.read(URL(fileURLWithPath: file)).channels == 4) }
        // A numbered name that is one of the photos is passed over too.
        let numbered = directory.appendingPathComponent("a/photo-sticker-2.png")
        try FileManager.default.removeItem(at: numbered)
        try FileManager.default.copyItem(at: photo, to: numbered)
        let again = try CommandRunner.run([
            "sticker", first.path, second.path, numbered.path, "--output-dir",
            directory.appendingPathComponent("a").path,
        ])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Bitmap.read(numbered).channels == 3, "the photo a/photo-sticker-2.png is untouched")
    }

    /// A photo with transparency (a cut-out, a PNG with its background cleared) is lifted as it
    /// looks: what its clear pixels hide (here a dark square, striking to the model) is no part
    /// of the sticker.
    @Test func whatAPhotosTransparencyHidesIsNotLifted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var image = Bitmap(width: 600, height: 400, color: [236, 234, 228, 255])
        for y in 0..<400 {
            for x in 0..<600 {
                if pow(Double(x) - 180, 2) / 8100 + pow(Double(y) - 200, 2) / 14400 <= 1 {
                    image[x, y] = [230, 110, 20, 255]
                } else if (380..<520).contains(x) && (130..<270).contains(y) {
                    image[x, y] = [20, 30, 120, 0]
                }
            }
        }
        let photo = directory.appendingPathComponent("cut-out.png")
        try image.write(to: photo, format: .png)
        let output = directory.appendingPathComponent("sticker.png")
        let result = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        let (x, width) = (try #require(report["x"].number), try #require(report["width"].number))
        #expect(x + width < 380, "the sticker reaches x = \(x + width), into the hidden square")
        let sticker = try Bitmap.read(output)
        #expect(sticker[Int(180 - x), sticker.height / 2] == [230, 110, 20, 255])
        // A white mug cut out on a clear ground is found too (over white it would be nothing).
        var mug = Bitmap(width: 600, height: 400, color: [255, 255, 255, 0])
        for y in 0..<400 {
            for x in 0..<600 where pow(Double(x) - 300, 2) / 14400 + pow(Double(y) - 200, 2) / 12100 <= 1 {
                mug[x, y] = [255, 255, 255, 255]
            }
        }
        let white = directory.appendingPathComponent("white-mug.png")
        try mug.write(to: white, format: .png)
        let lifted = try CommandRunner.run(["sticker", white.path, "-o", output.path, "--json"])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        #expect(JSONBox(Data(lifted.stdout.utf8))["width"].number ?? 0 >= 200, "\(lifted.stdout)")
    }

    /// A sticker lifted from a thumbnail is a few dozen pixels: written without a word, it looked
    /// fine until it was shown at any size. A note says so; a sticker of a usual size has none.
    @Test func aTinyStickerIsNoted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The same photo at a fifth of its size.
        let small = try Self.offCentrePhoto(in: directory, scale: 0.2, name: "thumbnail.png")
        let output = directory.appendingPathComponent("tiny.png")
        let tiny = try CommandRunner.run(["sticker", small.path, "-o", output.path])
        #expect(tiny.status == 0, "\(tiny.stderr)")
        let sticker = try Bitmap.read(output)
        #expect(
            tiny.stderr.contains("note: \(output.path) is only \(sticker.width) × \(sticker.height) px"),
            "\(tiny.stderr)")
        let usual = try CommandRunner.run(
            ["sticker", try Self.offCentrePhoto(in: directory).path, "-o", output.path, "--outline", "30"])
        #expect(usual.status == 0 && !usual.stderr.contains("is only"), "\(usual.stderr)")
    }

    @Test func stickerWritesATransparentPNG() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let output = directory.appendingPathComponent("sticker.png")
        let result = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--outline", "6", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let sticker = try Bitmap.read(output)
        // Where the sticker came from: the disc's left edge is at x = 80, less the margin and outline.
        let report = JSONBox(Data(result.stdout.utf8))
        let x = try #require(report["x"].number)
        #expect(x > 40 && x < 80, "\(x)")
        #expect(try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--clean-edges"]).status == 0)
        let plainEdges = directory.appendingPathComponent("plain-edges.png")
        #expect(try CommandRunner.run(["sticker", photo.path, "-o", plainEdges.path, "--plain-edges"]).status == 0)
        #expect(try Bitmap.read(plainEdges).channels == 4)
        let both = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--plain-edges", "--clean-edges"])
        #expect(both.status == 64 && both.stderr.contains("--plain-edges, not both"), "\(both.stderr)")
        #expect(sticker.channels == 4 && sticker.width < 300)
        #expect(sticker[0, 0][3] == 0 && sticker[sticker.width / 2, sticker.height / 2] == [230, 110, 20, 255])
        let mask = directory.appendingPathComponent("mask.png")
        #expect(try CommandRunner.run(["sticker", photo.path, "--mask-only", "-o", mask.path]).status == 0)
        let maskImage = try Bitmap.read(mask)
        #expect(maskImage.width == 900 && maskImage[150, 200][0] == 255 && maskImage[700, 200][0] == 0)
    }

    @Test func aLiveStickerIsWrittenMovingAndItsOptionsAreChecked() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let output = directory.appendingPathComponent("live.gif")
        let result = try CommandRunner.run([
            "sticker", photo.path, "--outline", "6", "--live", "wiggle", "--duration", "1", "--size", "160", "-o",
            output.path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        #expect(report["frames"].number == 15 && report["motion"].string == "wiggle" && report["width"].number == 160)
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of",
                "csv=p=0", output.path,
            ])
        #expect(probe.output.contains("gif,160,160,15"), "\(probe.output)")
        // On a clear square, as in the other formats: a frame decoded keeps its corners clear and
        // the sticker's middle opaque (every frame was an opaque white square).
        let frame = directory.appendingPathComponent("frame.png")
        let decoded = try Tools.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", output.path, "-frames:v", "1", "-pix_fmt", "rgba", frame.path])
        #expect(decoded.status == 0, "\(decoded.output)")
        let first = try Bitmap.read(frame)
        #expect(first.channels == 4 && first[2, 2][3] == 0, "a corner: \(first[2, 2])")
        #expect(first[80, 80][3] == 255, "the middle: \(first[80, 80])")
        let bad = try CommandRunner.run(["sticker", photo.path, "--live", "spin", "-o", output.path])
        #expect(bad.status == 64 && bad.stderr.contains("bounce, wiggle, float, shine, peel"), "\(bad.stderr)")
        let long = try CommandRunner.run([
            "sticker", photo.path, "--live", "float", "--duration", "20", "-o", output.path,
        ])
        #expect(long.status == 64 && long.stderr.contains("from 1 to 10"), "\(long.stderr)")
        let still = try CommandRunner.run(["sticker", photo.path, "--duration", "2", "-o", output.path])
        #expect(still.status == 64 && still.stderr.contains("add --live"), "\(still.stderr)")
    }

    @Test func anEffectIsDrawnOnTheStickerAndAnUnknownOneIsAUsageError() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let output = directory.appendingPathComponent("comic.png")
        let result = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--effect", "comic"])
        #expect(result.status == 0, "\(result.stderr)")
        let sticker = try Bitmap.read(output)
        // Comic ink runs round the subject: dark pixels where the plain sticker is orange.
        let row = sticker.height / 2
        let edge = try #require((0..<sticker.width).first { sticker[$0, row][3] >= 128 })
        #expect(sticker[edge + 1, row].prefix(3).allSatisfy { $0 < 60 }, "\(sticker[edge + 1, row])")
        let bad = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--effect", "glitter"])
        #expect(
            bad.status == 64 && bad.stderr.contains("--effect expects comic, halftone, puffy, shiny, got \"glitter\""))
    }

    @Test func importFindsSubjectsAheadUnlessToldNotToAndPhotosSaysWhichAreReady() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library").path
        let photo = try Self.offCentrePhoto(in: directory)
        let plain = directory.appendingPathComponent("plain.png")
        try Bitmap(width: 300, height: 200, color: [128, 128, 128]).write(to: plain, format: .png)
        // A black-and-white photo (one grey channel) stayed "-" for good: its mask is cached
        // under a key of its own.
        let colour = try Bitmap.read(photo)
        let greyPixels = (0..<(colour.width * colour.height)).map { colour.pixels[$0 * colour.channels + 1] }
        let grey = directory.appendingPathComponent("grey.png")
        try #require(Bitmap(width: colour.width, height: colour.height, channels: 1, pixels: greyPixels))
            .write(to: grey, format: .png)
        #expect(
            try CommandRunner.run(["import", photo.path, plain.path, grey.path, "--library", library]).status == 0)
        let listed = try CommandRunner.run(["photos", "--library", library])
        let rows = listed.stdout.split(separator: "\n")
        #expect(rows.first?.contains("LIFT") == true)
        #expect(rows.contains { $0.contains("off centre.png") && $0.contains("ready") }, "\(listed.stdout)")
        #expect(rows.contains { $0.contains("grey.png") && $0.contains("ready") }, "\(listed.stdout)")
        #expect(rows.contains { $0.contains("plain.png") && $0.contains("no subject") }, "\(listed.stdout)")
        let later = directory.appendingPathComponent("later.png")
        try Bitmap(width: 320, height: 200, color: [20, 90, 200]).write(to: later, format: .png)
        #expect(try CommandRunner.run(["import", "--no-analyse", later.path, "--library", library]).status == 0)
        let json = try CommandRunner.run(["photos", "--json", "--library", library])
        #expect(json.stdout.contains(#""subject":"pending""#) || json.stdout.contains(#""subject": "pending""#))
    }

    /// A sticker lifted into the library could not be found again from the command line: its
    /// id was printed once. `collage stickers` lists them with what they look like and where
    /// they came from, and the id it shows names the sticker to `collage sheet`.
    @Test func stickersListsTheLibrarysStickersForSheetsAndPacks() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library").path
        let photo = try Self.offCentrePhoto(in: directory)
        #expect(try CommandRunner.run(["import", "--no-analyse", photo.path, "--library", library]).status == 0)
        let empty = try CommandRunner.run(["stickers", "--library", library])
        #expect(empty.status == 0 && empty.stdout.contains("No stickers yet"), "\(empty.stdout)")
        let photoID = try #require(
            try JSONValue.parse(try CommandRunner.run(["photos", "--json", "--library", library]).stdout)
                .elements.first?.member("id")?.string)
        let lifted = try CommandRunner.run(["sticker", photoID, "--outline", "6", "--library", library])
        #expect(lifted.status == 0, "\(lifted.stderr)")
        let listed = try CommandRunner.run(["stickers", "--library", library])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = listed.stdout.split(separator: "\n")
        #expect(rows.first?.contains("LOOK") == true && rows.count == 2, "\(listed.stdout)")
        #expect(rows.last?.contains("outline 6 px") == true && rows.last?.contains("off centre.png") == true)
        let shown = try #require(rows.last.map { String($0.prefix { $0 != " " }) })
        let json = try JSONValue.parse(try CommandRunner.run(["stickers", "--json", "--library", library]).stdout)
        let sticker = try #require(json.elements.first)
        #expect(sticker.member("id")?.string?.hasPrefix(shown) == true && shown.count == 12)
        #expect(sticker.member("photo")?.string == photoID && sticker.member("outline")?.number == 6)
        #expect(FileManager.default.fileExists(atPath: sticker.member("file")?.string ?? "/none"))
        let sheet = directory.appendingPathComponent("sheet.pdf")
        let printed = try CommandRunner.run(["sheet", shown, "--library", library, "-o", sheet.path])
        #expect(printed.status == 0, "\(printed.stderr)")
    }

    /// Options that were passed over, or lost a file, without a word: a cut line named as the
    /// sticker was written over by it; --output-dir wrote full-size PNG stills whatever --live or
    /// --format asked; a batch's failure did not say which photo; --json left the cut line out;
    /// and --live refused the --format its own message suggested.
    @Test func stickerOptionsAreHonouredOrRefusedNeverPassedOver() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let other = try Self.offCentrePhoto(in: directory, name: "second.png")
        let sticker = directory.appendingPathComponent("same.png")
        let same = try CommandRunner.run(["sticker", photo.path, "-o", sticker.path, "--cut-line", sticker.path])
        #expect(same.status == 64 && same.stderr.contains("--cut-line"), "\(same.stderr)")
        #expect(same.stderr.contains("collage sticker --help"))
        #expect(!FileManager.default.fileExists(atPath: sticker.path))

        let cut = directory.appendingPathComponent("cut.svg")
        let printed = try CommandRunner.run([
            "sticker", photo.path, "-o", sticker.path, "--cut-line", cut.path, "--offset", "3mm", "--json",
        ])
        #expect(printed.status == 0, "\(printed.stderr)")
        let json = try JSONValue.parse(printed.stdout)
        #expect(json.member("cutLine")?.member("file")?.string == cut.path)
        #expect(json.member("cutLine")?.member("offsetMillimetres")?.number == 3)
        #expect(json.member("cutLine")?.member("dpi")?.number == 300)

        let folder = directory.appendingPathComponent("out")
        let live = try CommandRunner.run([
            "sticker", photo.path, other.path, "--output-dir", folder.path, "--live", "bounce",
        ])
        #expect(live.status == 64 && live.stderr.contains("--live"), "\(live.stderr)")
        let webp = try CommandRunner.run([
            "sticker", photo.path, other.path, "--output-dir", folder.path, "--format", "webp",
        ])
        #expect(webp.status == 0, "\(webp.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(written == ["off centre.webp", "second.webp"], "\(written)")
        let header = try Data(contentsOf: folder.appendingPathComponent("second.webp")).prefix(12)
        #expect(header.suffix(4) == Data("WEBP".utf8))

        let none = try CommandRunner.run(["sticker", photo.path, "--output-dir", folder.path, "--instance", "4"])
        #expect(none.status == 65)
        #expect(none.stderr.contains("\(photo.path): there is no subject 4"), "\(none.stderr)")

        let misnamed = try CommandRunner.run(["sticker", photo.path, "--format", "webp", "-o", sticker.path])
        #expect(misnamed.status == 64 && misnamed.stderr.contains("name it .webp"), "\(misnamed.stderr)")
        let maskWithLook = try CommandRunner.run([
            "sticker", photo.path, "--mask-only", "--effect", "comic", "-o",
            directory.appendingPathComponent("m.png").path,
        ])
        #expect(maskWithLook.status == 64 && maskWithLook.stderr.contains("--mask-only"), "\(maskWithLook.stderr)")
        let notAFolder = try CommandRunner.run(["sticker", photo.path, other.path, "--output-dir", sticker.path])
        #expect(
            notAFolder.status == 73 && notAFolder.stderr.contains("is a file, not a folder"), "\(notAFolder.stderr)")

        let gif = directory.appendingPathComponent("live.bin")
        let formatted = try CommandRunner.run([
            "sticker", photo.path, "--live", "bounce", "--format", "gif", "--duration", "1", "--size", "64", "-o",
            gif.path,
        ])
        #expect(formatted.status == 0, "\(formatted.stderr)")
        #expect(try Data(contentsOf: gif).prefix(6) == Data("GIF89a".utf8))
    }

    @Test func makeRemembersEachPhotosSubjectForTheNextTime() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let cache = directory.appendingPathComponent("cache")
        let environment = [
            "XDG_CACHE_HOME": cache.path,
            "COLLAGE_MODEL": ProcessInfo.processInfo.environment["COLLAGE_MODEL"] ?? SubjectModel.defaultPath().path,
        ]
        func make(_ name: String) throws -> Bitmap {
            let output = directory.appendingPathComponent(name)
            let result = try CommandRunner.run(
                ["make", "--layout", "sideBySide", "--smart-crop", photo.path, photo.path, "-o", output.path],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try Bitmap.read(output)
        }
        let first = try make("first.png")
        let entries = try FileManager.default.contentsOfDirectory(
            atPath: cache.appendingPathComponent("collage/focus").path)
        #expect(entries.count == 1, "one photo, one entry: \(entries)")
        // The second time reads the focus back, and crops the same.
        let second = try make("second.png")
        #expect(first.pixels == second.pixels)
    }

    @Test func noSubjectAndMissingModelHaveTheirOwnExitCodes() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let flat = directory.appendingPathComponent("flat.png")
        try Bitmap(width: 300, height: 200, color: [120, 120, 120]).write(to: flat, format: .png)
        let output = directory.appendingPathComponent("none.png")
        let none = try CommandRunner.run(["sticker", flat.path, "-o", output.path])
        #expect(none.status == 3 && none.stderr.contains("no subject found"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let photo = try Self.offCentrePhoto(in: directory)
        let missing = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--model", "/no/model.onnx"])
        #expect(missing.status == 69 && missing.stderr.contains("scripts/fetch-model"))
        let nowhere = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--at", "800,50"])
        #expect(nowhere.status == 3 && nowhere.stderr.contains("no subject at (800, 50)"))
        // A point a little off the subject (a finger beside a thin one) still finds it: the disc
        // ends at x = 220, and 240 is within 4 % of the photo's side.
        let near = try CommandRunner.run(["sticker", photo.path, "-o", output.path, "--at", "240,200"])
        #expect(near.status == 0, "\(near.stderr)")
        let badFormat = try CommandRunner.run(["sticker", photo.path, "-o", "x.jpg"])
        #expect(badFormat.status == 64)
    }

    /// OpenCV lives in its own shared object, loaded only to lift subjects: without it, stickers
    /// fail with the fix spelled out, and rendering does not notice.
    @Test func withoutTheSegmentLibraryStickersSayHowToFixItAndRendersStillWork() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let broken = ["COLLAGE_SEGMENT_LIBRARY": directory.appendingPathComponent("missing.so").path]
        let output = directory.appendingPathComponent("sticker.png")
        let sticker = try CommandRunner.run(["sticker", photo.path, "-o", output.path], environment: broken)
        #expect(sticker.status == 69, "\(sticker.stderr)")
        #expect(sticker.stderr.contains("libCollageSegment.so could not be loaded"), "\(sticker.stderr)")
        #expect(sticker.stderr.contains("missing.so") && sticker.stderr.contains("--product CollageSegment"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let collage = directory.appendingPathComponent("collage.jpg")
        let make = try CommandRunner.run(
            ["make", "--size", "400", photo.path, photo.path, "-o", collage.path], environment: broken)
        #expect(make.status == 0, "\(make.stderr)")
        #expect(try Bitmap.read(collage).width == 400)
    }

    @Test func aLibraryPhotosStickerGoesIntoTheLibrary() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library").path
        let photo = try Self.offCentrePhoto(in: directory)
        let imported = try CommandRunner.run(["import", "--json", photo.path, "--library", library])
        let photoID = try #require(try JSONValue.parse(imported.stdout).elements.first?.member("id")?.string)
        let first = try CommandRunner.run([
            "sticker", String(photoID.prefix(10)), "--library", library, "--outline", "4",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let stickerID = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(stickerID.count == 64)
        let second = try CommandRunner.run(["sticker", photoID, "--library", library, "--outline", "4"])
        #expect(
            second.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == stickerID,
            "the same request, the same sticker")
        let created = try CommandRunner.run(["new", "--json", "--layout", "grid2x2", "--library", library])
        let collageID = try #require(try JSONValue.parse(created.stdout).member("id")?.string)
        let edit = #"{"op": "addItem", "id": "s", "content": {"type": "sticker", "ref": "\#(stickerID)"}}"#
        #expect(try CommandRunner.run(["edit", collageID, edit, "--library", library]).status == 0)
        let output = directory.appendingPathComponent("with-sticker.png")
        let exported = try CommandRunner.run([
            "export", collageID, "-o", output.path, "--scale", "0.5", "--library", library,
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let image = try Bitmap.read(output)
        #expect(close(image[300, 300], [230, 110, 20]), "the sticker sits in the middle of the page")
        let unknown = try CommandRunner.run(["sticker", "abcdef123456", "--library", library])
        #expect(unknown.status == 66 && unknown.stderr.contains("no photo with id"))
        // A file name mistyped, or a file in another folder: said to be no file, not no photo id.
        let missing = try CommandRunner.run(["sticker", "missing.jpg", "-o", output.path, "--library", library])
        #expect(
            missing.status == 66 && missing.stderr.contains("missing.jpg: no such file"), "\(missing.stderr)")
    }

    @Test func smartCropKeepsTheSubjectInANarrowSlot() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Self.offCentrePhoto(in: directory)
        let smart = directory.appendingPathComponent("smart.png")
        let centred = directory.appendingPathComponent("centred.png")
        // A strip of three tall slots: each slot is much narrower than the wide photo.
        for (output, flag) in [(smart, "--smart-crop"), (centred, "--no-smart-crop")] {
            let result = try CommandRunner.run(
                [
                    "make", flag, "--layout", "strip", "--size", "600", photo.path, photo.path, photo.path, "-o",
                    output.path,
                ])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let frame = try #require(Template.named("strip")).frames(
            in: Size(width: 1200, height: 1200), spacing: 12, padding: 12)[0]
        let center = (Int(frame.center.x / 2), Int(frame.center.y / 2))
        #expect(close(try Bitmap.read(smart)[center.0, center.1], [230, 110, 20]), "the subject fills the slot")
        #expect(close(try Bitmap.read(centred)[center.0, center.1], [236, 234, 228]), "a centre crop shows background")
    }
}
