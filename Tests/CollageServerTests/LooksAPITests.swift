import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@testable import CollageServer

/// Filters, adjustments and backgrounds through the API: listed for the editor, saved as edits,
/// drawn by the renderer for the page, refused with the field's path.
@Suite("Looks in the API")
struct LooksAPITests {
    /// A collage with one orange photo in a grid; returns its id and the photo item's id.
    func collageWithAPhoto(_ client: AppClient) throws -> (String, String) {
        let uploaded = try client.upload([("orange.jpg", try client.photoData([230, 120, 40]))])
        #expect(uploaded.status == 201 || uploaded.status == 200, "\(uploaded.text)")
        let photo = try #require(try client.library.photos().first?.id)
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "grid2x2", "photos": ["\#(photo)"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json["collage"]["id"].string)
        let item = try #require(created.json["collage"]["items"][0]["id"].string)
        return (id, item)
    }

    func image(_ body: Data) throws -> Bitmap {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("look-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try body.write(to: file)
        return try Bitmap.read(file)
    }

    @Test func filtersAndAdjustmentsAreListedForTheEditor() throws {
        let client = try AppClient()
        let listed = try client.send("GET", "/api/filters")
        #expect(listed.status == 200)
        #expect(listed.json["filters"][4]["id"].string == Filter.catalog[4].id)
        #expect(listed.json["adjustments"][0]["name"].string == "exposure")
        #expect(listed.json["adjustments"][8]["min"].number == 0, "sharpness starts at 0")
    }

    @Test func aFilteredPhotoIsSavedAndDrawnAsTheExportMakesIt() throws {
        let client = try AppClient()
        let (id, item) = try collageWithAPhoto(client)
        let version = try client.library.collage(id).version
        let saved = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "setLook", "id": "\#(item)", "look": {"filter": {"id": "mono"}, "adjustments": {"exposure": 20}}}]}"#
        )
        #expect(saved.status == 200, "\(saved.text)")
        #expect(saved.json["collage"]["items"][0]["look"]["filter"]["id"].string == "mono")
        let drawn = try client.send("GET", "/api/collages/\(id)/items/\(item)/drawn?scale=0.5")
        #expect(drawn.status == 200, "\(drawn.text)")
        let grey = try image(drawn.body)
        let centre = grey[grey.width / 2, grey.height / 2]
        #expect(abs(Int(centre[0]) - Int(centre[2])) <= 2, "mono: \(centre)")
        // The tray's preview of another filter, on the same photo; the saved look is unchanged.
        let warm = try image(
            try client.send("GET", "/api/collages/\(id)/items/\(item)/drawn?scale=0.5&filter=warm").body)
        let pixel = warm[warm.width / 2, warm.height / 2]
        #expect(Int(pixel[0]) - Int(pixel[2]) > 100, "warm keeps the orange: \(pixel)")
        #expect(try client.library.collage(id).collage.items[0].look.filter?.id == "mono")
        let unknown = try client.send("GET", "/api/collages/\(id)/items/\(item)/drawn?scale=0.5&filter=sparkle")
        #expect(unknown.status == 422 && unknown.text.contains(#"no filter named \"sparkle\""#), "\(unknown.text)")
    }

    @Test(arguments: [
        (#"{"filter": {"id": "sparkle"}}"#, #"edits[0].look.filter.id: no filter named \"sparkle\""#),
        (
            #"{"filter": {"id": "film", "strength": 1e300}}"#,
            "edits[0].look.filter.strength: expected a number from 0 to 1"
        ),
        (
            #"{"adjustments": {"exposure": 1e300}}"#,
            "edits[0].look.adjustments.exposure: expected a number from -100 to 100"
        ),
        (#"{"adjustments": {"clarity": 5}}"#, "edits[0].look.adjustments.clarity: unknown field"),
        (#"{"opacity": "half"}"#, "edits[0].look.opacity: expected a number from 0 to 1"),
    ])
    func aBadLookIsRefusedWithItsPathAndChangesNothing(look: String, message: String) throws {
        let client = try AppClient()
        let (id, item) = try collageWithAPhoto(client)
        let version = try client.library.collage(id).version
        let refused = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "setLook", "id": "\#(item)", "look": \#(look)}]}"#)
        #expect(refused.status == 422, "\(refused.text)")
        #expect(refused.text.contains(message), "\(refused.text)")
        #expect(try client.library.collage(id).version == version)
    }

    @Test func aBackgroundIsDrawnForThePageAtABoundedSize() throws {
        let client = try AppClient()
        let (id, item) = try collageWithAPhoto(client)
        let version = try client.library.collage(id).version
        let saved = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "setStyle", "style": {"background": "linear-gradient(90deg, #000000, #ffffff)"}}]}"#
        )
        #expect(saved.status == 200, "\(saved.text)")
        let drawn = try client.send("GET", "/api/collages/\(id)/background?scale=100")
        #expect(drawn.status == 200, "\(drawn.text)")
        let background = try image(drawn.body)
        #expect(background.width * background.height <= CollageRenderer.maximumDrawnBackgroundPixels)
        #expect(background[0, 5][0] < 5 && background[background.width - 1, 5][0] > 250)
        #expect(try client.send("GET", "/api/collages/\(id)/background?scale=nan").status == 422)
        #expect(try client.send("GET", "/api/collages/nope/background").status == 404)

        // A scale out of range is refused before the request queues for a turn to draw (it
        // waited up to seconds behind other drawings in a soak): with no turn to be had, it is
        // still told what is wrong.
        client.app.thumbnails.close()
        for path in ["/api/collages/\(id)/background?scale=1e300", "/api/collages/\(id)/items/\(item)/drawn?scale=0"] {
            let refused = try client.send("GET", path)
            #expect(refused.status == 422 && refused.text.contains("from 0.01 to 100"), "\(path): \(refused.text)")
        }
        #expect(try client.send("GET", "/api/collages/\(id)/background?scale=1").status == 503)
    }
}

