import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import StickerPrint
import Testing

@Suite("Sticker sheets")
struct SheetTests {
    /// A dozen stickers of mixed shapes: discs, L shapes, thin bars and the awkward one.
    static func mixed() throws -> [CutSticker] {
        var stickers: [CutSticker] = []
        for index in 0..<12 {
            let image: Bitmap
            switch index % 4 {
            case 0:
                image = PrintFixtures.sticker(width: 160, height: 160) { x, y in
                    PrintFixtures.disc(x, y, cx: 80, cy: 80, r: 70)
                }
            case 1:
                image = PrintFixtures.sticker(width: 220, height: 220, color: [40, 120, 200]) { x, y in
                    (x < 60) || (y > 160)
                }
            case 2:
                image = PrintFixtures.sticker(width: 400, height: 60, color: [60, 160, 60]) { _, _ in true }
            default:
                image = PrintFixtures.awkward
            }
            stickers.append(try CutSticker(sticker: image, options: PrintFixtures.options, name: "sticker \(index)"))
        }
        return stickers
    }

    @Test func packedCutLinesNeverComeCloserThanTheGapAndStayOnThePage() throws {
        let stickers = try Self.mixed()
        let options = SheetOptions(pageWidth: 148, pageHeight: 210, gap: 3, turnsToFit: true)
        let layout = try SheetPacker.pack(stickers, names: stickers.indices.map { "sticker \($0)" }, options: options)
        #expect(layout.placements.count == stickers.count)
        #expect(layout.placements.contains { $0.quarterTurns != 0 }, "turned where that packs tighter")
        let paths = layout.placements.map { (page: $0.page, points: layout.pagePath(of: $0).sampled(perSegment: 6)) }
        for path in paths {
            for point in path.points {
                #expect(point.x >= options.margin - 0.01 && point.x <= options.pageWidth - options.margin + 0.01)
                #expect(point.y >= options.margin - 0.01 && point.y <= options.pageHeight - options.margin + 0.01)
            }
        }
        var closest = Double.infinity
        for i in paths.indices {
            for j in paths.indices where j > i && paths[i].page == paths[j].page {
                for a in paths[i].points {
                    for b in paths[j].points { closest = min(closest, hypot(a.x - b.x, a.y - b.y)) }
                }
            }
        }
        #expect(closest >= 3 - 0.05, "the closest cut lines are \(closest) mm apart")
    }

    @Test func stickersKeepTheirOrientationUnlessTurningIsAskedFor() throws {
        let stickers = try Self.mixed()
        let names = stickers.indices.map { "sticker \($0)" }
        let upright = try SheetPacker.pack(
            stickers, names: names, options: SheetOptions(pageWidth: 148, pageHeight: 210))
        #expect(upright.placements.count == stickers.count)
        #expect(upright.placements.allSatisfy { $0.quarterTurns == 0 }, "as they are on the collage")
        // A bar longer than the page is wide fits only turned: refused upright, placed when allowed.
        let bar = try CutSticker(
            sticker: PrintFixtures.sticker(width: 400, height: 60) { _, _ in true }, options: PrintFixtures.options)
        let (length, _) = bar.sizeInMillimetres
        let narrow = SheetOptions(pageWidth: length - 2, pageHeight: length + 20, margin: 0)
        #expect(throws: PrintError.self) { try SheetPacker.pack([bar], names: ["bar"], options: narrow) }
        var turning = narrow
        turning.turnsToFit = true
        #expect(try SheetPacker.pack([bar], names: ["bar"], options: turning).placements.first?.quarterTurns != 0)
    }

    @Test func theShapesPackTighterThanTheirBoxes() throws {
        // Discs 20 mm across with 3 mm between: as boxes in a grid, 5 × 7 = 35 fit inside an A5
        // page's margins; packed by shape, each row settles into the dips of the one above.
        let disc = PrintFixtures.sticker(width: 160, height: 160) { x, y in
            PrintFixtures.disc(x, y, cx: 80, cy: 80, r: 80)
        }
        let stickers = try (0..<60).map { _ in try CutSticker(sticker: disc, options: PrintFixtures.options) }
        let (width, height) = stickers[0].sizeInMillimetres
        let boxes = Int((148 - 12 + 3) / (width + 3)) * Int((210 - 12 + 3) / (height + 3))
        let layout = try SheetPacker.pack(
            stickers, names: stickers.indices.map { "\($0)" }, options: SheetOptions(pageWidth: 148, pageHeight: 210))
        let firstPage = layout.placements.filter { $0.page == 0 }.count
        #expect(firstPage > boxes, "\(firstPage) on the page, \(boxes) as boxes")
    }

