import CollageCore
import CollageRender
import Foundation
import Testing

/// Absurd numbers on the command line, and a library whose files went missing.
@Suite("collage: extreme numbers and collage doctor")
struct HostileCLITests {
    @Test func absurdNumbersExitWithAUsageOrDataError() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Bitmap(width: 300, height: 200, color: [200, 40, 40]).write(
            to: directory.appendingPathComponent("p.jpg"), format: .jpeg)
        let document = directory.appendingPathComponent("doc.json")
        var collage = Collage(id: "c", title: "T", created: Date(), canvas: Size(width: 400, height: 400))
        collage = try collage.applying(.addItem(id: "a", content: .photo("p.jpg"), frame: nil))
        try CollageDocument.encode(collage).write(to: document)
        for options in [
            ["--print", "1e300x1e300in@300"], ["--print", "6x4in@1e300"], ["--scale", "1e300"], ["--scale", "-1e300"],
            ["--scale", "nan"], ["--size", "99999999999999999999"], ["--size", "9223372036854775807"],
            ["--quality", "1e300"], ["--size", "0"],
        ] {
            let result = try CommandRunner.run(
                ["render", document.path, "-o", directory.appendingPathComponent("o.jpg").path] + options)
            #expect(result.status == 64, "\(options): \(result.status) \(result.stderr)")
        }
        // A document whose frame is 1e300 wide is invalid, for `validate` as for `render`.
        var poison = collage
        poison.items[0].frame.width = 1e300
        try CollageDocument.encode(poison).write(to: document)
        let validate = try CommandRunner.run(["validate", document.path])
        #expect(validate.status == 65 && (validate.stdout + validate.stderr).contains("items[0].frame.width"))
        let render = try CommandRunner.run([
            "render", document.path, "-o", directory.appendingPathComponent("o.jpg").path,
        ])
        #expect(render.status == 65, "\(render.stderr)")
        for options in [["--outline", "1e300"], ["--instance", "1e300"], ["--outline", "5000"]] {
            let sticker = try CommandRunner.run(
                ["sticker", directory.appendingPathComponent("p.jpg").path, "-o", "/tmp/never.png"] + options)
            #expect(sticker.status == 64, "\(options): \(sticker.stderr)")
        }
    }

    /// An output never replaces what the command reads, nor a pipe or a folder of that name, and
    /// a link is written through. `make a.jpg b.jpg -o a.jpg` replaced the photo with the collage,
    /// and `-o /dev/full` (run as root) replaced the device with a JPEG.
    @Test func anOutputNeverReplacesAnInputAPipeOrAFolder() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        try Bitmap(width: 300, height: 200, color: [200, 40, 40]).write(
            to: URL(fileURLWithPath: file("a.png")), format: .png)
        try Bitmap(width: 300, height: 200, color: [40, 40, 200]).write(
            to: URL(fileURLWithPath: file("b.png")), format: .png)
        try FileManager.default.copyItem(atPath: file("a.png"), toPath: file("x-page-1.png"))
        try FileManager.default.copyItem(atPath: file("a.png"), toPath: file("01.png"))
        let original = try Data(contentsOf: URL(fileURLWithPath: file("a.png")))
        let refusals: [[String]] = [
            ["make", file("a.png"), file("b.png"), "-o", file("a.png")],
            ["make", file("a.png"), file("b.png"), "-o", file("c.png"), "--save-document", file("b.png")],
            ["sticker", file("a.png"), "-o", file("a.png")],
            ["sheet", file("x-page-1.png"), "-o", file("x.pdf")],
            ["pack", "--for", "telegram", file("01.png"), "-o", directory.path],
        ]
        for arguments in refusals {
            let result = try CommandRunner.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("one of the"), "\(arguments): \(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file("a.png"))) == original)
        #expect(!FileManager.default.fileExists(atPath: file("c.png")))

        #expect(mkfifo(file("pipe.jpg"), 0o600) == 0)
        try FileManager.default.createDirectory(atPath: file("folder.jpg"), withIntermediateDirectories: false)
        for (name, kind) in [("pipe.jpg", "a named pipe"), ("folder.jpg", "a folder")] {
            let result = try CommandRunner.run(["make", file("a.png"), file("b.png"), "-o", file(name)])
            #expect(result.status == 73 && result.stderr.contains("it is \(kind), not a file"), "\(result.stderr)")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: file("pipe.jpg"))
        #expect(attributes[.type] as? FileAttributeType != .typeRegular, "the pipe was replaced by a file")

        try FileManager.default.createSymbolicLink(atPath: file("link.jpg"), withDestinationPath: "made.jpg")
        let linked = try CommandRunner.run([
            "make", file("a.png"), file("b.png"), "-o", file("link.jpg"), "--size", "200",
        ])
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: file("link.jpg")) == "made.jpg")
        let made = try Bitmap.read(URL(fileURLWithPath: file("made.jpg")))
        #expect(max(made.width, made.height) == 200)
    }

    @Test func aMisspeltKernelSettingIsSaidNotIgnored() throws {
        let misspelt = try CommandRunner.run(["templates"], environment: ["COLLAGE_CONVOLUTION": "avx512\u{1B}[31m"])
        #expect(misspelt.status == 0)
        #expect(
            misspelt.stderr.contains("warning: COLLAGE_CONVOLUTION=\"avx512[31m\" is not one of own, avx2 or opencv"))
        #expect(!misspelt.stderr.unicodeScalars.contains { $0.value == 0x1B })
        let known = try CommandRunner.run(["templates"], environment: ["COLLAGE_CONVOLUTION": "opencv"])
        #expect(!known.stderr.contains("COLLAGE_CONVOLUTION"))
    }

    @Test func doctorFindsAndRepairsRecordsWhoseFilesAreGone() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("library")
        func collage(_ arguments: [String]) throws -> CommandRunner.Result {
            try CommandRunner.run(arguments + ["--library", library.path])
        }
        for (name, color) in [("a.jpg", [UInt8(10), 200, 10]), ("b.jpg", [200, 10, 10])] {
            try Bitmap(width: 400, height: 300, color: color).write(
                to: directory.appendingPathComponent(name), format: .jpeg)
        }
        #expect(
            try collage([
                "import", directory.appendingPathComponent("a.jpg").path,
                directory.appendingPathComponent("b.jpg").path,
            ]).status == 0)
        let photos = try JSONValue.parse(try collage(["photos", "--json"]).stdout).elements
        let ids = photos.compactMap { $0.member("id")?.string }
        let made = try JSONValue.parse(
            try collage(["new", "--title", "Two", "--layout", "sideBySide", "--json"] + ids).stdout)
        let id = try #require(made.member("id")?.string)
        #expect(try collage(["doctor"]).stdout.contains("healthy"))

        let lost = try #require(photos.first?.member("file")?.string)
        try FileManager.default.removeItem(atPath: lost)
        let check = try collage(["doctor"])
        #expect(check.status == 65 && check.stdout.contains("original file is missing"), "\(check.stdout)")
        #expect(try collage(["export", id, "-o", directory.appendingPathComponent("x.jpg").path]).status != 0)

        let repair = try collage(["doctor", "--repair", "--json"])
        #expect(repair.status == 0, "\(repair.stdout) \(repair.stderr)")
        #expect(try collage(["doctor"]).status == 0)
        let exported = try collage(["export", id, "-o", directory.appendingPathComponent("x.jpg").path])
        #expect(exported.status == 0, "\(exported.stderr)")
        let shown = try JSONValue.parse(try collage(["show", id, "--json"]).stdout)
        #expect(shown.member("collage")?.member("items")?.elements.count == 1)
    }
}
