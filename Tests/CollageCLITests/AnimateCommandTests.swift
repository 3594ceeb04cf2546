import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// `--animate` on `collage make` and `collage export`: the file a person asked for, and clear
/// errors for options that make no animation.
@Suite("collage make and export --animate", .serialized)
struct AnimateCommandTests {
    @Test func makeWritesAnAnimationAndSaysWhatItWrote() throws {
        let folder = try TemporaryFolder("animate-cli")
        let red = try TestPhotos.solid([200, 40, 40], width: 120, height: 90, to: folder.file("red.png"))
        let blue = try TestPhotos.solid([40, 60, 200], width: 120, height: 90, to: folder.file("blue.png"))
        let out = folder.file("trip.mp4")
        let result = try CommandRunner.run([
            "make", red.path, blue.path, "--layout", "sideBySide", "-o", out.path, "--animate", "--motion", "slide",
            "--duration", "2", "--size", "240", "--fps", "12", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        #expect(report["format"].string == "mp4" && report["frames"].number == 24 && report["motion"].string == "slide")
        #expect(report["width"].number == 240, "\(result.stdout)")
        let probe = try Tools.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,r_frame_rate", "-of", "csv=p=0", out.path])
        #expect(probe.output.contains("h264,12/1"), "\(probe.output)")
        let plain = try CommandRunner.run([
            "make", red.path, blue.path, "--aspect", "1:1", "-o", folder.file("trip.gif").path, "--animate",
            "--duration", "2",
        ])
        #expect(
            plain.status == 0 && plain.stdout.contains("480 × 480 GIF, 30 frames at 15 fps, 2 s, looping"),
            "\(plain.stdout)")
    }

    @Test func optionsThatMakeNoAnimationAreUsageErrors() throws {
        let folder = try TemporaryFolder("animate-cli-bad")
        let red = try TestPhotos.solid([200, 40, 40], width: 120, height: 90, to: folder.file("red.png"))
        func run(_ extra: [String], output: String = "a.mp4") throws -> CommandRunner.Result {
            try CommandRunner.run(["make", red.path, "-o", folder.file(output).path] + extra)
        }
        let cases: [([String], String, Int32, String)] = [
            (["--animate", "--scale", "2"], "a.mp4", 64, "--scale makes a still image"),
            (["--animate", "--duration", "30"], "a.mp4", 64, "--duration expects a number of seconds from 2 to 15"),
            (["--animate", "--motion", "wobble"], "a.mp4", 64, "expects one of pop, slide, fade"),
            (["--animate"], "a.jpg", 64, "cannot tell the animation's format from \"a.jpg\""),
            (["--duration", "4"], "a.png", 64, "--duration shapes an animation: add --animate"),
            (["--animate", "--fps", "60", "--duration", "15.5"], "a.mp4", 64, "from 2 to 15"),
        ]
        for (extra, output, status, message) in cases {
            let result = try run(extra, output: output)
            #expect(result.status == status && result.stderr.contains(message), "\(extra): \(result.stderr)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "red.png" }
        #expect(left.isEmpty, "nothing written: \(left)")
    }
}
