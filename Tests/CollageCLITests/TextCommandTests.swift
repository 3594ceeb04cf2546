import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@Suite("collage make --title and text edits")
struct TextCommandTests {
    func photos(in directory: URL) throws -> [String] {
        try ([[200, 40, 40], [40, 60, 200]] as [[UInt8]]).enumerated().map { index, color in
            let file = directory.appendingPathComponent("p\(index).png")
            try Bitmap(width: 160, height: 120, color: color).write(to: file, format: .png)
            return file.path
        }
    }

    @Test func aTitleSitsOnAWhitePillNearTheBottomOverThePhotos() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("titled.png")
        let document = directory.appendingPathComponent("titled.json")
        let result = try CommandRunner.run(
            [
                "make", "--layout", "sideBySide", "--size", "800", "--title", "Summer 2026", "--title-font",
                "eb garamond",
                "--save-document", document.path,
            ] + (try photos(in: directory)) + ["-o", output.path])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try Bitmap.read(output)
        // Near the bottom, in the middle: the white pill, with dark letters on it.
        var white = 0
        var dark = 0
        var top = Int.max
        // Over the left photo (the white gap between the photos is not the pill).
        for y in 560..<800 {
            for x in 200..<380 {
                let pixel = image[x, y]
                if pixel.prefix(3).allSatisfy({ $0 > 225 }) {
                    white += 1
                    top = min(top, y)
                }
                if pixel.prefix(3).allSatisfy({ $0 < 80 }) { dark += 1 }
            }
        }
        #expect(white > 2_000, "a white pill")
        #expect(dark > 200, "dark letters")
        #expect(top > 600, "the title stays near the bottom: it starts at \(top)")
        // The photos stay visible above it.
        #expect(image[200, 200].prefix(3).elementsEqual([200, 40, 40]) || image[200, 200][0] > 180)
        // The document keeps it as an ordinary text item, in the font as the catalogue spells it.
        let saved = try CollageDocument.decode(Data(contentsOf: document))
        #expect(saved.title == "Summer 2026")
        #expect(saved.item("title")?.content.textBlock?.font == "EB Garamond")
    }

    @Test(arguments: [
        (["--title", ""], "--title expected some text, got none"),
        (["--title", "bell\u{7}"], "--title control character U+0007"),
        (["--title", String(repeating: "x", count: 100_000)], "--title expected at most 2000 characters"),
        (["--title", "ok", "--title-font", "Papyrus"], "--title-font expects one of \"Inter\""),
        (["--title-font", "Inter"], "--title-font sets the font of --title"),
    ])
    func badTitlesAreUsageErrors(arguments: [String], message: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try CommandRunner.run(
            ["make"] + arguments + (try photos(in: directory)) + ["-o", directory.appendingPathComponent("x.png").path])
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.png").path))
    }

    @Test func editAddsAndChangesTextAndShowListsIt() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = ["--library", directory.appendingPathComponent("lib").path]
        let made = try CommandRunner.run(["new", "--json", "--layout", "grid2x2"] + library)
        #expect(made.status == 0, "\(made.stderr)")
        let created = JSONBox(Data(made.stdout.utf8))
        let id = try #require(created["id"].string ?? created["collage"]["id"].string)
        let add = try CommandRunner.run(
            ["edit", "--json"] + library
                + [
                    id,
                    #"{"op": "addItem", "id": "cap", "content": {"type": "text", "text": "Hello there", "size": 40}, "frame": {"x": 100, "y": 100, "width": 600, "height": 300}}"#,
                ])
        #expect(add.status == 0, "\(add.stderr)")
        // The frame was fitted to the words: one line of 40 points is far less than 300 tall.
        let height = try #require(JSONBox(Data(add.stdout.utf8))["collage"]["items"][0]["frame"]["height"].number)
        #expect(height > 25 && height < 80, "\(height)")
        let change = try CommandRunner.run(
            ["edit"] + library + [id, #"{"op": "setText", "id": "cap", "text": {"text": "Two\nlines", "size": 40}}"#])
        #expect(change.status == 0, "\(change.stderr)")
        let show = try CommandRunner.run(["show"] + library + [id])
        #expect(show.stdout.contains("text") && show.stdout.contains("\"Two lines\""), "\(show.stdout)")
        let bad = try CommandRunner.run(
            ["edit"] + library + [id, #"{"op": "setText", "id": "cap", "text": {"text": "x", "font": "Wingdings"}}"#])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("edits.text.font: no font named \"Wingdings\""), "\(bad.stderr)")
    }
}
