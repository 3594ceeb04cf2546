import CollageCore
import Foundation
import Testing

@Suite("Collage documents (JSON)")
struct CollageDocumentTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples").standardized

    @Test func encodeThenDecodeRoundTripsExactly() throws {
        var collage = try Fixtures.collage(template: "triptych", photos: 4)
        collage = try collage.applying([
            .rotateItem(id: "p3", degrees: -33.3),
            .setCrop(id: "p0", crop: Crop(focus: Point(x: 0.1, y: 0.9), zoom: 1.7)),
            .addItem(id: "s", content: .sticker("stickers/ünïcødé \"cat\".png"), frame: nil),
            .setStyle(Style(background: .transparent, spacing: 3.25, padding: 0.1, cornerRadius: 7)),
            .rename(title: "Tab\there, emoji 🐈, newline\nend"),
        ])
        let data = CollageDocument.encode(collage)
        let decoded = try CollageDocument.decode(data)
        #expect(decoded == collage)
        #expect(CollageDocument.encode(decoded) == data, "encoding is deterministic")
    }

    @Test func writesTheVersionedFormat() throws {
        let value = try JSONValue.parse(CollageDocument.encode(try Fixtures.collage()))
        guard case .object(let members) = value else {
            Issue.record("expected an object")
            return
        }
        #expect(members["format"] == .string("collage"))
        // Version 1 where nothing needs version 2, so older builds still read it.
        #expect(members["version"] == .number(1))
    }

    @Test func reportsThePathOfABadField() throws {
        var text = String(decoding: CollageDocument.encode(try Fixtures.collage()), as: UTF8.self)
        let value = try JSONValue.parse(text)
        guard case .object(var root) = value, case .array(var items) = root["items"],
            case .object(var item) = items[2], case .object(var frame) = item["frame"]
        else {
            Issue.record("unexpected shape")
            return
        }
        frame["width"] = .number(-5)
        item["frame"] = .object(frame)
        items[2] = .object(item)
        root["items"] = .array(items)
        text = JSONValue.object(root).serialized()
        #expect(
            throws: DocumentError.invalid([
                DocumentIssue(path: "items[2].frame.width", message: "expected a number > 0, got -5")
            ])
        ) {
            try CollageDocument.decode(Data(text.utf8))
        }
    }

    @Test func reportsEveryProblemAtOnce() {
        let text = """
            {"format": "collage", "version": 1, "id": "x", "title": 7,
             "created": "yesterday", "updated": "2026-01-01T00:00:00Z",
             "canvas": {"width": 0, "height": 100}, "template": "hexagon",
             "style": {"background": "mauve", "spacing": -1},
             "items": [{"id": "a", "content": {"type": "video", "ref": "v.mp4"}, "frame": {"x": 0, "y": 0, "width": 10, "height": 10}},
                       {"id": "a", "content": {"type": "photo", "ref": "p.jpg"}, "fram": {}}]}
            """
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("expected errors")
        } catch {
            let paths = Set(error.issues.map(\.path))
            for expected in [
                "title", "created", "canvas.width", "template", "style.background", "style.spacing",
                "items[0].content.type", "items[1].fram", "items[1].frame",
            ] {
                #expect(paths.contains(expected), "missing \(expected) in \(error)")
            }
        }
    }

    @Test func duplicateIdsAndSlotsAreReported() throws {
        var collage = try Fixtures.collage()
        collage.items[1].id = "p0"
        collage.items[2].slot = 0
        #expect(
            throws: DocumentError.invalid([
                DocumentIssue(path: "items[1].id", message: "\"p0\" is already the id of items[0]"),
                DocumentIssue(path: "items[2].slot", message: "slot 0 is already filled by items[0]"),
            ])
        ) {
            try CollageDocument.decode(CollageDocument.encode(collage))
        }
    }

    @Test func aNewerVersionIsRefusedWithAHint() {
        let text = #"{"format": "collage", "version": "# + "\(CollageDocument.version + 1)}"
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("a document newer than this build was read")
        } catch {
            #expect(error.issues.contains { $0.path == "version" && $0.message.contains("newer") })
        }
    }

    @Test func syntaxErrorsNameLineAndColumn() {
        let text = "{\n  \"format\": \"collage\",\n  \"version\" 1\n}"
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("parsed invalid JSON")
        } catch {
            #expect(
                error.description
                    == "invalid JSON at line 3, column 13: expected ':' after member name \"version\", found '1'")
        }
    }

    @Test func theExamplesAreValid() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path)
            .filter { $0.hasSuffix(".json") }
        #expect(files.count >= 2)
        for file in files {
            let data = try Data(contentsOf: Self.examples.appendingPathComponent(file))
            let collage = try CollageDocument.decode(data)
            #expect(!collage.items.isEmpty, "\(file)")
        }
    }
}
