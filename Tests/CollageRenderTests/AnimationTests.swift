import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// Animated collages, read back as a player would: FFmpeg's `ffprobe` for the container, codec,
/// size, pixel format and frames; the files' own bytes for the loop flag; frames decoded with
/// `ffmpeg` and held against the still export.
@Suite("Rendering: animated collages", .serialized)
struct AnimationTests {
    /// Two photos side by side, a sticker with an outline and a text on a cream canvas 400 × 300
    /// (odd sizes at 201 px, to test the even sides video needs).
    static func collage(_ fixtures: RenderFixtures) throws -> Collage {
        try RenderFixtures.quadrants(width: 160, height: 120).write(to: fixtures.url("q.png"), format: .png)
        try fixtures.solid("blue.png", [40, 90, 200], width: 120, height: 90)
        var disc = Bitmap(width: 100, height: 100, color: [0, 0, 0, 0])
        for y in 0..<100 {
            for x in 0..<100 where (x - 50) * (x - 50) + (y - 50) * (y - 50) <= 40 * 40 {
                disc[x, y] = [230, 120, 20, 255]
            }
        }
        try disc.write(to: fixtures.url("disc.png"), format: .png)
        var collage = Collage(id: "a", title: "a", created: Date(), canvas: Size(width: 400, height: 300))
        collage.style.background = try Background(parsing: "#f3e9dc")
        return try collage.applying([
            .addItem(id: "p1", content: .photo("q.png"), frame: Rect(x: 20, y: 20, width: 170, height: 130)),
            .addItem(id: "p2", content: .photo("blue.png"), frame: Rect(x: 210, y: 20, width: 170, height: 130)),
            .rotateItem(id: "p2", degrees: 6),
            .addItem(id: "s1", content: .sticker("disc.png"), frame: Rect(x: 150, y: 150, width: 120, height: 120)),
            .setStickerStyle(id: "s1", style: StickerStyle(outlineWidth: 6, shadow: true)),
            .addItem(
                id: "t1",
                content: .text(TextBlock(text: "Hello", size: 40, color: Color(red: 0xb3, green: 0x26, blue: 0x1e))),
                frame: Rect(x: 20, y: 200, width: 150, height: 60)),
        ])
    }

