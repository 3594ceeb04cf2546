import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@Suite("collage make and render")
struct MakeCommandTests {
    static let colors: [[UInt8]] = [[220, 30, 30], [30, 200, 40], [40, 60, 220]]

    func photos(in directory: URL) throws -> [String] {
        try Self.colors.enumerated().map { index, color in
            let file = directory.appendingPathComponent("photo \(index) ü.png")
            try Bitmap(width: 120, height: 90, color: color).write(to: file, format: .png)
            return file.path
        }
    }

    @Test func makeRendersTheLayoutWithPhotosInOrder() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out put.jpg")
        // Magazine is a premium layout: this machine has a licence.
        let result = try CommandRunner.run(
            ["make", "--layout", "magazine", "--aspect", "4:5", "--size", "1200", "--radius", "8"]
                + (try photos(in: directory)) + ["-o", output.path],
            environment: ["XDG_CONFIG_HOME": try TestLicence.unlockedConfig(in: directory).path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("(960 × 1200 JPEG)"))
        let image = try Bitmap.read(output)
        #expect((image.width, image.height) == (960, 1200))
        let frames = try #require(Template.named("magazine")).frames(
            in: Size(width: 960, height: 1200), spacing: 12, padding: 12)
        for (frame, color) in zip(frames, Self.colors) {
            #expect(close(image[Int(frame.center.x), Int(frame.center.y)], color))
        }
    }

    /// Fewer photos than slots left half a print blank with no word; more photos than slots were
    /// already noted.
    @Test func emptySlotsAreNoted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let two = Array(try photos(in: directory).prefix(2))
        let result = try CommandRunner.run(
            ["make", "--layout", "grid2x2", "--size", "400", "--no-smart-crop"] + two
                + ["-o", directory.appendingPathComponent("half.png").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("grid2x2 has 4 slots; 2 are left empty"), "\(result.stderr)")
        // A photo background that is not there is said by its option (it said "no such file" alone).
        let missing = try CommandRunner.run(
            ["make", "--background", "photo(nowhere.jpg, 24)", "--size", "400"] + two
                + ["-o", directory.appendingPathComponent("none.png").path])
        #expect(missing.status == 66 && missing.stderr.contains("--background: "), "\(missing.stderr)")
        #expect(missing.stderr.contains("nowhere.jpg: no such file"), "\(missing.stderr)")
    }

    /// A long title's pill lay over the faces of a grid's bottom row (a portrait's mouth, a cat's
    /// face): where the bottom would cover a photo's subject it goes to the top, or to the middle
    /// (the seam of a grid's two rows); where the bottom covers none it stays there.
    @Test func theTitleKeepsOffThePhotosSubjects() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photos = try (0..<4).map { index in
            var image = Bitmap(width: 400, height: 300, color: [236, 234, 228])
            for y in 0..<300 {
                for x in 0..<400 where pow(Double(x) - 200, 2) + pow(Double(y) - 150, 2) <= 70 * 70 {
                    image[x, y] = [UInt8(40 + 50 * index), 60, 140]
                }
            }
            let file = directory.appendingPathComponent("subject \(index).png")
            try image.write(to: file, format: .png)
            return file.path
        }
        func titleFrame(_ aspect: String, _ title: String) throws -> (frame: JSONBox, height: Double) {
            let document = directory.appendingPathComponent("\(aspect.replacingOccurrences(of: ":", with: "x")).json")
            let result = try CommandRunner.run(
                ["make", "--layout", "grid2x2", "--aspect", aspect, "--size", "600", "--title", title] + photos
                    + ["-o", directory.appendingPathComponent("out.png").path, "--save-document", document.path])
            #expect(result.status == 0, "\(result.stderr)")
            let saved = JSONBox(try Data(contentsOf: document))
            let title = try #require(
                (0..<saved["items"].count).map { saved["items"][$0] }.first { $0["id"].string == "title" })
            return (title["frame"], try #require(saved["canvas"]["height"].number))
        }
        // Two lines on a wide canvas: at the bottom it reached the bottom row's subjects.
        let wide = try titleFrame("16:9", "Grandma's eightieth birthday party at the lake house, summer")
        let y = try #require(wide.frame["y"].number), height = try #require(wide.frame["height"].number)
        #expect(y + height < wide.height * 0.75, "the title lies at \(y) to \(y + height) of \(wide.height)")
        // One short line on a square: the bottom covers no subject, and it stays there.
        let square = try titleFrame("1:1", "Trip")
        let bottom = try #require(square.frame["y"].number) + (try #require(square.frame["height"].number))
        #expect(bottom > square.height * 0.9, "the title ends at \(bottom) of \(square.height)")
    }

    /// Three landscape photos in `strip` lose three quarters of their pictures each, and nothing
    /// said so; a grid that cuts them a little says nothing.
    @Test func framesThatCutAwayMostOfAPhotoAreNoted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let three = try photos(in: directory)
        let strip = try CommandRunner.run(
            ["make", "--layout", "strip", "--size", "400", "--no-smart-crop"] + three
                + ["-o", directory.appendingPathComponent("strip.png").path])
        #expect(strip.status == 0, "\(strip.stderr)")
        #expect(strip.stderr.contains("strip cuts away more than half of 3 photos"), "\(strip.stderr)")
        #expect(strip.stderr.contains("(up to 76 %)"), "\(strip.stderr)")
        #expect(strip.stderr.contains("--layout auto"), "\(strip.stderr)")
        let grid = try CommandRunner.run(
            ["make", "--layout", "grid2x2", "--size", "400", "--no-smart-crop"] + three
                + ["-o", directory.appendingPathComponent("grid.png").path])
        #expect(grid.status == 0, "\(grid.stderr)")
        #expect(!grid.stderr.contains("cuts away"), "\(grid.stderr)")
    }

    /// With no --layout the photos get a layout made for them: each keeps its shape and the
    /// canvas is filled (two photos in a fixed 2 × 2 grid left half of it blank, and a fixed
    /// grid cut landscape photos to strips); one photo gets a canvas of its own shape; `new`
    /// alike, and --hero applies.
    @Test func withoutALayoutThePhotosGetOneMadeForThem() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let three = try photos(in: directory)
        func make(_ photos: [String]) throws -> (Bitmap, String) {
            let output = directory.appendingPathComponent("made\(photos.count).png")
            let result = try CommandRunner.run(
                ["make", "--size", "400", "--no-smart-crop"] + photos + ["-o", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            return (try Bitmap.read(output), result.stderr)
        }
        for count in [2, 3, 5] {
            // Five photos: the three colours, two of them twice.
            let (image, notes) = try make(Array((three + three).prefix(count)))
            #expect(!notes.contains("slots"), "\(notes)")
            var covered = Array(repeating: 0, count: Self.colors.count)
            var samples = 0
            for y in stride(from: 0, to: image.height, by: 4) {
                for x in stride(from: 0, to: image.width, by: 4) {
                    samples += 1
                    for (index, color) in Self.colors.enumerated() where close(image[x, y], color, tolerance: 20) {
                        covered[index] += 1
                    }
                }
            }
            // Photos cover the canvas but for its gaps and margins (12 points of 1,200 a side).
            #expect(covered.reduce(0, +) * 100 > samples * 80, "\(count) photos: \(covered) of \(samples)")
            #expect(
                covered.prefix(min(count, 3)).allSatisfy { $0 * 100 > samples * 10 },
                "\(count): \(covered) of \(samples)")
        }
        let (one, _) = try make([three[0]])
        #expect((one.width, one.height) == (400, 300), "a 4:3 photo makes a 4:3 canvas")
        let library = directory.appendingPathComponent("library")
        let created = try CommandRunner.run(["new", "--library", library.path] + three)
        #expect(created.stdout.contains("(laid out for its photos, 3 photos)"), "\(created.stdout) \(created.stderr)")
        let hero = try CommandRunner.run(["new", "--library", library.path, "--hero", "2"] + three)
        #expect(hero.stdout.contains("(laid out for its photos, 3 photos)"), "\(hero.stdout) \(hero.stderr)")
        let empty = try CommandRunner.run(["new", "--library", library.path])
        #expect(empty.stdout.contains("(grid2x2, 0 photos)"), "\(empty.stdout) \(empty.stderr)")
    }

    /// Photos too small for their frames are named before a print comes out soft, as the
    /// editor's "Low res" badges name them; at a size they fill sharply, nothing is said.
    @Test func photosTooSmallForTheirFramesAreNoted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let two = Array(try photos(in: directory).prefix(2))
        func notes(_ size: [String]) throws -> String {
            let result = try CommandRunner.run(
                ["make", "--no-smart-crop"] + size + two + ["-o", directory.appendingPathComponent("n.jpg").path])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stderr
        }
        // Each 120 × 90 px photo fills a frame about 194 px across at 400 px with 45 of its pixels.
        let screen = try notes(["--size", "400"])
        #expect(
            screen.contains(
                "note: 2 photos are small for their frames at this size and may look soft: photo 0 ü.png enlarged "),
            "\(screen)")
        #expect(screen.contains("(use larger photos, or a smaller --size or --scale)"), "\(screen)")
        let print = try notes(["--print", "6x4in@300"])
        #expect(
            print.contains("2 photos are small for their frames and will print soft: photo 0 ü.png at "), "\(print)")
        #expect(print.contains("(150 DPI or more looks sharp; use larger photos or a smaller print)"), "\(print)")
        #expect(!(try notes(["--size", "100"])).contains("soft"))
    }

    @Test func aPrintSizeOfAnotherShapeSaysHowTheCollageIsFitted() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("print.jpg")
        let square = try CommandRunner.run(
            ["make", "--layout", "grid2x2", "--aspect", "1:1", "--print", "5x7in@300", "--no-smart-crop"]
                + (try photos(in: directory)) + ["-o", output.path])
        #expect(square.status == 0, "\(square.stderr)")
        #expect(square.stdout.contains("(1500 × 1500 JPEG at 300 DPI)"))
        #expect(
            square.stderr.contains(
                "note: the collage is not the paper's shape: it prints whole at 5 × 5 in (1500 × 1500 px), "
                    + "leaving 2 in of the 5 × 7 in paper blank"), "\(square.stderr)")
        // A landscape collage on portrait A4 is told the turned paper holds it larger.
        let wide = try CommandRunner.run(
            ["make", "--layout", "grid2x2", "--aspect", "3:2", "--print", "a4@300", "--no-smart-crop"]
                + (try photos(in: directory)) + ["-o", output.path])
        #expect(wide.status == 0 && wide.stderr.contains("the paper turned (11.69x8.27in) holds it larger"))
        // The paper's own shape: nothing to say.
        let fitted = try CommandRunner.run(
            ["make", "--layout", "grid2x2", "--print", "5x7in@300", "--no-smart-crop"]
                + (try photos(in: directory)) + ["-o", output.path])
        #expect(fitted.status == 0 && !fitted.stderr.contains("not the paper's shape"), "\(fitted.stderr)")
    }

    @Test func makeWithAPrintSizeWritesThePrintsPixelsAndJSON() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("print.png")
        let result = try CommandRunner.run(
            ["make", "--json", "--layout", "strip", "--print", "6x4in@100"] + (try photos(in: directory))
                + ["-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue.parse(result.stdout)
        #expect(json.member("width") == .number(600) && json.member("height") == .number(400))
        #expect(json.member("dpi") == .number(100) && json.member("format") == .string("png"))
    }

    /// Baseline JPEG by default (it streams, in little memory); progressive on request. The
    /// start-of-frame marker says which: SOF0 (FF C0) baseline, SOF2 (FF C2) progressive.
    @Test func jpegIsBaselineUnlessProgressiveIsAsked() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func startOfFrame(_ extra: [String]) throws -> UInt8? {
            let output = directory.appendingPathComponent("out\(extra.count).jpg")
            let result = try CommandRunner.run(
                ["make", "--size", "300"] + extra + (try photos(in: directory)) + ["-o", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            let bytes = [UInt8](try Data(contentsOf: output))
            return bytes.indices.dropLast().first { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) }
                .map { bytes[$0 + 1] }
        }
        #expect(try startOfFrame([]) == 0xC0)
        #expect(try startOfFrame(["--progressive"]) == 0xC2)
    }

    /// The command line starts libvips without its optional format modules and loads them when
    /// a file or an output needs one: an AVIF photo in, an AVIF collage out.
    @Test func formatsFromLibvipsModulesLoadWhenNeeded() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = directory.appendingPathComponent("photo.avif")
        try Bitmap(width: 120, height: 90, color: [40, 180, 90]).write(to: photo, format: .avif, quality: 90)
        let output = directory.appendingPathComponent("out.avif")
        let result = try CommandRunner.run(
            ["make", "--layout", "sideBySide", "--size", "200", photo.path, photo.path, "-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("AVIF"))
        let image = try Bitmap.read(output)
        #expect(image.width == 200 && close(image[50, 100], [40, 180, 90], tolerance: 16), "\(image[50, 100])")
    }

    @Test func renderUsesPathsRelativeToTheDocument() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try photos(in: directory)
        var collage = Collage(
            id: "d", title: "doc", created: Date(), canvas: Size(width: 300, height: 100), templateID: "strip")
        for (index, path) in paths.enumerated() {
            collage = try collage.applying(
                .addItem(id: "i\(index)", content: .photo(URL(fileURLWithPath: path).lastPathComponent), frame: nil))
        }
        let document = directory.appendingPathComponent("doc.json")
        try CollageDocument.encode(collage).write(to: document)
        let output = directory.appendingPathComponent("doc.webp")
        // Run from another folder: references still resolve against the document's.
        let result = try CommandRunner.run(
            ["render", document.path, "-o", output.path, "--scale", "2"], in: URL(fileURLWithPath: "/"))
        #expect(result.status == 0, "\(result.stderr)")
        let image = try Bitmap.read(output)
        #expect((image.width, image.height) == (600, 200))
        #expect(close(image[300, 100], Self.colors[1], tolerance: 20))
    }

    @Test(arguments: [
        (["make", "a.jpg"], 64, "an output file is required"),
        (["make", "--layout", "hexagon", "a.jpg", "-o", "x.jpg"], 64, "--layout expects a template id"),
        (["make", "a.jpg", "-o", "x.gif"], 64, "cannot tell the format"),
        (
            ["make", "--scale", "2", "--size", "100", "a.jpg", "-o", "x.jpg"], 64,
            "choose one of --scale, --size and --print"
        ),
        (
            ["make", "--quality", "140", "a.jpg", "-o", "x.jpg"], 64,
            "--quality expects a whole number from 1 to 100, got \"140\""
        ),
        (["make", "--print", "6x4", "a.jpg", "-o", "x.jpg"], 64, "--print expects"),
        // Hexadecimal, nan and inf are numbers to Swift, never to a person typing a flag.
        (["make", "--print", "6x4in@0x12C", "a.jpg", "-o", "x.jpg"], 64, "--print expects"),
        (["make", "--spacing", "0x10", "a.jpg", "-o", "x.jpg"], 64, "--spacing"),
        (["make", "--scale", "nan", "a.jpg", "-o", "x.jpg"], 64, "--scale"),
        (["make", "--scale", "inf", "a.jpg", "-o", "x.jpg"], 64, "--scale"),
        (["make", "--progressive", "a.jpg", "-o", "x.png"], 64, "--progressive applies to JPEG only"),
        (["make", "--background", "mauve", "a.jpg", "-o", "x.jpg"], 64, "--background expects"),
        (["make", "missing.jpg", "-o", "x.jpg"], 66, "missing.jpg: no such file"),
        (["render", "missing.json", "-o", "x.jpg"], 66, "missing.json: no such file"),
    ])
    func errorsHaveTheDocumentedExitCodes(arguments: [String], status: Int32, message: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CommandRunner.run(arguments, in: directory)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written")
    }

    /// Options whose mistake was silent or said vaguely.
    static let optionMistakes: [(arguments: [String], status: Int32, message: String)] = [
        // A value given twice was the last one, silently.
        (["make", "a.jpg", "-o", "x.jpg", "--output", "y.jpg"], 64, "-o or --output was given twice"),
        (["make", "--spacing", "3", "--spacing=4", "a.jpg", "-o", "x.jpg"], 64, "--spacing was given twice"),
        (["make", "--quality", "80", "a.jpg", "-o", "x.png"], 64, "--quality sets how JPEG"),
        // Said before the collage is drawn, not after.
        (["make", "a.jpg", "-o", "/no-such-folder/x.jpg"], 73, "the folder /no-such-folder does not exist"),
        // PNG bytes were written into a file named .jpg.
        (
            ["make", "--format", "png", "a.jpg", "-o", "x.jpg"], 64,
            "--format png does not match the file's name \"x.jpg\""
        ),
        (
            ["make", "--seed", "2"] + Array(repeating: "a.jpg", count: 41) + ["-o", "x.jpg"], 64,
            "at most 40 photos are laid out for their shapes (the default layout), got 41"
        ),
        (
            ["make", "--print", "200x1in@300", "a.jpg", "-o", "x.jpg"], 64,
            "\"200x1in@300\" is 60000 × 300 pixels, past the limit of 32000 pixels a side; that paper fits at 160 DPI"
        ),
        // Rounded as a print's pixels are, 401 DPI still fits.
        (["make", "--print", "79.801x1in@1200", "a.jpg", "-o", "x.jpg"], 64, "that paper fits at 401 DPI or less"),
        // Which limit a print passes, and what fits instead.
        (
            ["make", "--print", "a3@1200", "a.jpg", "-o", "x.jpg"], 64,
            "\"a3@1200\" is 14031 × 19843 pixels (278.5 megapixels), past the limit of 100 megapixels; "
                + "that paper fits at 719 DPI or less"
        ),
        (["make", "--print", "a4@5000", "a.jpg", "-o", "x.jpg"], 64, "\"a4@5000\": the DPI must be from 10 to 1200"),
        // The title is the document's too: refused by its flag, not when the collage is drawn.
        (
            ["make", "--layout", "grid2x2", "--title", String(repeating: "t", count: 201), "a.jpg", "-o", "x.jpg"],
            64, "--title expected at most 200 characters, got 201"
        ),
        (
            [
                "make", "--layout", "grid2x2", "--title", String(repeating: "t", count: 200) + "   ", "a.jpg", "-o",
                "x.jpg",
            ],
            64, "--title expected at most 200 characters, got 203"
        ),
        (["make", "-o", "x.jpg"], 64, "'collage make' takes at least 1 argument, got 0"),
    ]

    /// Each is refused, naming what to change.
    @Test(arguments: optionMistakes)
    func mistakesInOptionsAreSaidPlainly(arguments: [String], status: Int32, message: String) throws {
        try errorsHaveTheDocumentedExitCodes(arguments: arguments, status: status, message: message)
    }

    @Test func aCorruptPhotoIsADataErrorNamingIt() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("not an image".utf8).write(to: directory.appendingPathComponent("bad.jpg"))
        let result = try CommandRunner.run(["make", "bad.jpg", "-o", "out.jpg"], in: directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad.jpg: not a readable image"))
        // In the person's words: which formats are read, and no libvips class names.
        #expect(result.stderr.contains("its format is not one Collage reads: JPEG, PNG"), "\(result.stderr)")
        #expect(!result.stderr.contains("Vips"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.jpg").path))
    }

    @Test func anUnwritableOutputExits73() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try photos(in: directory)[0]
        let result = try CommandRunner.run(["make", photo, "-o", "/nonexistent-folder/out.jpg"])
        #expect(result.status == 73)
        #expect(result.stderr.contains("/nonexistent-folder/out.jpg: cannot write"))
    }

    @Test func anAutoLayoutKeepsEachPhotosShapeAndFillsTheCanvas() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sizes = [(300, 200), (200, 300), (240, 240), (400, 150), (210, 280)]
        let colors: [[UInt8]] = [[220, 30, 30], [30, 200, 40], [40, 60, 220], [230, 200, 20], [150, 40, 170]]
        let files = try zip(sizes, colors).enumerated().map { index, pair in
            let file = directory.appendingPathComponent("p\(index).png")
            try Bitmap(width: pair.0.0, height: pair.0.1, color: pair.1).write(to: file, format: .png)
            return file.path
        }
        let output = directory.appendingPathComponent("auto.png")
        let document = directory.appendingPathComponent("auto.json")
        let result = try CommandRunner.run(
            ["make", "--layout", "auto", "--max-crop", "0", "--aspect", "3:2", "--size", "900", "--spacing", "10"]
                + files + ["--save-document", document.path, "-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let collage = try CollageDocument.decode(try JSONValue.parse(Data(contentsOf: document)))
        #expect(collage.templateID == nil)
        let image = try Bitmap.read(output)
        let scale = Double(image.width) / collage.canvas.width
        for (item, (size, color)) in zip(collage.items, zip(sizes, colors)) {
            // Its own shape, within a point, and its own colour in the middle of its frame.
            #expect(abs(item.frame.width / item.frame.height - Double(size.0) / Double(size.1)) * item.frame.height < 1)
            let center = item.frame.center
            #expect(close(image[Int(center.x * scale), Int(center.y * scale)], color))
        }
        // The same seed, the same layout; the options are checked.
        let again = try CommandRunner.run(
            ["make", "--layout", "auto", "--max-crop", "0", "--aspect", "3:2", "--spacing", "10"] + files
                + ["--save-document", directory.appendingPathComponent("again.json").path, "-o", output.path])
        #expect(again.status == 0)
        let frames = try CollageDocument.decode(
            try JSONValue.parse(Data(contentsOf: directory.appendingPathComponent("again.json")))
        ).items.map(\.frame)
        #expect(frames == collage.items.map(\.frame))
        let badHero = try CommandRunner.run(["make", "--layout", "auto", "--hero", "9"] + files + ["-o", output.path])
        #expect(
            badHero.status == 64 && badHero.stderr.contains("--hero expects the number of one of the photos, 1 to 5"))
        let badCrop = try CommandRunner.run(
            ["make", "--layout", "auto", "--max-crop", "1e300"] + files + ["-o", output.path])
        #expect(badCrop.status == 64 && badCrop.stderr.contains("--max-crop expects a percentage"))
        // A seed out of range or not whole is refused, never turned into a number that traps.
        for seed in ["-1", "1e300", "1.5"] {
            let badSeed = try CommandRunner.run(
                ["make", "--layout", "auto", "--seed", seed] + files + ["-o", output.path])
            #expect(badSeed.status == 64 && badSeed.stderr.contains("--seed expects a whole number"), "\(seed)")
        }
        let notAuto = try CommandRunner.run(
            ["make", "--layout", "strip", "--seed", "3"] + files + ["-o", output.path])
        #expect(notAuto.status == 64 && notAuto.stderr.contains("--seed only applies with --layout auto"))
    }
}

