import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@testable import CollageServer

@Suite("Sticker sheets in the API")
struct SheetAPITests {
    /// A client whose library holds three stickers (discs and a square of different sizes), and their ids.
    static func clientWithStickers() throws -> (AppClient, [String]) {
        let client = try AppClient()
        let upload = try client.upload([("photo.jpg", try client.photoData([90, 140, 200]))])
        let photoID = try #require(upload.json["photos"][0]["id"].string)
        var ids: [String] = []
        for (index, side) in [180, 240, 300].enumerated() {
            var image = Bitmap(width: side, height: side, color: [0, 0, 0, 0])
            let radius = Double(side) * 0.4
            for y in 0..<side {
                for x in 0..<side {
                    let (dx, dy) = (Double(x) - Double(side) / 2, Double(y) - Double(side) / 2)
                    let inside = index == 2 ? max(abs(dx), abs(dy)) <= radius : dx * dx + dy * dy <= radius * radius
                    if inside { image[x, y] = [200, UInt8(60 * index), 40, 255] }
                }
            }
            let record = try client.library.saveSticker(
                id: "sheet-test-\(index)", photoID: photoID, selection: "all", outlineWidth: 0, shadow: false,
                image: image)
            ids.append(record.id)
        }
        return (client, ids)
    }

    @Test func aSheetMadeAgainWithOtherPaperOrGapsCutsNoStickerAgain() throws {
        let (client, ids) = try Self.clientWithStickers()
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        let first = try client.json("POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 40, "gap": 3}"#)
        #expect(first.status == 201, "\(first.text)")
        #expect(client.app.sheetCuts.cutCount == 3)
        let firstLines = (0..<3).compactMap { first.json["placements"][$0]["cutLine"].string }
        #expect(firstLines.count == 3)

        // Other paper, gap, cut and marks: packed again from the stickers already cut.
        let again = try client.json(
            "POST", "/api/sheets",
            #"{"stickers": [\#(list)], "size": 40, "gap": 8, "page": "a5", "cut": "die", "marks": true}"#)
        #expect(again.status == 201, "\(again.text)")
        #expect(client.app.sheetCuts.cutCount == 3)
        #expect(again.json["pageWidth"].number == 148)
        #expect(again.json["placements"].count == 3)

        // A new size is a new cut, for every sticker.
        let larger = try client.json("POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 60}"#)
        #expect(larger.status == 201, "\(larger.text)")
        #expect(client.app.sheetCuts.cutCount == 6)
        let canvases = (0..<3).compactMap { larger.json["placements"][$0]["canvas"]["width"].number }
        let smaller = (0..<3).compactMap { first.json["placements"][$0]["canvas"]["width"].number }
        #expect(canvases.max() ?? 0 > (smaller.max() ?? 0) + 15, "\(canvases) against \(smaller)")

        // The sheet's PDF is the sheet just made.
        let pdf = try client.send(
            "GET", try #require(larger.json["pdf"].string), headers: ["X-Collage-Token": client.token])
        #expect(pdf.status == 200 && pdf.body.starts(with: Data("%PDF".utf8)), "\(pdf.status) \(pdf.text.prefix(200))")
    }

    @Test func aSheetIsBoundedInPixelsAndItsPDFIsWrittenOnceAndSentFromDisk() throws {
        // 71 stickers of 200 mm would be about 400 million print pixels: refused before any is made.
        let client = try AppClient()
        let many = (0..<71).map { "\"missing-\($0)\"" }.joined(separator: ",")
        let huge = try client.json(
            "POST", "/api/sheets", #"{"stickers": [\#(many)], "size": 200, "page": "1200x1200mm"}"#)
        #expect(huge.status == 422 && huge.text.contains("million pixels"), "\(huge.status) \(huge.text)")

        let live = try LiveServer()
        let upload = try live.upload([("photo.jpg", try live.photoData([90, 140, 200]))])
        let photoID = try #require(upload.json["photos"][0]["id"].string)
        var disc = Bitmap(width: 400, height: 400, color: [0, 0, 0, 0])
        for y in 0..<400 {
            for x in 0..<400 where pow(Double(x) - 200, 2) + pow(Double(y) - 200, 2) < 150 * 150 {
                disc[x, y] = [220, 80, 40, 255]
            }
        }
        let sticker = try live.library.saveSticker(
            id: "pdf-disc", photoID: photoID, selection: "all", outlineWidth: 0, shadow: false, image: disc)
        let made = try live.json("POST", "/api/sheets", #"{"stickers": ["\#(sticker.id)", "\#(sticker.id)"]}"#)
        #expect(made.status == 201, "\(made.text)")
        let path = try #require(made.json["pdf"].string)
        let first = try live.send("GET", path, headers: ["X-Collage-Token": live.token])
        let second = try live.send("GET", path, headers: ["X-Collage-Token": live.token])
        #expect(first.status == 200 && first.headers["content-type"] == "application/pdf")
        #expect(first.headers["content-length"] == "\(first.body.count)")
        #expect(first.body.starts(with: Data("%PDF-1.6".utf8)) && first.body.suffix(6) == Data("%%EOF\n".utf8))
        #expect(second.body == first.body, "a second download is the same file")
        // Every object the cross-reference table names starts where it says.
        let text = String(decoding: first.body, as: UTF8.self)
        let xref = try #require(text.range(of: "xref\n0 ")).upperBound
        let count = Int(text[xref...].prefix { $0.isNumber }) ?? 0
        #expect(count > 5)
        let table = text[xref...].split(separator: "\n").dropFirst(2).prefix(count - 1)
        for (index, line) in table.enumerated() {
            let offset = Int(line.prefix(10)) ?? -1
            let start = first.body.dropFirst(offset).prefix(12)
            #expect(String(decoding: start, as: UTF8.self).hasPrefix("\(index + 1) 0 obj"), "object \(index + 1)")
        }
    }

    /// A download of a sheet's PDF sends a file of its own: the sheet can be let go (a newer
    /// sheet pushes it out, and its PDF is removed) between the answer and the sending. It used
    /// to send the shared file by name, and a soak of the server got "the file to send went
    /// missing" (500) when that happened.
    @Test func aSheetsPDFBeingSentSurvivesTheSheetBeingLetGo() throws {
        let (client, ids) = try Self.clientWithStickers()
        let made = try client.json("POST", "/api/sheets", #"{"stickers": ["\#(ids[0])", "\#(ids[1])"], "size": 30}"#)
        let id = try #require(made.json["id"].string, "\(made.text)")
        var request = HTTPRequest(method: "GET", path: "/api/sheets/\(id)/pdf", headers: ["host": AppClient.host])
        request.parameters["id"] = id
        let answer = try SheetRoutes.sheetFile(client.app, request, pdf: true)
        let file = try #require(answer.bodyFile)
        // What letting the sheet go does to its PDF.
        try FileManager.default.removeItem(at: SheetStore.pdfFile(of: id))
        let sent = try Data(contentsOf: file.url)
        #expect(sent.starts(with: Data("%PDF".utf8)) && sent.suffix(6) == Data("%%EOF\n".utf8))
        #expect(file.isTemporary, "the response's own file is removed once it is opened for sending")
        try? FileManager.default.removeItem(at: file.url)
        // Downloaded again, it is written again, whole.
        let again = try client.send("GET", "/api/sheets/\(id)/pdf", headers: ["X-Collage-Token": client.token])
        #expect(again.status == 200 && again.body == sent)
    }

    @Test func aCollagesStickersPrintAsTheyLookOnIt() throws {
        let (client, ids) = try Self.clientWithStickers()
        let collage = try client.library.createCollage(title: "Looks", templateID: nil, aspect: .square, photoIDs: [])
        let frame = Rect(x: 100, y: 100, width: 300, height: 300)
        try client.library.apply(
            [
                .addItem(id: "s", content: .sticker(ids[0]), frame: frame),
                .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 30, shadow: false)),
            ], to: collage.collage.id)
        let made = try client.json("POST", "/api/sheets", #"{"collage": "\#(collage.collage.id)", "size": 50}"#)
        #expect(made.status == 201, "\(made.text)")
        #expect(made.json["placements"].count == 1)
        // The picture printed is the sticker in its look: a white outline around the disc, where
        // the library's plain picture is clear.
        let picture = try client.send("GET", try #require(made.json["placements"][0]["picture"].string))
        #expect(picture.status == 200)
        let folder = try TemporaryFolder("collage-sheet-look")
        try picture.body.write(to: folder.file("look.png"))
        let drawn = try Bitmap.read(folder.file("look.png"))
        let plain = try Bitmap.read(client.library.stickerFile(of: try client.library.sticker(ids[0])))
        // Just outside the disc (radius 0.4 of the side): clear in the plain picture, white outline in the look.
        let (px, py) = (plain.width / 2 + Int(Double(plain.width) * 0.45), plain.height / 2)
        #expect(plain[px, py][3] == 0)
        let scale = Double(drawn.width) / (Double(plain.width) * 1.2)
        let (dx, dy) = (drawn.width / 2 + Int(Double(plain.width) * 0.45 * scale), drawn.height / 2)
        #expect(drawn[dx, dy][3] > 200 && drawn[dx, dy][0] > 230, "\(drawn[dx, dy]) at \(dx), \(dy) of \(drawn.width)")
        // An unknown collage, or one without stickers, says so.
        #expect(try client.json("POST", "/api/sheets", #"{"collage": "nope"}"#).status == 404)
        let bare = try client.library.createCollage(title: "Bare", templateID: nil, aspect: .square, photoIDs: [])
        let none = try client.json("POST", "/api/sheets", #"{"collage": "\#(bare.collage.id)"}"#)
        #expect(none.status == 422 && none.text.contains("no stickers"), "\(none.text)")
    }

    @Test func aStickerAloneOnALastPageIsOfferedASizeThatFitsThemAll() throws {
        let (client, ids) = try Self.clientWithStickers()
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        // A tall narrow page holds two stickers of 75 mm one above the other; the third is alone.
        let lonely = try client.json(
            "POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 75, "page": "100x225mm"}"#)
        #expect(lonely.status == 201, "\(lonely.text)")
        #expect(lonely.json["pages"].number == 2)
        // Offered in the slider's whole 5 mm steps: 70 mm is still too tall for three, 65 mm fits.
        #expect(lonely.json["suggestion"]["size"].number == 65, "\(lonely.text)")
        #expect(lonely.json["suggestion"]["pages"].number == 1)
        #expect(lonely.json["suggestion"]["text"].string?.contains("at 65 mm all 3 fit on 1 page") == true)
        // Taken: one page, and nothing more to offer.
        let taken = try client.json(
            "POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 65, "page": "100x225mm"}"#)
        #expect(taken.json["pages"].number == 1 && taken.json["suggestion"].value == .null, "\(taken.text)")
    }

    @Test func stickersStayUprightUnlessTurningIsAskedFor() throws {
        let (client, ids) = try Self.clientWithStickers()
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        let upright = try client.json("POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 40}"#)
        #expect(upright.status == 201, "\(upright.text)")
        // Upright: each placement's matrix has no turn in it (its b and c terms are 0).
        #expect(
            (0..<3).allSatisfy {
                upright.json["placements"][$0]["matrix"][1].number == 0
                    && upright.json["placements"][$0]["matrix"][2].number == 0
            }, "\(upright.text)")
        let turning = try client.json(
            "POST", "/api/sheets", #"{"stickers": [\#(list)], "size": 40, "turnToFit": true}"#)
        #expect(turning.status == 201, "\(turning.text)")
        let bad = try client.json("POST", "/api/sheets", #"{"stickers": [\#(list)], "turnToFit": "yes"}"#)
        #expect(bad.status == 422 && bad.text.contains("turnToFit"), "\(bad.text)")
        // A page that is a number is refused, not read as A4.
        let numbered = try client.json("POST", "/api/sheets", #"{"stickers": [\#(list)], "page": 123}"#)
        #expect(numbered.status == 422 && numbered.text.contains("page"), "\(numbered.text)")
    }
}

@Suite("Messenger sticker packs in the API")
struct StickerPackAPITests {
    @Test func aPackIsOneZipOfPicturesWithinTheMessengersLimits() throws {
        let (client, ids) = try SheetAPITests.clientWithStickers()
        let list = ids.map { "\"\($0)\"" }.joined(separator: ",")
        let made = try client.json(
            "POST", "/api/sticker-packs", #"{"for": "whatsapp", "stickers": [\#(list)], "title": "Shapes"}"#)
        #expect(made.status == 200, "\(made.text)")
        #expect(made.headers["content-type"] == "application/zip")
        #expect(made.headers["content-disposition"] == "attachment; filename=\"Shapes-whatsapp.zip\"")
        let zip = client.directory.appendingPathComponent("pack.zip")
        try made.body.write(to: zip)
        // Python's zipfile checks every entry's checksum and reads the pictures' headers.
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for name in z.namelist():
                data = z.read(name)
                if name.endswith(".webp"):
                    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) <= 100000, name
                print(name, len(data))
            print(z.read("HOW-TO-ADD.txt").decode())
            """
        let listed = try Tools.run("/usr/bin/python3", ["-c", script, zip.path])
        #expect(listed.status == 0, "\(listed.output)")
        for name in ["01.webp", "02.webp", "03.webp", "tray.png", "Shapes.wastickers", "HOW-TO-ADD.txt"] {
            #expect(listed.output.contains(name + " "), "\(name) in \(listed.output)")
        }
        #expect(listed.output.contains("sticker-maker app"))
    }

    @Test func badPacksAreRefusedWithWhatIsWrong() throws {
        let (client, ids) = try SheetAPITests.clientWithStickers()
        let two = ids.prefix(2).map { "\"\($0)\"" }.joined(separator: ",")
        let few = try client.json("POST", "/api/sticker-packs", #"{"for": "whatsapp", "stickers": [\#(two)]}"#)
        #expect(few.status == 422 && few.text.contains("a WhatsApp pack holds 3 to 30 stickers, got 2"), "\(few.text)")
        let unknown = try client.json("POST", "/api/sticker-packs", #"{"for": "signal", "stickers": ["nope"]}"#)
        #expect(unknown.status == 404, "\(unknown.text)")
        let messenger = try client.json("POST", "/api/sticker-packs", #"{"for": "icq", "stickers": [\#(two)]}"#)
        #expect(messenger.status == 422 && messenger.text.contains("for"), "\(messenger.text)")
        let title = try client.json(
            "POST", "/api/sticker-packs", #"{"for": "signal", "stickers": [\#(two)], "title": "a\nb"}"#)
        #expect(title.status == 422 && title.text.contains("title"), "\(title.text)")
    }
}