extension LooksAPITests {
    /// A photo taken too dark under warm light: grey steps and coloured patches, each channel's
    /// linear light scaled as a camera's wrong white balance and exposure scale it.
    static func darkWarmPhoto() throws -> Data {
        let gains = [0.3, 0.22, 0.15]
        var bitmap = Bitmap(width: 240, height: 160, color: [0, 0, 0])
        let patches: [[Double]] = [[0.8, 0.1, 0.1], [0.1, 0.6, 0.2], [0.1, 0.2, 0.8], [0.9, 0.8, 0.1]]
        for y in 0..<160 {
            for x in 0..<240 {
                let colour: [Double] =
                    x < 120 ? Array(repeating: 0.05 + 0.9 * Double(x) / 120, count: 3) : patches[(y / 40) % 4]
                bitmap[x, y] = (0..<3).map { band in
                    let linear = min(1, colour[band] * gains[band])
                    let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
                    return UInt8((encoded * 255).rounded())
                }
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try bitmap.write(to: file, format: .png)
        return try Data(contentsOf: file)
    }

    @Test func autoSuggestsTheExposureAndWhiteBalanceAPhotoAsksFor() throws {
        let client = try AppClient()
        let uploaded = try client.upload([("warm.png", try Self.darkWarmPhoto())])
        #expect(uploaded.status == 201 || uploaded.status == 200, "\(uploaded.text)")
        let photo = try #require(try client.library.photos().first?.id)
        let created = try client.json("POST", "/api/collages", #"{"template": "grid2x2", "photos": ["\#(photo)"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let item = try #require(created.json["collage"]["items"][0]["id"].string)
        let suggested = try client.send("GET", "/api/collages/\(id)/items/\(item)/auto-adjustments")
        #expect(suggested.status == 200, "\(suggested.text)")
        let adjustments = suggested.json["adjustments"]
        #expect((adjustments["exposure"].number ?? 0) > 30, "brighter: \(suggested.text)")
        #expect((adjustments["warmth"].number ?? 0) < -20, "cooler: \(suggested.text)")
        // What it suggests is a look the edits take as it is.
        guard case .object(let answer) = try JSONValue.parse(suggested.body), let suggestion = answer["adjustments"]
        else {
            Issue.record("no adjustments in \(suggested.text)")
            return
        }
        let version = try client.library.collage(id).version
        let saved = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "setLook", "id": "\#(item)", "look": {"adjustments": \#(suggestion.serialized(pretty: false))}}]}"#
        )
        #expect(saved.status == 200, "\(saved.text)")
        // Only photos; unknown items are 404.
        let text = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version + 1), "edits": [{"op": "addItem", "id": "t", "content": {"type": "text", "text": "Hi"}}]}"#
        )
        #expect(text.status == 200, "\(text.text)")
        #expect(try client.send("GET", "/api/collages/\(id)/items/t/auto-adjustments").status == 422)
        #expect(try client.send("GET", "/api/collages/\(id)/items/nope/auto-adjustments").status == 404)
        #expect(
            try client.send("GET", "/api/collages/\(id)/items/\(item)/auto-adjustments", token: false).status == 403)
    }
}