func close(_ pixel: [UInt8], _ expected: [UInt8], tolerance: Int = 12) -> Bool {
    zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}

extension MakeCommandTests {
    /// Four landscape photos laid out for their shapes: on a canvas turned as they are, at any
    /// margin. A per cent of crop decided it, and they came out on a tall 9:16 canvas with the
    /// default margins and on a 4:3 one with wider ones.
    @Test func landscapePhotosGetALandscapeCanvasAtAnyMargin() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The sample photos' shapes: the cat, the coffee, the horse and the motorcycle.
        let sizes = [(451, 300), (600, 400), (400, 328), (741, 500)]
        let photos = try sizes.enumerated().map { index, size in
            let file = directory.appendingPathComponent("landscape \(index).png")
            try Bitmap(width: size.0, height: size.1, color: Self.colors[index % Self.colors.count])
                .write(to: file, format: .png)
            return file.path
        }
        for margin in ["0", "12", "24", "40"] {
            let result = try CommandRunner.run(
                ["make", "--json", "--size", "300", "--no-smart-crop", "--padding", margin, "--spacing", margin]
                    + photos + ["-o", directory.appendingPathComponent("four.png").path])
            #expect(result.status == 0, "\(result.stderr)")
            let made = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let (width, height) = (made?["width"] as? Int ?? 0, made?["height"] as? Int ?? 0)
            #expect(width > height, "margins of \(margin) points: a \(width) × \(height) canvas")
        }
    }
}
