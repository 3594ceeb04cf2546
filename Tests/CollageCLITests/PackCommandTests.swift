import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// `collage pack`: every file a messenger is given is read back, by the project's own reader and
/// by libwebp's `webpmux`, and held against that messenger's published limits.
@Suite("collage pack: messenger sticker packs", .serialized)
struct PackCommandTests {
    /// A clear PNG with a disc of colour noise in it: fine detail that is costly to encode, so the
    /// byte limits are really tested. `seed` makes each sticker different and repeatable.
    static func noisySticker(_ name: String, in folder: URL, side: Int = 640, seed: UInt64 = 1) throws -> URL {
        var image = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let radius = Double(side) * 0.45
        for y in 0..<side {
            for x in 0..<side {
                let (dx, dy) = (Double(x) - Double(side) / 2, Double(y) - Double(side) / 2)
                if dx * dx + dy * dy <= radius * radius { image[x, y] = [next(), next(), next(), 255] }
            }
        }
        let file = folder.appendingPathComponent(name)
        try image.write(to: file, format: .png)
        return file
    }

    static func stickers(_ count: Int, in folder: URL) throws -> [String] {
        try (0..<count).map { try noisySticker("s\($0).png", in: folder, seed: UInt64($0 + 1)).path }
    }

    @Test(arguments: Messenger.allCases)
    func everyFileIsWithinTheMessengersLimits(_ messenger: Messenger) throws {
        let folder = try TemporaryFolder("pack-\(messenger.rawValue)")
        let rules = messenger.rules
        let count = max(3, rules.stickers.lowerBound)
        let out = folder.file("pack")
        let result = try CommandRunner.run(
            ["pack", "--for", messenger.rawValue, "-o", out.path, "--title", "Noise & co", "--json"]
                + (try Self.stickers(count, in: folder.url)))
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        #expect(report["stickers"].count == count)
        for index in 0..<count {
            let path = try #require(report["stickers"][index]["file"].string)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let info = try #require(PackImages.inspect(data), "\(path) is neither PNG nor WebP")
            #expect(info.format == rules.format.rawValue && !info.animated && info.hasAlpha, "\(path): \(info)")
            #expect(data.count <= rules.maximumBytes, "\(path): \(data.count) bytes")
            if rules.square {
                #expect(info.width == rules.side && info.height == rules.side, "\(path): \(info)")
            } else {
                #expect(max(info.width, info.height) == rules.side && min(info.width, info.height) <= rules.side)
            }
            // The picture decodes, and the subject reaches the margin but not past it.
            let picture = try Bitmap.read(URL(fileURLWithPath: path))
            #expect(picture.width == info.width && picture.height == info.height && picture.channels == 4)
            #expect(picture[info.width / 2, info.height / 2][3] == 255)
            if rules.margin > 0 { #expect(picture[rules.margin / 2, info.height / 2][3] == 0) }
            if rules.format == .webp {
                let mux = try Tools.run("/usr/bin/webpmux", ["-info", path])
                #expect(mux.status == 0, "webpmux could not read \(path)")
                #expect(mux.output.contains("Canvas size: \(rules.side) x \(rules.side)"), "\(mux.output)")
                #expect(mux.output.contains("transparency") && !mux.output.contains("animation"), "\(mux.output)")
            }
        }
        // Noise is the worst case: at 512 px the encoder had to give way, and says so (iMessage's
        // 408 px noise fits its 500 KB losslessly).
        if rules.side == 512 { #expect(report["notes"].count > 0, "\(result.stdout)") }
        if let icon = rules.icon {
            let path = try #require(report["icon"]["file"].string)
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let info = try #require(PackImages.inspect(data))
            #expect(info.format == "png" && info.width == icon.side && info.height == icon.side)
            #expect(data.count <= icon.maximumBytes && URL(fileURLWithPath: path).lastPathComponent == icon.name)
        } else {
            #expect(report["icon"].count == 0 && report["icon"].string == nil)
        }
    }

    @Test func aWhatsAppPackAlsoComesAsOneFileForStickerMakerApps() throws {
        let folder = try TemporaryFolder("pack-wastickers")
        let out = folder.file("pack")
        let result = try CommandRunner.run(
            ["pack", "--for", "whatsapp", "-o", out.path, "--title", "Our cats, Zoë", "--author", "Ann", "--json"]
                + (try Self.stickers(3, in: folder.url)))
        #expect(result.status == 0, "\(result.stderr)")
        let archive = try #require(JSONBox(Data(result.stdout.utf8))["archive"].string)
        // Accents go from the file's name, not the letters ("Tëst" was "T-st").
        #expect(URL(fileURLWithPath: archive).lastPathComponent == "Our-cats-Zoe.wastickers")
        // Python's zipfile checks every entry's checksum.
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            print(",".join(i.filename for i in z.infolist()))
            print(z.read("title.txt").decode(), z.read("author.txt").decode())
            """
        let listed = try Tools.run("/usr/bin/python3", ["-c", script, archive])
        #expect(listed.status == 0)
        #expect(listed.output.contains("01.webp,02.webp,03.webp,tray.png,title.txt,author.txt"), "\(listed.output)")
        #expect(listed.output.contains("Our cats, Zoë Ann"))
    }

    /// A sticker lifted from a thumbnail is enlarged many times to fill the messenger's size:
    /// the pack is made, and says which picture will look soft; a sticker large enough is not named.
    @Test func aTinyStickerIsSaidToLookSoft() throws {
        let folder = try TemporaryFolder("pack-soft")
        let tiny = try SheetCommandTests.sticker("tiny.png", in: folder.url, side: 40)
        let large = try SheetCommandTests.sticker("large.png", in: folder.url, side: 600)
        let result = try CommandRunner.run(
            ["pack", "--for", "signal", "-o", folder.file("pack").path, tiny.path, large.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "tiny.png: its subject is only 33 × 33 px, enlarged 14.5× to fill 512 px; "
                    + "it will look soft"), "\(result.stdout)")
        #expect(!result.stdout.contains("large.png"), "\(result.stdout)")
    }

    /// A folder holding a picture of the person's own with a pack file's name is not written
    /// into (their 01.png was replaced); a pack made there before is replaced, and that is said.
    @Test func aPersonsOwnFilesAreNotReplacedAndAnEarlierPackIsSaidToGo() throws {
        let folder = try TemporaryFolder("pack-folder")
        let three = try Self.stickers(3, in: folder.url)
        let out = folder.file("pack")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let own = out.appendingPathComponent("01.png")
        try Data("my own picture".utf8).write(to: own)
        let refused = try CommandRunner.run(["pack", "--for", "signal", "-o", out.path, three[0]])
        #expect(
            refused.status == 64 && refused.stderr.contains("holds 01.png, not made by a pack"), "\(refused.stderr)")
        #expect(try Data(contentsOf: own) == Data("my own picture".utf8))
        try FileManager.default.removeItem(at: own)
        #expect(try CommandRunner.run(["pack", "--for", "whatsapp", "-o", out.path] + three).status == 0)
        let again = try CommandRunner.run(["pack", "--for", "signal", "-o", out.path, three[0]])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(
            again.stdout.contains("the pack made in this folder before is replaced: 01.webp and"), "\(again.stdout)")
    }

    @Test func badRequestsSayWhatIsWrongAndWriteNothing() throws {
        let folder = try TemporaryFolder("pack-bad")
        let out = folder.file("pack")
        let two = try Self.stickers(2, in: folder.url)
        let unknown = try CommandRunner.run(["pack", "--for", "myspace", "-o", out.path] + two)
        #expect(unknown.status == 64 && unknown.stderr.contains("whatsapp, telegram, signal, imessage"))
        let few = try CommandRunner.run(["pack", "--for", "whatsapp", "-o", out.path] + two)
        #expect(
            few.status == 65 && few.stderr.contains("a WhatsApp pack holds 3 to 30 stickers, got 2"), "\(few.stderr)")
        let clear = try SheetCommandTests.sticker("clear.png", in: folder.url, empty: true)
        let empty = try CommandRunner.run(["pack", "--for", "signal", "-o", out.path, two[0], clear.path])
        #expect(empty.status == 3 && empty.stderr.contains("clear.png: it has no subject"), "\(empty.stderr)")
        let missing = try CommandRunner.run(["pack", "--for", "signal", "-o", out.path, folder.file("none.png").path])
        #expect(missing.status == 66 && missing.stderr.contains("no such file"))
        let long = String(repeating: "x", count: 200)
        let title = try CommandRunner.run(["pack", "--for", "signal", "-o", out.path, "--title", long, two[0]])
        #expect(title.status == 64 && title.stderr.contains("title"), "\(title.stderr)")
        // Nothing of the failed packs was written, not even the folder.
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
            $0.hasPrefix(".")
        }
        #expect(leftovers.isEmpty, "staging left behind: \(leftovers)")
    }

    @Test func livePacksMoveWithinEachMessengersLimits() throws {
        let folder = try TemporaryFolder("pack-live")
        let stickers = try ["a", "b", "c"].enumerated().map { index, name in
            try SheetCommandTests.sticker(
                "\(name).png", in: folder.url, side: 300, color: [UInt8(60 + 60 * index), 120, 200]
            ).path
        }
        let whatsapp = try CommandRunner.run(
            ["pack", "--for", "whatsapp", "--animate", "bounce", "-o", folder.file("wa").path, "--json"] + stickers)
        #expect(whatsapp.status == 0, "\(whatsapp.stderr)")
        for index in 1...3 {
            let file = folder.file("wa/0\(index).webp")
            let data = try Data(contentsOf: file)
            #expect(data.count <= 500_000)
            let info = try Tools.run("/usr/bin/webpmux", ["-info", file.path])
            #expect(
                info.output.contains("Canvas size: 512 x 512") && info.output.contains("animation"), "\(info.output)")
            #expect(info.output.contains("Loop Count : 0"), "\(info.output)")
        }
        let telegram = try CommandRunner.run(
            ["pack", "--for", "telegram", "--animate", "wiggle", "--duration", "3", "-o", folder.file("tg").path]
                + stickers)
        #expect(telegram.status == 0, "\(telegram.stderr)")
        let video = folder.file("tg/01.webm")
        #expect(try Data(contentsOf: video).count <= 256_000)
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries",
                "stream=codec_type,codec_name,width,height,r_frame_rate:format=duration",
                "-of", "default=noprint_wrappers=1", video.path,
            ])
        #expect(probe.output.contains("codec_name=vp9") && probe.output.contains("width=512"), "\(probe.output)")
        #expect(!probe.output.contains("codec_type=audio"), "no sound in a video sticker")
        let seconds =
            probe.output.split(separator: "\n").first { $0.hasPrefix("duration=") }
            .flatMap { Double($0.dropFirst("duration=".count)) } ?? 99
        #expect(seconds <= 3.0, "\(probe.output)")
        // Signal and iMessage take moving stickers as APNG: read back by ffprobe and by their own
        // chunks (acTL: the frame count and plays, 0 for forever; fcTL: each frame's delay).
        for (messenger, motion, side, limit) in [
            ("signal", "float", 512, 300 * 1024), ("imessage", "bounce", 408, 499_999),
        ] {
            let out = folder.file(messenger)
            let made = try CommandRunner.run(
                ["pack", "--for", messenger, "--animate", motion, "--duration", "2", "-o", out.path, stickers[0]])
            #expect(made.status == 0, "\(made.stderr)")
            let file = out.appendingPathComponent("01.png")
            let bytes = [UInt8](try Data(contentsOf: file))
            #expect(bytes.count <= limit, "\(messenger): \(bytes.count) bytes")
            func chunk(_ type: String) -> Int? {
                var at = 8
                while at + 8 <= bytes.count {
                    let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
                    if String(decoding: bytes[at + 4..<at + 8], as: UTF8.self) == type { return at + 8 }
                    at += 12 + length
                }
                return nil
            }
            func number(_ at: Int, _ count: Int) -> Int { bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) } }
            let control = try #require(chunk("acTL"), "\(messenger): not an animated PNG")
            let frameControl = try #require(chunk("fcTL"))
            let (frames, plays) = (number(control, 4), number(control + 4, 4))
            let delay = Double(number(frameControl + 20, 2)) / Double(max(1, number(frameControl + 22, 2)))
            #expect(
                plays == 0 && abs(Double(frames) * delay - 2) < 0.01 && frames >= 10, "\(frames) frames of \(delay) s")
            let probe = try Tools.run(
                "/usr/bin/ffprobe",
                ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", file.path])
            #expect(probe.output.contains("apng,\(side),\(side)"), "\(probe.output)")
        }
        // A sticker of fine noise cannot move within 300 KiB as an APNG: said, with what fits instead.
        let noise = try Self.noisySticker("noise.png", in: folder.url, side: 512)
        let tooBig = try CommandRunner.run(
            [
                "pack", "--for", "signal", "--animate", "wiggle", "--duration", "1", "-o", folder.file("sg").path,
                noise.path,
            ])
        #expect(
            tooBig.status == 65 && tooBig.stderr.contains("over Signal's limit of 300 KiB")
                && tooBig.stderr.contains("shine"), "\(tooBig.stderr)")
        let long = try CommandRunner.run(
            ["pack", "--for", "telegram", "--animate", "float", "--duration", "5", "-o", folder.file("tg2").path]
                + stickers)
        #expect(long.status == 64 && long.stderr.contains("to 3 (Telegram's longest)"), "\(long.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("sg").path))
    }

    @Test func aPackMadeAgainInItsFolderReplacesTheOldOne() throws {
        let folder = try TemporaryFolder("pack-again")
        let stickers = try Self.stickers(3, in: folder.url)
        let out = folder.file("pack")
        #expect(try CommandRunner.run(["pack", "--for", "telegram", "-o", out.path] + stickers).status == 0)
        // A person's own picture in the folder, named like a pack's, is theirs: never touched.
        try Data("mine".utf8).write(to: out.appendingPathComponent("2024.png"))
        let again = try CommandRunner.run(["pack", "--for", "whatsapp", "-o", out.path] + stickers)
        #expect(again.status == 0, "\(again.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(
            left == [
                ".collage-pack", "01.webp", "02.webp", "03.webp", "2024.png", "My-stickers.wastickers", "tray.png",
            ],
            "\(left)")
    }

    @Test func aLibraryStickerIsPackedByItsID() throws {
        let fixture = try LibraryWithAPhoto("pack-library")
        let (folder, root, library, photo) = (fixture.folder, fixture.root, fixture.library, fixture.photo)
        var disc = Bitmap(width: 300, height: 300, color: [0, 0, 0, 0])
        for y in 0..<300 {
            for x in 0..<300 where (x - 150) * (x - 150) + (y - 150) * (y - 150) <= 120 * 120 {
                disc[x, y] = [200, 60, 90, 255]
            }
        }
        let sticker = try library.saveSticker(
            id: "libsticker", photoID: photo.id, selection: "all", outlineWidth: 0, shadow: false, image: disc)
        library.close()
        let result = try CommandRunner.run(
            ["pack", "--for", "imessage", "--library", root.path, "-o", folder.file("pack").path, sticker.id, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        #expect(report["stickers"][0]["source"].string == "sticker libsticker")
        #expect(report["stickers"][0]["width"].number == 408)
    }

    /// The lists show a sticker's id in its first 12 characters; a pack or a sheet named by them
    /// found "no sticker with id". A file given as the pack's folder is refused, in words.
    @Test func aLibraryStickerIsFoundByTheStartOfItsIDAndAFileIsNoPackFolder() throws {
        let fixture = try LibraryWithAPhoto("pack-prefix")
        let (folder, root, library, photo) = (fixture.folder, fixture.root, fixture.library, fixture.photo)
        var disc = Bitmap(width: 200, height: 200, color: [0, 0, 0, 0])
        for y in 40..<160 { for x in 40..<160 { disc[x, y] = [20, 160, 90, 255] } }
        let id = "ac1838599d0c" + String(repeating: "7", count: 20)
        _ = try library.saveSticker(
            id: id, photoID: photo.id, selection: "all", outlineWidth: 0, shadow: false, image: disc)
        _ = try library.saveSticker(
            id: "ac18385999" + String(repeating: "1", count: 22), photoID: photo.id, selection: "one", outlineWidth: 0,
            shadow: false, image: disc)
        library.close()
        let shown = try CommandRunner.run(
            ["pack", "--for", "telegram", "--library", root.path, "-o", folder.file("pack").path, "ac1838599d0c"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let both = try CommandRunner.run(
            ["pack", "--for", "telegram", "--library", root.path, "-o", folder.file("pack2").path, "ac1838"])
        #expect(both.status != 0 && both.stderr.contains("matches more than one sticker"), "\(both.stderr)")
        let file = folder.file("p.png").path
        let onFile = try CommandRunner.run(
            ["pack", "--for", "telegram", "--library", root.path, "-o", file, "ac1838599d0c"])
        #expect(onFile.status == 64 && onFile.stderr.contains("is a file; a pack is a folder"), "\(onFile.stderr)")
    }
}
