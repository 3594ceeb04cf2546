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
            let aspect = try #require(item.content.reference.flatMap { aspects[$0] })
            let ratio = (item.frame.width / item.frame.height) / aspect
            #expect(ratio > 0.89 && ratio < 1.12, "\(item.id): \(ratio)")
        }
    }

    @Test func anotherSeedIsAnotherLayoutAndTheSameSeedTheSame() throws {
        let (client, id, _) = try collage()
        let first = try client.library.collage(id).collage.items.map(\.frame)
        let shuffled = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 1, "seed": 1}"#)
        #expect(shuffled.status == 200, "\(shuffled.text)")
        #expect(shuffled.json["collage"]["arrangement"]["seed"].number == 1)
        let second = try client.library.collage(id).collage.items.map(\.frame)
        #expect(second != first)
        let back = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 2, "seed": 0}"#)
        #expect(back.status == 200)
        #expect(try client.library.collage(id).collage.items.map(\.frame) == first)
        // The layout the page draws is the stored one.
        #expect(back.json["layout"]["items"][0]["frame"]["width"].number == first[0].width)
    }

    @Test func aHeroIsClearlyTheLargestAndStaysThroughAShuffle() throws {
        let (client, id, _) = try collage()
        let hero = "i3"
        let made = try client.json(
            "POST", "/api/collages/\(id)/arrange", #"{"version": 1, "hero": "\#(hero)", "keepsOrder": false}"#)
        #expect(made.status == 200, "\(made.text)")
        for seed in [0, 1] {
            if seed == 1 {
                #expect(
                    try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 2, "seed": 1}"#).status == 200)
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
            (#"{"version": 1, "seed": -1}"#, 422), (#"{"version": 1, "seed": 1e300}"#, 422),
            (#"{"version": 1, "maximumCrop": 0.9}"#, 422), (#"{"version": 1, "hero": "nobody"}"#, 422),
            (#"{"version": 1, "hero": 5}"#, 400), (#"{"version": 1, "keepsOrder": "yes"}"#, 400),
            (#"{"version": 9}"#, 409), (#"{"seed": 1}"#, 400),
        ]
        for (body, status) in cases {
            let answer = try client.json("POST", "/api/collages/\(id)/arrange", body)
            #expect(answer.status == status, "\(body): \(answer.text)")
        }
        #expect(try client.library.collage(id).version == 1)
        let empty = try client.json("POST", "/api/collages", #"{"template": "grid2x2"}"#)
        let emptyID = try #require(empty.json["collage"]["id"].string)
        let nothing = try client.json("POST", "/api/collages/\(emptyID)/arrange", #"{"version": 1}"#)
        #expect(nothing.status == 422 && nothing.text.contains("no photos to lay out"))
        #expect(try client.json("POST", "/api/collages/none/arrange", #"{"version": 1}"#).status == 404)
    }

    @Test func theArrangementSurvivesARestartAndATemplateEndsIt() throws {
        let (client, id, _) = try collage()
        _ = try client.json("POST", "/api/collages/\(id)/arrange", #"{"version": 1, "seed": 4, "maximumCrop": 0.05}"#)
        // Another process reading the same library file.
        let again = try Library(root: client.library.root)
        defer { again.close() }
        #expect(try again.collage(id).collage.arrangement == Arrangement(seed: 4, maximumCrop: 0.05))
        let templated = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "applyTemplate", "template": "grid3x2"}]}"#)
        #expect(templated.status == 200)
        #expect(try client.library.collage(id).collage.arrangement == nil)
        // Undo brings the arranged collage back, arrangement and all.
        #expect(try client.json("POST", "/api/collages/\(id)/undo", #"{"version": 3}"#).status == 200)
        #expect(try client.library.collage(id).collage.arrangement?.seed == 4)
    }

    @Test func aStyleChangeLaysTheCollageOutAgainInTheSameStep() throws {
        let (client, id, _) = try collage()
        let wider = try client.json(
            "POST", "/api/collages/\(id)/edits",
            ##"{"version": 1, "edits": [{"op": "setStyle", "style": {"background": "#ffffff", "spacing": 40, "padding": 30, "cornerRadius": 0}}]}"##
        )
        #expect(wider.status == 200, "\(wider.text)")
        #expect(wider.json["version"].number == 2)
        let collage = try client.library.collage(id).collage
        #expect(collage.arrangement != nil)
        let frames = collage.items.map(\.frame)
        #expect(abs((frames.map(\.x).min() ?? 0) - 30) < 0.01 && abs((frames.map(\.y).min() ?? 0) - 30) < 0.01)
        let right = frames.map(\.maxX).max() ?? 0
        for frame in frames where frame.maxX < right - 0.5 {
            #expect(frames.contains { abs($0.x - (frame.maxX + 40)) < 0.01 }, "\(frame)")
        }
        // Moving a photo by hand makes the layout the person's own: nothing lays it out again.
        let moved = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "moveItem", "id": "i1", "origin": {"x": 100, "y": 100}}]}"#)
        #expect(moved.status == 200)
        #expect(try client.library.collage(id).collage.arrangement == nil)
    }

    /// For each pair of items, whether one lies wholly left of, or above, the other.
    static func relations(_ items: [CollageItem]) -> Set<String> {
        var relations: Set<String> = []
        for a in items {
            for b in items where a.id != b.id {
                if a.frame.maxX <= b.frame.x + 0.01 { relations.insert("\(a.id) left of \(b.id)") }
                if a.frame.maxY <= b.frame.y + 0.01 { relations.insert("\(a.id) above \(b.id)") }
            }
        }
        return relations
    }

    @Test func newSpacingOrCornersKeepEveryPhotoInItsPlace() throws {
        let (client, id, _) = try collage()
        let before = try client.library.collage(id).collage
        let spaced = try client.json(
            "POST", "/api/collages/\(id)/edits",
            ##"{"version": 1, "edits": [{"op": "setStyle", "style": {"background": "#ffffff", "spacing": 0, "padding": 60, "cornerRadius": 0}}]}"##
        )
        #expect(spaced.status == 200, "\(spaced.text)")
        let after = try client.library.collage(id).collage
        #expect(after.arrangement == before.arrangement)
        #expect(Self.relations(after.items) == Self.relations(before.items), "the same tree, new frames")
        #expect(after.items.map(\.frame) != before.items.map(\.frame))
        // Rounder corners alone change no frame at all.
        let rounded = try client.json(
            "POST", "/api/collages/\(id)/edits",
            ##"{"version": 2, "edits": [{"op": "setStyle", "style": {"background": "#ffffff", "spacing": 0, "padding": 60, "cornerRadius": 30}}]}"##
        )
        #expect(rounded.status == 200, "\(rounded.text)")
        #expect(try client.library.collage(id).collage.items.map(\.frame) == after.items.map(\.frame))
    }

    @Test func twoPhotosTradingPlacesKeepTheTreeAndTakeEachOthersShape() throws {
        let (client, id, aspects) = try collage()
        let before = try client.library.collage(id).collage
        let (first, second) = (before.items[0], before.items[3])
        let swapped = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "swapContents", "first": "\#(first.id)", "second": "\#(second.id)"}]}"#)
        #expect(swapped.status == 200, "\(swapped.text)")
        let after = try client.library.collage(id).collage
        #expect(after.arrangement != nil)
        #expect(Self.relations(after.items) == Self.relations(before.items))
        // Each photo is in the other's place, and its frame has been refitted to its shape.
        #expect(after.items[0].content == second.content && after.items[3].content == first.content)
        for item in after.items {
            let aspect = try #require(item.content.reference.flatMap { aspects[$0] })
            let ratio = (item.frame.width / item.frame.height) / aspect
            #expect(ratio > 0.89 && ratio < 1.12, "\(item.id): \(ratio)")
        }
    }

    /// Replace shows another photo in the same item, its frame refitted to the new shape in the
    /// same tree; a photo the library lacks is refused and nothing changes.
    @Test func aReplacedPhotoKeepsItsItemAndTheTreeTakesItsShape() throws {
        let (client, id, aspects) = try collage()
        let before = try client.library.collage(id).collage
        let (target, other) = (before.items[0], before.items[3])
        let otherPhoto = try #require(other.content.reference)
        let replaced = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "replacePhoto", "id": "\#(target.id)", "photo": "\#(otherPhoto)"}]}"#)
        #expect(replaced.status == 200, "\(replaced.text)")
        let after = try client.library.collage(id).collage
        #expect(after.items.map(\.id) == before.items.map(\.id))
        #expect(after.items[0].content == other.content && after.arrangement != nil)
        #expect(Self.relations(after.items) == Self.relations(before.items))
        let ratio = (after.items[0].frame.width / after.items[0].frame.height) / (aspects[otherPhoto] ?? 1)
        #expect(ratio > 0.89 && ratio < 1.12, "\(ratio)")
        let unknown = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "replacePhoto", "id": "\#(target.id)", "photo": "ffffff0000"}]}"#)
        #expect(unknown.status == 404 || unknown.status == 422, "\(unknown.status): \(unknown.text)")
        #expect(try client.library.collage(id).collage == after, "nothing changed")
    }

    /// In a fixed layout too, Replace shows only a photo the library has (it was stored blind
    /// there), named by its full id when a prefix names it; photos given with no template are
    /// laid out for their shapes.
    @Test func aReplacedPhotoMustBeInTheLibrary() throws {
        let (client, _, aspects) = try collage()
        let photos = aspects.keys.sorted()
        let list = photos.prefix(2).map { "\"\($0)\"" }.joined(separator: ", ")
        let grid = try client.json("POST", "/api/collages", #"{"template": "grid2x2", "photos": [\#(list)]}"#)
        let id = try #require(grid.json["collage"]["id"].string)
        let untemplated = try client.json("POST", "/api/collages", #"{"photos": [\#(list)]}"#)
        #expect(
            untemplated.status == 201 && untemplated.json["collage"]["template"].string == nil, "\(untemplated.text)")
        #expect(untemplated.json["collage"]["arrangement"].value != nil, "\(untemplated.text)")
        let item = try #require(grid.json["collage"]["items"][0]["id"].string)
        let unknown = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "replacePhoto", "id": "\#(item)", "photo": "deadbeefdead"}]}"#)
        #expect(unknown.status == 404, "\(unknown.status): \(unknown.text)")
        #expect(try client.library.collage(id).version == 1, "nothing stored")
        let prefix = String(photos[3].prefix(8))
        let replaced = try client.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "replacePhoto", "id": "\#(item)", "photo": "\#(prefix)"}]}"#)
        #expect(replaced.status == 200, "\(replaced.text)")
        #expect(try client.library.collage(id).collage.item(item)?.content == .photo(photos[3]))
    }

    @Test func tooManyPhotosForASmartLayoutIsTheSameAnswerOnCreateAndArrange() throws {
        let (client, id, _) = try collage()
        let ids = (0..<41).map { "\"p\($0)\"" }.joined(separator: ", ")
        let created = try client.json("POST", "/api/collages", #"{"template": "auto", "photos": [\#(ids)]}"#)
        #expect(created.status == 422, "\(created.text)")
        #expect(created.text.contains("arranges 1 to 40 photos, got 41"), "\(created.text)")
        #expect(try client.library.collages().count == 1, "nothing stored")
        _ = id
    }

    @Test func aNewSmartCollageThatCannotBeLaidOutIsNotStored() throws {
        let client = try AppClient()
        let upload = try client.upload([("a.jpg", try client.photoData([200, 10, 10]))])
        let photo = try #require(upload.json["photos"][0]["id"].string)
        let many = Array(repeating: "\"\(photo)\"", count: 41).joined(separator: ", ")
        let refused = try client.json("POST", "/api/collages", #"{"template": "auto", "photos": [\#(many)]}"#)
        #expect(refused.status >= 400 && refused.status < 500, "\(refused.text)")
        #expect(try client.library.collages().isEmpty)
        let one = try client.json("POST", "/api/collages", #"{"template": "auto", "photos": ["\#(photo)"]}"#)
        #expect(one.status == 201 && one.json["version"].number == 1)
    }
}