    @Test func aStickerLargerThanThePageOrNoneAtAllIsRefused() throws {
        let sticker = try CutSticker(sticker: PrintFixtures.awkward, options: PrintFixtures.options)
        let tiny = SheetOptions(pageWidth: 30, pageHeight: 30)
        #expect {
            _ = try SheetPacker.pack([sticker], names: ["big.png"], options: tiny)
        } throws: { error in
            guard case PrintError.tooLarge(let message) = error else { return false }
            return message.contains("big.png") && message.contains("--size")
        }
        #expect(throws: PrintError.empty) { try SheetPacker.pack([], names: [], options: SheetOptions()) }
    }

    @Test func thePDFOpensRendersAndNamesTheCutContourSpotColour() throws {
        let folder = try TemporaryFolder("sheet-pdf")
        let stickers = try Self.mixed()
        let options = SheetOptions(pageWidth: 148, pageHeight: 210, gap: 3, registrationMarks: true)
        let layout = try SheetPacker.pack(stickers, names: stickers.indices.map { "\($0)" }, options: options)
        let pdf = try SheetPDF.data(of: layout, title: "Test sheet")
        let file = folder.file("sheet.pdf")
        try pdf.write(to: file)
        #expect(String(decoding: pdf, as: UTF8.self).contains("/Separation /CutContour /DeviceCMYK"))
        let info = try Tools.run("/usr/bin/pdfinfo", [file.path])
        #expect(info.status == 0, "\(info.output)")
        let pages = info.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }
        #expect(pages?.split(separator: " ").last == "\(layout.pageCount)"[...], "\(info.output)")
        #expect(info.output.contains("419.528 x 595.276 pts"), "A5 in points: \(info.output)")
        let rendered = try Tools.run(
            "/usr/bin/pdftoppm", ["-r", "150", "-png", "-singlefile", file.path, folder.file("page").path])
        #expect(rendered.status == 0)
        let page = try Bitmap.read(folder.file("page.png"))
        // A sticker's own colour where the first placement's middle lies, and magenta on its line.
        let first = try #require(layout.placements.first { $0.page == 0 })
        let (width, height) = layout.stickers[first.sticker].sizeInMillimetres
        let middle = layout.pagePoint(Point(x: width / 2, y: height / 2), of: first)
        let scale = 150 / 25.4
        let centre = page[Int(middle.x * scale), Int(middle.y * scale)]
        #expect(centre != [255, 255, 255], "the picture is printed")
        var magenta = 0
        for y in 0..<page.height {
            for x in 0..<page.width {
                let pixel = page[x, y]
                if pixel[0] > 200, pixel[1] < 200, pixel[2] > 150, Int(pixel[0]) - Int(pixel[1]) > 60 { magenta += 1 }
            }
        }
        #expect(magenta > 100, "the cut lines show in their stand-in magenta")
        // The registration mark's square, top left, 10 mm in.
        #expect(page[Int(12 * scale), Int(12 * scale)].allSatisfy { $0 < 60 }, "black")

        let preview = folder.file("preview.png")
        try SheetPreview.write(page: 0, of: layout, to: preview)
        let drawn = try Bitmap.read(preview)
        #expect(drawn.width == Int((148 * 100 / 25.4).rounded()))
    }

    @Test func theSVGHasThePagesSizeTheMarksAndEveryCutLine() throws {
        let stickers = try Self.mixed()
        let layout = try SheetPacker.pack(
            stickers, names: stickers.indices.map { "\($0)" },
            options: SheetOptions(pageWidth: 215.9, pageHeight: 279.4, registrationMarks: true))
        let svg = SheetSVG.page(0, of: layout, title: "Letter")
        #expect(svg.contains("width=\"215.9mm\" height=\"279.4mm\" viewBox=\"0 0 215.9 279.4\""))
        let onPage = layout.placements.filter { $0.page == 0 }.count
        #expect(svg.components(separatedBy: "<path ").count - 1 == onPage)
        #expect(svg.components(separatedBy: "<rect ").count - 1 == 5, "a square and two L marks")
    }
}
