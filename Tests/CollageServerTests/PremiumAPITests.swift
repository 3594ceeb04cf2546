import CollageCore
import CollageLibrary
import CollageLicence
import CollageTestSupport
import Foundation
import Testing

@testable import CollageServer

/// Premium layouts through the API: locked without a licence, unlocked by one at once, and never
/// holding back a collage that follows one already.
@Suite("Premium layouts in the API")
struct PremiumAPITests {
    /// A client with two photos in its library; their ids.
    func clientWithPhotos(unlocked: Bool = false) throws -> (AppClient, [String]) {
        let client = try AppClient(unlocked: unlocked)
        let upload = try client.upload([
            ("red.jpg", try client.photoData([220, 20, 20])), ("blue.jpg", try client.photoData([20, 20, 220])),
        ])
        return (client, (0..<2).compactMap { upload.json["photos"][$0]["id"].string })
    }

    @Test func aPremiumLayoutIsRefusedWith402UntilAKeyIsAdded() throws {
        let (client, photos) = try clientWithPhotos()
        let body = #"{"template": "magazine", "photos": ["\#(photos[0])"]}"#
        let refused = try client.json("POST", "/api/collages", body)
        #expect(refused.status == 402)
        #expect(refused.json["error"]["message"].string?.contains("magazine (Magazine) is a premium layout") == true)
        #expect(try client.library.collages().isEmpty)
        #expect(try client.send("GET", "/api/licence").json["unlocked"].bool == false)

        let added = try client.json("POST", "/api/licence", #"{"key": "\#(TestLicence.key())"}"#)
        #expect(added.status == 200, "\(added.text)")
        #expect(added.json["licence"]["licensee"].string == "Ada Lovelace <ada@example.com>")
        // No reload, no restart: the next request is unlocked.
        #expect(try client.json("POST", "/api/collages", body).status == 201)
        #expect(try client.send("GET", "/api/licence").json["unlocked"].bool == true)
    }

    @Test func badKeysAreRefusedAndTheLicenceStays() throws {
        let client = try AppClient(unlocked: true)
        for key in ["hello", String(TestLicence.key().dropLast(10)), TestLicence.key(product: "other")] {
            let refused = try client.json("POST", "/api/licence", #"{"key": "\#(key)"}"#)
            #expect(refused.status == 422)
            #expect(refused.json["error"]["message"].string?.isEmpty == false)
        }
        #expect(try client.json("POST", "/api/licence", #"{"key": 42}"#).status == 400)
        #expect(try client.send("GET", "/api/licence").json["licence"]["id"].string == "CL-TEST-0001")
    }

    @Test func editsThatApplyAPremiumLayoutAreRefusedWithoutChangingTheCollage() throws {
        let (client, photos) = try clientWithPhotos()
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "grid2x2", "photos": ["\#(photos[0])", "\#(photos[1])"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let refused = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "applyTemplate", "template": "triptych"}]}"#)
        #expect(refused.status == 402)
        let stored = try client.library.collage(id)
        #expect(stored.version == 1 && stored.collage.templateID == "grid2x2")
        // A whole document on a premium layout cannot come in through the back door either.
        var replacement = stored.collage
        replacement.templateID = "triptych"
        let document = String(decoding: CollageDocument.encode(replacement), as: UTF8.self)
        let replaced = try client.json("PUT", "/api/collages/\(id)", #"{"version": 1, "collage": \#(document)}"#)
        #expect(replaced.status == 402)
        #expect(try client.library.collage(id).collage.templateID == "grid2x2")
    }

    @Test func aCollageOnAPremiumLayoutStaysOpenEditableAndExportableWhenLocked() throws {
        let (client, photos) = try clientWithPhotos(unlocked: true)
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "magazine", "photos": ["\#(photos[0])", "\#(photos[1])"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        try client.licences.remove()
        #expect(try client.send("GET", "/api/collages/\(id)").status == 200)
        let edited = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"""
            {"version": 1, "edits": [{"op": "setStyle", "style": {"background": "#fdf6ec", "spacing": 20, "padding": 20, "cornerRadius": 8}},
              {"op": "applyTemplate", "template": "magazine"}, {"op": "rotateItem", "id": "i1", "degrees": 4}]}
            """#)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(edited.json["collage"]["template"].string == "magazine")
        #expect(try client.send("GET", "/api/collages/\(id)/thumbnail").status == 200)
        let export = try client.send("GET", "/api/collages/\(id)/export?format=png&size=300")
        #expect(export.status == 200)
        #expect(export.body.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(try client.send("POST", "/api/collages/\(id)/duplicate").status == 201)
        // Undo walks back through the collage's own premium history.
        #expect(try client.json("POST", "/api/collages/\(id)/undo", #"{"version": 2}"#).status == 200)
        // Another premium layout is a new unlock, and is refused.
        #expect(
            try client.json(
                "POST", "/api/collages/\(id)/edits",
                #"{"version": 3, "edits": [{"op": "applyTemplate", "template": "triptych"}]}"#
            ).status == 402)
    }

    @Test func undoAndRedoBringBackAPremiumLayoutWhenLocked() throws {
        let (client, photos) = try clientWithPhotos(unlocked: true)
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "triptych", "photos": ["\#(photos[0])", "\#(photos[1])"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        try client.licences.remove()
        let free = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "applyTemplate", "template": "grid2x2"}]}"#)
        #expect(free.status == 200 && free.json["collage"]["template"].string == "grid2x2")
        // The person's own history: back to triptych, forward to the grid, back again.
        let undone = try client.json("POST", "/api/collages/\(id)/undo", #"{"version": 2}"#)
        #expect(undone.status == 200 && undone.json["collage"]["template"].string == "triptych")
        let redone = try client.json("POST", "/api/collages/\(id)/redo", #"{"version": 3}"#)
        #expect(redone.status == 200 && redone.json["collage"]["template"].string == "grid2x2")
        // But choosing triptych again is applying a premium layout anew.
        #expect(
            try client.json(
                "POST", "/api/collages/\(id)/edits",
                #"{"version": 4, "edits": [{"op": "applyTemplate", "template": "triptych"}]}"#
            ).status == 402)
    }