    static func animate(
        _ fixtures: RenderFixtures, _ name: String, _ options: AnimationOptions
    ) throws -> AnimationResult {
        try CollageRenderer().animate(
            try collage(fixtures), photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), options: options,
            to: fixtures.url(name))
    }

    /// What ffprobe says of the first video stream and the container, as key=value lines.
    static func probe(_ file: URL) throws -> [String: String] {
        let result = try Tools.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,pix_fmt,width,height,nb_read_frames:format=format_name,duration", "-of",
                "default=noprint_wrappers=1", file.path,
            ])
        #expect(result.status == 0, "ffprobe could not read \(file.lastPathComponent)")
        var values: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        return values
    }

    /// Frame `index` decoded by ffmpeg into a PNG.
    static func frame(_ index: Int, of file: URL, in fixtures: RenderFixtures) throws -> Bitmap {
        let output = fixtures.url("\(file.lastPathComponent)-frame-\(index).png")
        let result = try Tools.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-y", "-i", file.path, "-vf", "select=eq(n\\,\(index))", "-frames:v", "1", output.path])
        #expect(result.status == 0, "ffmpeg could not decode frame \(index) of \(file.lastPathComponent)")
        return try Bitmap.read(output)
    }

    static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        guard a.width == b.width, a.height == b.height else { return .infinity }
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (p, q) = (a[x, y], b[x, y])
                for channel in 0..<3 { total += abs(Int(p[channel]) - Int(q[channel])) }
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    @Test(arguments: [
        (AnimationFormat.mp4, "h264", "yuv420p"), (.webm, "vp9", "yuv420p"), (.gif, "gif", ""),
        (.apng, "apng", "rgba"),
    ])
    func eachFormatIsWhatPlayersExpect(_ format: AnimationFormat, codec: String, pixels: String) throws {
        let fixtures = try RenderFixtures()
        let options = AnimationOptions(format: format, duration: 2, longerSide: 201, framesPerSecond: 10)
        let result = try Self.animate(fixtures, "a.\(format.fileExtension)", options)
        let probe = try Self.probe(result.file)
        #expect(probe["codec_name"] == codec, "\(probe)")
        if !pixels.isEmpty { #expect(probe["pix_fmt"] == pixels, "\(probe)") }
        // 201 × 151 at this size; video needs even sides, the others keep them.
        let (width, height) = format == .mp4 || format == .webm ? (200, 150) : (201, 151)
        #expect(probe["width"] == "\(width)" && probe["height"] == "\(height)", "\(probe)")
        #expect(result.width == width && result.height == height && result.frames == 20)
        #expect(probe["nb_read_frames"] == "20", "\(probe)")
        let bytes = [UInt8](try Data(contentsOf: result.file))
        func find(_ text: String) -> Int? {
            let needle = Array(text.utf8)
            guard bytes.count >= needle.count else { return nil }
            return (0...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
        }
        switch format {
        case .mp4:
            // +faststart: the index comes before the frames, so a phone plays while it loads.
            let (moov, mdat) = (find("moov"), find("mdat"))
            #expect(
                moov != nil && mdat != nil && (moov ?? .max) < (mdat ?? 0),
                "moov at \(moov ?? -1), mdat at \(mdat ?? -1)")
        case .gif:
            // The NETSCAPE2.0 block with a loop count of 0: forever.
            let block = try #require(find("NETSCAPE2.0"))
            #expect(bytes[block + 13] == 0 && bytes[block + 14] == 0, "loop count \(bytes[block + 13])")
        case .apng:
            // acTL: the frame count, then the number of plays (0: forever).
            let chunk = try #require(find("acTL"))
            let frames = bytes[chunk + 4..<chunk + 8].reduce(0) { $0 << 8 | Int($1) }
            let plays = bytes[chunk + 8..<chunk + 12].reduce(0) { $0 << 8 | Int($1) }
            #expect(frames == 20 && plays == 0, "acTL says \(frames) frames, \(plays) plays")
        default:
            break
        }
    }

    @Test func anAnimatedWebPLoopsAndLastsItsDuration() throws {
        let fixtures = try RenderFixtures()
        let result = try Self.animate(
            fixtures, "a.webp", AnimationOptions(format: .webp, duration: 2, longerSide: 201, framesPerSecond: 10))
        let info = try Tools.run("/usr/bin/webpmux", ["-info", result.file.path])
        #expect(info.status == 0)
        #expect(info.output.contains("Canvas size: 201 x 151") && info.output.contains("animation"), "\(info.output)")
        #expect(info.output.contains("Loop Count : 0"), "\(info.output)")
        // Frames that do not change are merged into longer ones: the durations add up to 2 s.
        var total = 0
        for line in info.output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 7, fields[0].hasSuffix(":"), let duration = Int(fields[6]) { total += duration }
        }
        #expect(abs(total - 2_000) <= 20, "frame durations add up to \(total) ms")
    }

    @Test func theLoopOpensAndEndsOnTheStillExportAndAssemblesBetween() throws {
        let fixtures = try RenderFixtures()
        let options = AnimationOptions(format: .apng, duration: 3, longerSide: 400, framesPerSecond: 10)
        let result = try Self.animate(fixtures, "a.png", options)
        let still = try fixtures.render(
            try Self.collage(fixtures), "still.png", options: RenderOptions(size: .longSide(400), format: .png))
        let last = try Self.frame(result.frames - 1, of: result.file, in: fixtures)
        #expect(Self.meanDifference(last, still) < 0.5, "APNG is lossless: the last frame is the still export")
        // The loop opens on the finished collage (a chat's picture of the video; the loop's seam).
        let first = try Self.frame(0, of: result.file, in: fixtures)
        #expect(Self.meanDifference(first, still) < 0.5, "the first frame is the still export")
        // Then it clears: once it has, and before the first photo is back, only the canvas shows.
        let timeline = MotionTimeline(collage: try Self.collage(fixtures), style: .pop, duration: 3)
        let clearedFrame = Int((timeline.cleared * 10).rounded(.down))
        let cleared = try Self.frame(clearedFrame, of: result.file, in: fixtures)
        #expect(Self.meanDifference(cleared, still) > 10, "frame \(clearedFrame) is the collage still assembling")
        #expect(close(cleared[300, 250], [243, 233, 220], tolerance: 2), "\(cleared[300, 250])")
        // The MP4's last frame too, within what H.264 changes.
        let video = try Self.animate(
            fixtures, "a.mp4", AnimationOptions(format: .mp4, duration: 2, longerSide: 400, framesPerSecond: 10))
        let videoLast = try Self.frame(video.frames - 1, of: video.file, in: fixtures)
        #expect(Self.meanDifference(videoLast, still) < 4, "mean difference \(Self.meanDifference(videoLast, still))")
        // And a GIF's, on its palette of 256 colours, on a white page (white was in the palette
        // twice, and FFmpeg drew the page on another entry, near-black).
        var white = try Self.collage(fixtures)
        white.style.background = .white
        let whiteStill = try fixtures.render(
            white, "white.png", options: RenderOptions(size: .longSide(400), format: .png))
        let gif = try CollageRenderer().animate(
            white, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory),
            options: AnimationOptions(format: .gif, duration: 2, longerSide: 400, framesPerSecond: 10),
            to: fixtures.url("a.gif"))
        for index in [0, gif.frames - 1] {
            let drawn = try Self.frame(index, of: gif.file, in: fixtures)
            let difference = Self.meanDifference(drawn, whiteStill)
            #expect(difference < 6, "GIF frame \(index): mean difference \(difference)")
            #expect(close(drawn[395, 295], [255, 255, 255], tolerance: 3), "the page: \(drawn[395, 295])")
        }
    }

    @Test(arguments: StickerMotion.allCases)
    func aLiveStickerMovesAndLoops(_ motion: StickerMotion) throws {
        var disc = Bitmap(width: 120, height: 100, color: [0, 0, 0, 0])
        for y in 0..<100 {
            for x in 0..<120 where (x - 60) * (x - 60) + (y - 50) * (y - 50) <= 45 * 45 {
                disc[x, y] = [230, 120, 20, 255]
            }
        }
        let frames = try LiveStickers.frames(of: disc, motion: motion, side: 128, count: 12)
        #expect(frames.count == 12 && frames.allSatisfy { $0.count == 128 * 128 * 4 })
        // The corners stay clear, the sticker is there in every frame, and it moves.
        for frame in frames {
            #expect(frame[3] == 0 && frame[(128 * 128 - 1) * 4 + 3] == 0)
            #expect(stride(from: 3, to: frame.count, by: 4).contains { frame[$0] == 255 })
        }
        let changed = (1..<frames.count).filter { frames[$0] != frames[0] }.count
        // A glint crosses the disc in a few frames only; the others move the whole sticker.
        #expect(changed >= (motion == .shine ? 2 : 6), "\(motion): \(changed) of 11 frames differ from the first")
        // Written as an animated WebP that loops.
        let fixtures = try RenderFixtures()
        let file = fixtures.url("live.webp")
        try LiveStickers.write(frames, side: 128, format: .webp, fps: 12, quality: 70, to: file)
        let info = try #require(PackImages.inspect(try Data(contentsOf: file)))
        #expect(info.animated && info.hasAlpha && info.width == 128)
    }

    @Test func optionsOutOfRangeAreRefusedAndNothingIsWritten() throws {
        let fixtures = try RenderFixtures()
        for (options, message) in [
            (AnimationOptions(duration: 1), "the duration must be a number of seconds from 2 to 15, got 1"),
            (AnimationOptions(duration: .infinity), "the duration must be"),
            (AnimationOptions(longerSide: 10_000), "the size must be a longer side in pixels from 64 to 3840"),
            (AnimationOptions(framesPerSecond: 120), "the frame rate must be"),
            (AnimationOptions(quality: 0), "the quality must be"),
            (AnimationOptions(format: .gif, framesPerSecond: 60), "a GIF plays at most 50 frames a second"),
            (
                AnimationOptions(duration: 15, longerSide: 3_840, framesPerSecond: 60),
                "900 frames of 3840 × 2880 pixels is more than one animation draws"
            ),
        ] {
            #expect {
                try Self.animate(fixtures, "bad.mp4", options)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        #expect(try fixtures.files(startingWith: "bad.mp4").isEmpty)
    }

    @Test func aTimelineBringsPhotosThenStickersThenTextsAndHolds() throws {
        let fixtures = try RenderFixtures()
        let collage = try Self.collage(fixtures)
        for style in MotionStyle.allCases {
            let timeline = MotionTimeline(collage: collage, style: style, duration: 6)
            let starts = collage.items.map { timeline.arrivals[$0.id] ?? -1 }
            #expect(starts[0] < starts[1] && starts[1] < starts[2] && starts[2] < starts[3], "\(starts)")
            #expect(timeline.settled <= 3.5, "the collage holds for at least half: settled at \(timeline.settled)")
            for item in collage.items {
                #expect(timeline.state(of: item, at: 0) == .atRest, "the loop opens on the finished collage")
                #expect(timeline.state(of: item, at: timeline.cleared - 0.05).opacity == 0)
                #expect(timeline.state(of: item, at: timeline.settled) == .atRest)
            }
            #expect(timeline.isSettled(at: 0) && !timeline.isSettled(at: timeline.cleared))
            // A longer animation arrives more slowly, not only holds longer.
            let longer = MotionTimeline(collage: collage, style: style, duration: 12)
            #expect(longer.arrival > timeline.arrival && longer.settled > timeline.settled)
        }
        // A sticker's sparks fly while it arrives, and are gone once it has settled.
        let timeline = MotionTimeline(collage: collage, style: .pop, duration: 6)
        let sticker = collage.items[2]
        let start = timeline.arrivals[sticker.id] ?? 0
        #expect(timeline.sparks(of: sticker, at: start + 0.4).count > 10)
        #expect(timeline.sparks(of: sticker, at: timeline.settled + 0.01).isEmpty)
        #expect(timeline.sparks(of: collage.items[0], at: start + 0.4).isEmpty)
    }
}
