import CollageCore
import CollageLibrary
import CollageTestSupport
import Foundation
import Testing

@testable import CollageServer

/// The smart layout through the API: made for the photos' shapes, kept with the collage,
/// shuffled by seed, with a hero.
@Suite("Smart layout in the API")
struct ArrangeAPITests {
    /// A client whose library holds photos of different shapes, and a collage of them.
    func collage() throws -> (AppClient, String, [String: Double]) {
        let client = try AppClient()
        let sizes = [(360, 240), (240, 360), (300, 300), (480, 160), (320, 240)]
        let upload = try client.upload(
            try sizes.enumerated().map { index, size in
                ("p\(index).jpg", try client.photoData([UInt8(40 * index), 90, 160], width: size.0, height: size.1))
            })
        var aspects: [String: Double] = [:]
        var ids: [String] = []
        for index in 0..<sizes.count {
            let id = try #require(upload.json["photos"][index]["id"].string)
            ids.append(id)
            aspects[id] = Double(sizes[index].0) / Double(sizes[index].1)
        }
        let list = ids.map { "\"\($0)\"" }.joined(separator: ", ")
        let created = try client.json("POST", "/api/collages", #"{"template": "auto", "photos": [\#(list)]}"#)
        #expect(created.status == 201, "\(created.text)")
        return (client, try #require(created.json["collage"]["id"].string), aspects)
    }

    @Test func aNewCollageOnAutoIsLaidOutForItsPhotos() throws {
        let (client, id, aspects) = try collage()
        let stored = try client.library.collage(id).collage
        #expect(stored.templateID == nil && stored.arrangement == Arrangement())
        for item in stored.items {
            let aspect = try #require(aspects[item.content.reference])
            let ratio = (item.frame.width / item.frame.height) / aspect
            #expect(ratio > 0.89 && ratio < 1.12, "\(item.id): \(ratio)")
        }
    }

    @Test func anotherSeedIsAnotherLayoutAndTheSameSeedTheSame() throws {
        let (client, id, _) = try collage()
        let first = try client.library.collage(id).collage.items.map(\.frame)
        let shuffled = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 2, "seed": 1}"#)
        #expect(shuffled.status == 200, "\(shuffled.text)")
        #expect(shuffled.json["collage"]["arrangement"]["seed"].number == 1)
        let second = try client.library.collage(id).collage.items.map(\.frame)
        #expect(second != first)
        let back = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 3, "seed": 0}"#)
        #expect(back.status == 200)
        #expect(try client.library.collage(id).collage.items.map(\.frame) == first)
        // The layout the page draws is the stored one.
        #expect(back.json["layout"]["items"][0]["frame"]["width"].number == first[0].width)
    }

    @Test func aHeroIsClearlyTheLargestAndStaysThroughAShuffle() throws {
        let (client, id, _) = try collage()
        let hero = "i3"
        let made = try client.json(
            "POST", "/api/collages/\(id)/arrange", #"{"version": 2, "hero": "\#(hero)", "keepsOrder": false}"#)
        #expect(made.status == 200, "\(made.text)")
        for seed in [0, 1] {
            if seed == 1 {
                #expect(
                    try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 3, "seed": 1}"#).status == 200)
            }
            let items = try client.library.collage(id).collage.items
            let areas = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0.frame.width * $0.frame.height) })
            let heroArea = try #require(areas[hero])
            for (other, area) in areas where other != hero { #expect(heroArea > 1.5 * area, "\(other)") }
        }
    }

    @Test func badRequestsAreRefusedAndChangeNothing() throws {
        let (client, id, _) = try collage()
        let cases: [(String, Int)] = [
            (#"{"version": 2, "seed": -1}"#, 422), (#"{"version": 2, "seed": 1e300}"#, 422),
            (#"{"version": 2, "maximumCrop": 0.9}"#, 422), (#"{"version": 2, "hero": "nobody"}"#, 422),
            (#"{"version": 2, "hero": 5}"#, 400), (#"{"version": 2, "keepsOrder": "yes"}"#, 400),
            (#"{"version": 1}"#, 409), (#"{"seed": 1}"#, 400),
        ]
        for (body, status) in cases {
            let answer = try client.json("POST", "/api/collages/\(id)/arrange", body)
            #expect(answer.status == status, "\(body): \(answer.text)")
        }
        #expect(try client.library.collage(id).version == 2)
        let empty = try client.json("POST", "/api/collages", #"{"template": "grid2x2"}"#)
        let emptyID = try #require(empty.json["collage"]["id"].string)
        let nothing = try client.json("POST", "/api/collages/\(emptyID)/arrange", #"{"version": 1}"#)
        #expect(nothing.status == 422 && nothing.text.contains("no photos to lay out"))
        #expect(try client.json("POST", "/api/collages/none/arrange", #"{"version": 1}"#).status == 404)
    }

    @Test func theArrangementSurvivesARestartAndATemplateEndsIt() throws {
        let (client, id, _) = try collage()
        _ = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 2, "seed": 4, "maximumCrop": 0.05}"#)
        // Another process reading the same library file.
        let again = try Library(root: client.library.root)
        defer { again.close() }
        #expect(try again.collage(id).collage.arrangement == Arrangement(seed: 4, maximumCrop: 0.05))
        let templated = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 3, "edits": [{"op": "applyTemplate", "template": "grid3x2"}]}"#)
        #expect(templated.status == 200)
        #expect(try client.library.collage(id).collage.arrangement == nil)
        // Undo brings the arranged collage back, arrangement and all.
        #expect(try client.json("POST", "/api/collages/\(id)/undo", #"{"version": 4}"#).status == 200)
        #expect(try client.library.collage(id).collage.arrangement?.seed == 4)
    }
}