    @Test func aPreviewShowsAPremiumLayoutWithoutSavingIt() throws {
        let (client, photos) = try clientWithPhotos()
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "grid2x2", "photos": ["\#(photos[0])", "\#(photos[1])"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let preview = try client.json(
            "POST", "/api/collages/\(id)/preview", #"{"edits": [{"op": "applyTemplate", "template": "magazine"}]}"#)
        #expect(preview.status == 200, "\(preview.text)")
        #expect(preview.json["collage"]["template"].string == "magazine")
        #expect(preview.json["version"].number == 1)
        // The preview's first frame is the magazine's tall left column, resolved by the server.
        let frames = try #require(Template.named("magazine")).frames(
            for: try client.library.collage(id).collage.applying(.applyTemplate(id: "magazine")))
        #expect(preview.json["layout"]["slots"][0]["width"].number == frames[0].width)
        let stored = try client.library.collage(id)
        #expect(stored.version == 1 && stored.collage.templateID == "grid2x2")
        let bad = try client.json(
            "POST", "/api/collages/\(id)/preview", #"{"edits": [{"op": "applyTemplate", "template": "nope"}]}"#)
        #expect(bad.status == 422)
        #expect(
            try client.json(
                "POST", "/api/collages/none/preview", #"{"edits": [{"op": "applyTemplate", "template": "strip"}]}"#
            ).status == 404)
    }

    @Test func removingTheLicenceLocksAgain() throws {
        let client = try AppClient(unlocked: true)
        let removed = try client.send("DELETE", "/api/licence")
        #expect(removed.status == 200 && removed.json["unlocked"].bool == false)
        #expect(removed.json["premiumLayouts"].count == Template.catalog.filter(\.isPremium).count)
        #expect(try client.json("POST", "/api/collages", #"{"template": "magazine"}"#).status == 402)
    }
}
