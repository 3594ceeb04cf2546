import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@Suite("collage sheet and cut lines", .serialized)
struct SheetCommandTests {
    /// A transparent PNG sticker with an opaque disc (or nothing) in it.
    static func sticker(
        _ name: String, in folder: URL, side: Int = 300, color: [UInt8] = [220, 80, 30], empty: Bool = false
    )
        throws -> URL
    {
        var image = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
        let radius = Double(side) * 0.4
        for y in 0..<side {
            for x in 0..<side where !empty {
                let (dx, dy) = (Double(x) - Double(side) / 2, Double(y) - Double(side) / 2)
                if dx * dx + dy * dy <= radius * radius { image[x, y] = color + [255] }
            }
        }
        let file = folder.appendingPathComponent(name)
        try image.write(to: file, format: .png)
        return file
    }

    @Test func aSheetWritesThePDFItsPreviewAndTheCuttersSVG() throws {
        let folder = try TemporaryFolder("sheet-cli")
        let red = try Self.sticker("red.png", in: folder.url)
        let blue = try Self.sticker("blue.png", in: folder.url, color: [30, 80, 220])
        let pdf = folder.file("sheet.pdf")
        let result = try CommandRunner.run([
            "sheet", red.path, "\(blue.path)@30mm", red.path, "--page", "a5", "--size", "40mm", "--svg",
            folder.file("cut.svg").path, "-o", pdf.path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = JSONBox(Data(result.stdout.utf8))
        #expect(report["pages"].number == 1)
        #expect(report["stickers"].count == 3)
        let info = try Tools.run("/usr/bin/pdfinfo", [pdf.path])
        #expect(info.status == 0 && info.output.contains("419.528 x 595.276 pts"), "\(info.output)")
        #expect(String(decoding: try Data(contentsOf: pdf), as: UTF8.self).contains("/Separation /CutContour"))
        let preview = try Bitmap.read(folder.file("sheet-page-1.png"))
        #expect(preview.width == Int((148 * 100 / 25.4).rounded()))
        let svg = try String(contentsOf: folder.file("cut.svg"), encoding: .utf8)
        #expect(svg.contains("width=\"148mm\" height=\"210mm\""))
        #expect(svg.components(separatedBy: "<path ").count - 1 == 3)
        #expect(svg.contains("registration-marks"))
    }

    @Test func aCollagesStickersArePrintedAsTheyLookAndALoneStickerIsNoted() throws {
        let fixture = try LibraryWithAPhoto("sheet-cli-collage")
        let (folder, root, library, photo) = (fixture.folder, fixture.root, fixture.library, fixture.photo)
        var plain = Bitmap(width: 300, height: 300, color: [0, 0, 0, 0])
        for y in 0..<300 {
            for x in 0..<300 where (x - 150) * (x - 150) + (y - 150) * (y - 150) <= 120 * 120 {
                plain[x, y] = [220, 80, 30, 255]
            }
        }
        let sticker = try library.saveSticker(
            id: "disc", photoID: photo.id, selection: "all", outlineWidth: 0, shadow: false, image: plain)
        let collage = try library.createCollage(title: "Looks", templateID: nil, aspect: .square, photoIDs: [])
        var edits: [Edit] = []
        for index in 0..<3 {
            edits.append(
                .addItem(
                    id: "s\(index)", content: .sticker(sticker.id),
                    frame: Rect(x: 100 + 200 * Double(index), y: 300, width: 200, height: 200)))
            edits.append(.setStickerStyle(id: "s\(index)", style: StickerStyle(outlineWidth: 20, shadow: false)))
        }
        try library.apply(edits, to: collage.collage.id)
        library.close()
        let pdf = folder.file("looks.pdf")
        let result = try CommandRunner.run([
            "sheet", "--collage", collage.collage.id, "--library", root.path, "--page", "100x225mm", "--size", "75mm",
            "-o", pdf.path, "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(JSONBox(Data(result.stdout.utf8))["stickers"].count == 3)
        // Three stickers of 75 mm: two on the first page, one alone on the second.
        #expect(FileManager.default.fileExists(atPath: folder.file("looks-page-2.png").path))
        #expect(
            result.stderr.contains(
                "note: The last page holds one sticker alone; at 65 mm all 3 fit on 1 page (--size 65mm)"),
            "\(result.stderr)")
        // Neither stickers nor --collage is a plain usage error.
        let neither = try CommandRunner.run(["sheet", "-o", folder.file("none.pdf").path])
        #expect(neither.status == 64 && neither.stderr.contains("--collage"), "\(neither.stderr)")
    }

    /// A photo given where a lifted sticker was meant is cut as a rectangle, and said so: it
    /// came out a rectangle without a word.
    @Test func aPictureWithNoTransparencyIsSaidToBeCutAsARectangle() throws {
        let folder = try TemporaryFolder("sheet-cli")
        let photo = folder.file("photo.jpg")
        try Bitmap(width: 300, height: 200, color: [40, 120, 200]).write(to: photo, format: .jpeg)
        let sticker = try Self.sticker("red.png", in: folder.url)
        // An alpha channel opaque all over (a GIF, a PNG saved with alpha) is no transparency
        // either: it was said to touch the edge of its picture.
        let opaque = folder.file("opaque.png")
        try Bitmap(width: 300, height: 200, color: [200, 120, 40, 255]).write(to: opaque, format: .png)
        // Nor is one opaque but for a half-clear column at its edge (a drawing on white).
        var edged = Bitmap(width: 300, height: 200, color: [255, 255, 255, 255])
        for y in 0..<200 { edged[0, y] = [255, 255, 255, 110] }
        let sliver = folder.file("sliver.png")
        try edged.write(to: sliver, format: .png)
        let result = try CommandRunner.run([
            "sheet", photo.path, sticker.path, opaque.path, sliver.path, "--page", "a5", "--size", "40mm", "-o",
            folder.file("sheet.pdf").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("photo.jpg has no transparency, so it is cut as a rectangle"), "\(result.stderr)")
        #expect(
            result.stderr.contains("opaque.png has no transparency") && !result.stderr.contains("touches the edge"),
            "\(result.stderr)")
        #expect(result.stderr.contains("sliver.png has no transparency"), "\(result.stderr)")
        #expect(!result.stderr.contains("red.png has no transparency"), "\(result.stderr)")
    }

    @Test func badInputsSayWhatIsWrongAndWriteNothing() throws {
        let folder = try TemporaryFolder("sheet-cli-bad")
        let red = try Self.sticker("red.png", in: folder.url)
        let clear = try Self.sticker("clear.png", in: folder.url, empty: true)
        let pdf = folder.file("sheet.pdf")
        func nothingWritten() throws -> Bool {
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["clear.png", "red.png"]
        }

        let tooLarge = try CommandRunner.run(["sheet", red.path, "--size", "400mm", "--page", "a5", "-o", pdf.path])
        #expect(
            tooLarge.status == 65 && tooLarge.stderr.contains("red.png") && tooLarge.stderr.contains("does not fit"))
        #expect(try nothingWritten())

        let noSubject = try CommandRunner.run(["sheet", red.path, clear.path, "-o", pdf.path])
        #expect(noSubject.status == 3 && noSubject.stderr.contains("clear.png"), "\(noSubject.stderr)")
        #expect(try nothingWritten())

        let missing = try CommandRunner.run(["sheet", folder.file("gone.png").path, "-o", pdf.path])
        #expect(missing.status == 66 && missing.stderr.contains("gone.png"))

        for (flags, words) in [
            (["--page", "1e300x5mm"], "--page"), (["--gap", "nanmm"], "--gap"), (["--size", "-4mm"], "--size"),
            (["--cut", "laser"], "kiss or die"), (["--dpi", "1e300"], "--dpi"),
        ] {
            let result = try CommandRunner.run(["sheet", red.path, "-o", pdf.path] + flags)
            #expect(result.status == 64 && result.stderr.contains(words), "\(flags): \(result.stderr)")
        }
        #expect(try CommandRunner.run(["sheet", "-o", pdf.path]).status == 64, "no stickers")
        #expect(try nothingWritten())

        // Each sticker alone is allowed, six together are over the sheet's total: refused
        // before a pixel is made, naming the total and what to change.
        let huge = try CommandRunner.run(
            ["sheet"] + Array(repeating: red.path, count: 6) + [
                "--size", "670mm", "--page", "1200x1200mm", "-o", pdf.path,
            ])
        #expect(huge.status == 65 && huge.stderr.contains("million pixels"), "\(huge.status) \(huge.stderr)")
        #expect(try nothingWritten())
    }
}
