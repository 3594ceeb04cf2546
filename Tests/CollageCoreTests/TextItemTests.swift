import CollageCore
import Foundation
import Testing

@Suite("Text items in documents and edits")
struct TextItemTests {
    static let styled = TextBlock(
        text: "Summer 2026\nשלום · 你好 · 😀", font: "EB Garamond", weight: 600, italic: true, size: 54,
        color: Color(red: 250, green: 240, blue: 230), alignment: .left, lineSpacing: 1.3, letterSpacing: 0.04,
        background: TextBackground(
            color: Color(red: 20, green: 20, blue: 20), opacity: 0.6, cornerRadius: 10, padding: 8),
        outline: TextOutline(color: .black, width: 1.5),
        shadow: DropShadow(color: Color(red: 0, green: 0, blue: 0, alpha: 100), blur: 6, offset: Point(x: 2, y: 4)))

    func collage(with block: TextBlock = styled) throws -> Collage {
        try Fixtures.collage().applying(
            .addItem(id: "title", content: .text(block), frame: Rect(x: 100, y: 80, width: 800, height: 140)))
    }

    func document(replacingText fields: [String: JSONValue]) throws -> Data {
        var text = String(decoding: CollageDocument.encode(try collage()), as: UTF8.self)
        guard case .object(var root) = try JSONValue.parse(Data(text.utf8)), case .array(var items) = root["items"],
            case .object(var item) = items.last, case .object(var content) = item["content"]
        else { throw CocoaError(.coderReadCorrupt) }
        for (key, value) in fields { content[key] = value }
        item["content"] = .object(content)
        items[items.count - 1] = .object(item)
        root["items"] = .array(items)
        text = JSONValue.object(root).serialized()
        return Data(text.utf8)
    }

