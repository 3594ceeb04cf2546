import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@testable import CollageServer

/// Text items through the API: added and changed with edits, fitted to their words, drawn by
/// the renderer for the page, refused with the field's path when they cannot be drawn.
@Suite("Text in the API")
struct TextAPITests {
    func collage(_ client: AppClient) throws -> String {
        let created = try client.json("POST", "/api/collages", #"{"template": "grid2x2"}"#)
        #expect(created.status == 201, "\(created.text)")
        return try #require(created.json["collage"]["id"].string)
    }

    @Test func fontsAreListedForTheEditor() throws {
        let client = try AppClient()
        let fonts = try client.send("GET", "/api/fonts")
        #expect(fonts.status == 200)
        #expect(fonts.json["fonts"][0]["family"].string == TextFont.defaultFamily)
        #expect(fonts.json["fonts"][TextFont.catalog.count - 1]["family"].string == TextFont.catalog.last?.family)
    }

    @Test func aTextIsAddedFittedChangedAndDrawnForThePage() throws {
        let client = try AppClient()
        let id = try collage(client)
        let added = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "addItem", "id": "t", "content": {"type": "text", "text": "Hello", "size": 48, "background": {"padding": 10}}, "frame": {"x": 100, "y": 100, "width": 500, "height": 400}}]}"#
        )
        #expect(added.status == 200, "\(added.text)")
        #expect(added.json["version"].number == 2, "the text and its fitted frame are one step")
        let height = try #require(added.json["collage"]["items"][0]["frame"]["height"].number)
        #expect(height > 50 && height < 90, "fitted to one line plus the padding: \(height)")
        let drawn = try client.send("GET", "/api/collages/\(id)/items/t/drawn?scale=2")
        #expect(drawn.status == 200 && drawn.headers["content-type"] == "image/png", "\(drawn.text)")
        let offset = try #require(drawn.headers["x-collage-offset"])
        #expect(offset.split(separator: ",").count == 2)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("drawn-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try drawn.body.write(to: file)
        let image = try Bitmap.read(file)
        #expect(image.width >= 1000 && image.height >= Int(height * 2), "the frame at twice its size, or more")
        // Typing a second line makes the frame taller, in the same step.
        let changed = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "setText", "id": "t", "text": {"text": "Hello\nagain", "size": 48, "background": {"padding": 10}}}]}"#
        )
        #expect(changed.status == 200, "\(changed.text)")
        let taller = try #require(changed.json["collage"]["items"][0]["frame"]["height"].number)
        #expect(taller > height * 1.6)
    }

    @Test(arguments: [
        (#"{"text": ""}"#, "edits[0].text.text: expected some text, got none"),
        (#"{"text": "a", "font": "Comic Sans"}"#, "edits[0].text.font: no font named"),
        (#"{"text": "a", "size": 1e300}"#, "edits[0].text.size: expected a size in points from 4 to 1000"),
        (#"{"text": "bell\u0007"}"#, "edits[0].text.text: control character U+0007"),
        (#"{"text": "a", "color": 5}"#, "edits[0].text.color: expected a string, got 5"),
    ])
    func badTextIsRefusedWithItsPathAndChangesNothing(text: String, message: String) throws {
        let client = try AppClient()
        let id = try collage(client)
        _ = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "addItem", "id": "t", "content": {"type": "text", "text": "Hi"}}]}"#)
        let refused = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "setText", "id": "t", "text": \#(text)}]}"#)
        #expect(refused.status == 422)
        #expect(refused.text.contains(message), "\(refused.text)")
        #expect(try client.library.collage(id).version == 2)
    }

    @Test func aHundredThousandCharactersAreRefused() throws {
        let client = try AppClient()
        let id = try collage(client)
        let long = String(repeating: "word ", count: 20_000)
        let refused = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "addItem", "id": "t", "content": {"type": "text", "text": "\#(long)"}}]}"#
        )
        #expect(refused.status == 422 || refused.status == 413, "\(refused.status)")
        #expect(
            refused.text.contains("2000 characters") || refused.text.contains("too large"),
            "\(refused.text.prefix(300))")
        #expect(try client.library.collage(id).collage.items.isEmpty)
    }
}
