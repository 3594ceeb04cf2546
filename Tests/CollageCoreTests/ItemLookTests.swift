import CollageCore
import Foundation
import Testing

@Suite("An item's look: flip and opacity")
struct ItemLookTests {
    @Test func aLookIsSetKeptThroughADuplicateAndSwappedWithWhatItemsShow() throws {
        var collage = try Fixtures.collage()
        let look = ItemLook(flipsHorizontally: true, opacity: 0.4)
        collage = try collage.applying([
            .setLook(id: "p0", look: look), .duplicateItem(id: "p0", newID: "copy"),
            .swapContents(first: "p0", second: "p3"),
        ])
        #expect(collage.item("copy")?.look == look, "a duplicate keeps its original's look")
        #expect(collage.item("p3")?.look == look && collage.item("p3")?.content == .photo("photo0.jpg"))
        #expect(collage.item("p0")?.look == .plain, "the look went with the photo")
        collage = try collage.applying(.setLook(id: "p3", look: .plain))
        #expect(collage.item("p3")?.look.isPlain == true)
    }

    @Test func aBadLookIsRefusedWithWhatWasWrongAndChangesNothing() throws {
        var collage = try Fixtures.collage()
        collage = try collage.applying(.addItem(id: "t", content: .text(TextBlock(text: "Hi")), frame: nil))
        for opacity in [-0.1, 1.5, .nan, .infinity, 1e300] {
            #expect(throws: EditError.self) {
                try collage.applying(.setLook(id: "p0", look: ItemLook(opacity: opacity)))
            }
        }
        do {
            _ = try collage.applying(.setLook(id: "p0", look: ItemLook(opacity: 2)))
        } catch {
            #expect(error.description == "opacity must be a number from 0 to 1, got 2")
        }
        #expect(throws: EditError.invalidLook("a text is not flipped; only photos and stickers are")) {
            try collage.applying(.setLook(id: "t", look: ItemLook(flipsVertically: true)))
        }
        // A text may still fade.
        let faded = try collage.applying(.setLook(id: "t", look: ItemLook(opacity: 0.5)))
        #expect(faded.item("t")?.look.opacity == 0.5)
        #expect(throws: EditError.unknownItem("nope")) { try collage.applying(.setLook(id: "nope", look: .plain)) }
    }

    @Test func aDocumentWritesOnlyWhatDiffersAndIsVersionFourOnlyWithALook() throws {
        var collage = try Fixtures.collage()
        #expect(CollageDocument.oldestVersion(holding: collage) == 1)
        collage = try collage.applying(.setLook(id: "p1", look: ItemLook(flipsVertically: true, opacity: 0.25)))
        #expect(CollageDocument.oldestVersion(holding: collage) == 4)
        let text = String(decoding: CollageDocument.encode(collage, pretty: false), as: UTF8.self)
        #expect(text.contains(#""look":{"flipVertical":true,"opacity":0.25}"#))
        #expect(!text.contains("flipHorizontal"), "a plain field is left out")
        #expect(try CollageDocument.decode(CollageDocument.encode(collage)) == collage)
    }

    @Test func aDocumentsBadLookIsNamedByItsPath() throws {
        let collage = try Fixtures.collage()
        guard case .object(var members) = CollageDocument.jsonValue(of: collage),
            case .array(var items) = members["items"], case .object(var first) = items[0]
        else { Issue.record("not an object"); return }
        first["look"] = .object(["opacity": .number(7), "flipHorizontal": .string("yes"), "blur": .number(1)])
        items[0] = .object(first)
        members["items"] = .array(items)
        do {
            _ = try CollageDocument.decode(.object(members))
            Issue.record("a bad look was read")
        } catch {
            let messages = error.issues.map(\.description)
            #expect(messages.contains { $0.hasPrefix("items[0].look.opacity: expected a number from 0 to 1") })
            #expect(messages.contains("items[0].look.flipHorizontal: expected true or false, got \"yes\""))
            #expect(messages.contains { $0.hasPrefix("items[0].look.blur: unknown field") })
        }
    }

    @Test func theEditReadsFromJSONAndSaysWhatIsMissing() throws {
        let edits = try EditCodec.decode(Data(#"{"op": "setLook", "id": "a", "look": {"flipHorizontal": true}}"#.utf8))
        #expect(edits == [.setLook(id: "a", look: ItemLook(flipsHorizontally: true))])
        #expect(
            try EditCodec.decode(Data(#"{"op": "setLook", "id": "a", "look": {}}"#.utf8)) == [
                .setLook(id: "a", look: .plain)
            ])
        do {
            _ = try EditCodec.decode(Data(#"{"op": "setLook", "id": "a"}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(error.issues.map(\.description).contains { $0.hasPrefix("look: is required") })
        }
    }
}