extension LooksAPITests {
    /// The outline slider's preview: the sticker drawn by the renderer at the width the slider
    /// passes through, its shadow with it, the saved style untouched; a width out of range or an
    /// item that is not a sticker is refused by name.
    @Test func aStickerIsDrawnWithAnotherOutlineForTheSlider() throws {
        let client = try AppClient()
        let (id, photoItem) = try collageWithAPhoto(client)
        let photoID = try #require(try client.library.photos().first?.id)
        var disc = Bitmap(width: 200, height: 200, color: [0, 0, 0, 0])
        for y in 0..<200 {
            for x in 0..<200 where (x - 100) * (x - 100) + (y - 100) * (y - 100) <= 80 * 80 {
                disc[x, y] = [40, 60, 200, 255]
            }
        }
        let sticker = try client.library.saveSticker(
            id: "outline-preview", photoID: photoID, selection: "all", outlineWidth: 0, shadow: false, image: disc)
        let version = try client.library.collage(id).version
        let added = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "addItem", "id": "st", "content": {"type": "sticker", "ref": "\#(sticker.id)"}, "frame": {"x": 100, "y": 100, "width": 400, "height": 400}}, {"op": "setStickerStyle", "id": "st", "style": {"outline": 4, "shadow": true}}]}"#
        )
        #expect(added.status == 200, "\(added.text)")
        func drawn(_ query: String) throws -> Bitmap {
            let response = try client.send("GET", "/api/collages/\(id)/items/st/drawn?scale=1\(query)")
            #expect(response.status == 200, "\(response.text)")
            return try image(response.body)
        }
        let saved = try drawn("")
        let wider = try drawn("&outline=40")
        // A disc of radius 160 points in its 400-point frame: its ring reaches 164 saved, 200 wider.
        #expect(wider.width > saved.width + 60, "\(saved.width) -> \(wider.width)")
        let whiteRing = wider[wider.width / 2, wider.height / 2 - 160 - 20]
        #expect(whiteRing.prefix(3).allSatisfy { $0 > 240 } && whiteRing[3] > 240, "\(whiteRing)")
        #expect(try client.library.collage(id).collage.item("st")?.stickerStyle?.outlineWidth == 4)
        for (query, message) in [
            ("&outline=1e300", "outline: expected a width in points"), ("&outline=wide", "outline: expected"),
        ] {
            let refused = try client.send("GET", "/api/collages/\(id)/items/st/drawn?scale=1\(query)")
            #expect(refused.status == 422 && refused.text.contains(message), "\(refused.text)")
        }
        let photo = try client.send("GET", "/api/collages/\(id)/items/\(photoItem)/drawn?scale=1&outline=8")
        #expect(photo.status == 422 && photo.text.contains("is not a sticker"), "\(photo.text)")
    }
}