    @Test func aTextItemRoundTripsWithEveryFieldAndIsVersionThree() throws {
        let collage = try collage()
        let data = CollageDocument.encode(collage)
        #expect(try CollageDocument.decode(data) == collage)
        guard case .object(let root) = try JSONValue.parse(data) else { return }
        #expect(root["version"] == .number(3), "a document with text needs version 3")
        // The fields are optional but the words: a minimal text takes the defaults.
        let minimal = try CollageDocument.textBlock(from: .object(["type": "text", "text": "Hi"]))
        #expect(minimal == TextBlock(text: "Hi"))
        // Font names are matched without regard to case, and stored as the catalogue spells them.
        #expect(
            try CollageDocument.textBlock(from: .object(["text": "Hi", "font": "lobster two"])).font == "Lobster Two")
    }

    @Test func documentsOfEarlierVersionsStillOpen() throws {
        let version2 = #"""
            {"format": "collage", "version": 2, "id": "old", "title": "Before text",
             "created": "2026-01-01T00:00:00.000Z", "updated": "2026-01-01T00:00:00.000Z",
             "canvas": {"width": 1080, "height": 1080},
             "arrangement": {"seed": 3, "maximumCrop": 0.1, "keepsOrder": true},
             "items": [{"id": "a", "content": {"type": "photo", "ref": "a.jpg"},
                        "frame": {"x": 12, "y": 12, "width": 500, "height": 400}, "rotation": 0}]}
            """#
        let collage = try CollageDocument.decode(Data(version2.utf8))
        #expect(collage.items.count == 1 && collage.arrangement?.seed == 3)
        let version1 = version2.replacingOccurrences(of: #""version": 2"#, with: #""version": 1"#)
        #expect(try CollageDocument.decode(Data(version1.utf8)).title == "Before text")
    }

    @Test func everyProblemInATextIsNamedWithItsPath() throws {
        let base = "items[4].content"
        // Fields of the wrong kind are named, each with its path.
        let mistyped = try issues(
            in: try document(replacingText: [
                "weight": .number(950), "color": "reddish", "align": "middle", "letterSpacing": .string("wide"),
                "bold": .bool(true),
            ]))
        for field in ["weight", "color", "align", "letterSpacing", "bold"] {
            #expect(mistyped.contains { $0.hasPrefix("\(base).\(field):") }, "\(field) is named: \(mistyped)")
        }
        // Values out of range, once the fields read.
        let ranged = try issues(
            in: try document(replacingText: [
                "text": "", "font": "Comic Sans", "size": .number(1e300), "lineSpacing": .number(-1),
                "shadow": .object(["blur": .number(1000)]),
            ]))
        #expect(ranged.contains { $0.hasPrefix("\(base).text: expected some text") }, "\(ranged)")
        #expect(ranged.contains { $0.hasPrefix("\(base).font: no font named \"Comic Sans\"") })
        #expect(ranged.contains { $0.hasPrefix("\(base).size: expected a size in points from 4 to 1000, got 1e+300") })
        #expect(ranged.contains { $0.hasPrefix("\(base).lineSpacing:") })
        #expect(ranged.contains { $0.hasPrefix("\(base).shadow.blur:") })
    }

    func issues(in data: Data) throws -> [String] {
        do {
            _ = try CollageDocument.decode(data)
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test func overlongTextAndControlCharactersAreRefused() throws {
        let long = String(repeating: "a", count: 100_000)
        #expect(TextBlock.problem(inText: long) == "expected at most 2000 characters, got 100000")
        #expect(
            TextBlock.problem(inText: "bell\u{7}")
                == "control character U+0007 at position 5; only line breaks and tabs may be in a text")
        #expect(TextBlock.problem(inText: "nul\u{0}") != nil)
        #expect(TextBlock.problem(inText: "   \n ") == "expected some text, got only spaces or invisible characters")
        #expect(TextBlock.problem(inText: "two\nlines\tand a tab, אבג, 😀, 👩‍👩‍👧‍👦") == nil)
        // Invisible characters alone show nothing.
        #expect(TextBlock.problem(inText: "\u{200B}\u{2060}\u{FEFF}")?.hasPrefix("expected some text") == true)
        // One character may not hide thousands of code points (marks, or joined emoji).
        let marks = "e" + String(repeating: "\u{301}", count: 3_000)
        #expect(
            TextBlock.problem(inText: marks) == "character 1 joins 3001 code points; at most 16 may make one character")
        let joined = Array(repeating: "😀", count: 301).joined(separator: "\u{200D}")
        #expect(TextBlock.problem(inText: joined)?.contains("code points") == true)
        let refused = try? collage().applying(.setText(id: "title", text: TextBlock(text: long)))
        #expect(refused == nil)
        do {
            _ = try collage().applying(.setText(id: "title", text: TextBlock(text: "ok", font: "Papyrus")))
        } catch let error as EditError {
            #expect(error.description.hasPrefix("font: no font named \"Papyrus\"; expected one of \"Inter\""))
        }
    }

    @Test func textEditsApplyOnlyToText() throws {
        var collage = try collage()
        var block = Self.styled
        block.text = "Changed"
        collage = try collage.applying(.setText(id: "title", text: block))
        #expect(collage.item("title")?.content.textBlock?.text == "Changed")
        #expect(throws: EditError.self) { try collage.applying(.setText(id: "p0", text: block)) }
        #expect(throws: EditError.self) { try collage.applying(.swapContents(first: "p0", second: "title")) }
        #expect(throws: EditError.self) { try collage.applying(.setCrop(id: "title", crop: Crop())) }
        #expect(throws: EditError.self) { try collage.applying(.setStickerStyle(id: "title", style: StickerStyle())) }
        #expect(throws: EditError.self) { try collage.applying(.placeInSlot(id: "title", slot: 0)) }
        // A layout moves the photos and leaves the text where it is.
        let relaid = try collage.applying(.applyTemplate(id: "strip"))
        #expect(relaid.item("title")?.frame == collage.item("title")?.frame)
        #expect(relaid.photosInLayoutOrder.count == collage.photosInLayoutOrder.count)
    }

    @Test func aTextTooTallForTheCanvasIsRefusedBeforeAnyPixel() throws {
        // 2,000 characters at 1,000 points in a narrow frame would be thousands of lines.
        let huge = TextBlock(text: String(repeating: "x", count: 2_000), size: 1_000)
        do {
            _ = try Fixtures.collage().applying(
                .addItem(id: "t", content: .text(huge), frame: Rect(x: 0, y: 0, width: 100, height: 100)))
            Issue.record("accepted")
        } catch let error as EditError {
            #expect(error.description.contains("times the canvas; make it shorter or smaller, or its frame wider"))
        }
    }

    @Test func aTextWithoutAFrameIsPlacedWideAtTheCentre() throws {
        let collage = try Fixtures.collage().applying(
            .addItem(id: "t", content: .text(TextBlock(text: "Caption")), frame: nil))
        let frame = try #require(collage.item("t")?.frame)
        #expect(abs(frame.center.x - collage.canvas.width / 2) < 0.001)
        #expect(frame.width == collage.canvas.width * EditRules.defaultTextWidthFraction)
    }
}
