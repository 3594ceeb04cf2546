import CollageCore
import Foundation
import Testing

@Suite("Edits as JSON")
struct EditCodecTests {
    static let everyEdit: [Edit] = [
        .addItem(id: "a", content: .photo("p.jpg"), frame: Rect(x: 1, y: 2, width: 30, height: 40)),
        .addItem(id: "b", content: .sticker("s.png"), frame: nil), .removeItem(id: "a"),
        .duplicateItem(id: "a", newID: "a-copy"), .moveItem(id: "a", origin: Point(x: -5, y: 7.5)),
        .resizeItem(id: "a", frame: Rect(x: 0, y: 0, width: 50, height: 60)),
        .rotateItem(id: "a", degrees: -30), .reorder(id: "a", move: .back), .swapContents(first: "a", second: "b"),
        .placeInSlot(id: "a", slot: 2),
        .applyTemplate(id: "strip"),
        .arrange(
            frames: ["a": Rect(x: 1, y: 2, width: 30, height: 40), "b": Rect(x: 40, y: 2, width: 20, height: 40)],
            arrangement: Arrangement(seed: 7, hero: "a", maximumCrop: 0.05, keepsOrder: false)),
        .setStyle(Style(background: .transparent, spacing: 3, padding: 4, cornerRadius: 5)),
        .setAspect(AspectRatio.square), .setCrop(id: "a", crop: Crop(focus: Point(x: 0.1, y: 0.2), zoom: 2)),
        .setCrop(id: "a", crop: nil), .setStickerStyle(id: "b", style: StickerStyle(outlineWidth: 8, shadow: false)),
        .setStickerStyle(id: "b", style: nil), .replaceSticker(id: "b", sticker: "refined"),
        .replacePhoto(id: "a", photo: "other.jpg"),
        .rename(title: "New title"),
        .setLook(id: "a", look: ItemLook(flipsHorizontally: true, flipsVertically: true, opacity: 0.3)),
        .setLook(id: "a", look: .plain),
        .setText(
            id: "t",
            text: TextBlock(
                text: "Two\nlines", font: "Lobster Two", weight: 700, italic: true, size: 48,
                color: Color(red: 200, green: 10, blue: 20), alignment: .right, lineSpacing: 1.4, letterSpacing: 0.05,
                background: TextBackground(color: .black, opacity: 0.5, cornerRadius: 8, padding: 6),
                outline: TextOutline(color: .white, width: 3),
                shadow: DropShadow(
                    color: Color(red: 0, green: 0, blue: 0, alpha: 90), blur: 5, offset: Point(x: 1, y: 3)))),
        .setText(id: "t", text: TextBlock(text: "plain")),
    ]

    @Test func everyEditRoundTrips() throws {
        let json = JSONValue.array(Self.everyEdit.map(EditCodec.jsonValue(of:)))
        #expect(try EditCodec.decode(Data(json.serialized().utf8)) == Self.everyEdit)
        #expect(EditCodec.operations.count == 20, "every case of Edit has an operation name")
    }

    @Test func aSingleObjectIsOneEdit() throws {
        #expect(try EditCodec.decode(Data(#"{"op": "rename", "title": "x"}"#.utf8)) == [.rename(title: "x")])
    }

    @Test func problemsAreReportedWithTheirPaths() {
        let text =
            #"[{"op": "rotateItem", "id": "a"}, {"op": "reorder", "id": "a", "move": "up"}, {"op": "fly"}, {"op": "rename", "title": "t", "colour": 1}]"#
        do {
            _ = try EditCodec.decode(Data(text.utf8))
            Issue.record("decoded")
        } catch {
            let messages = error.issues.map(\.description)
            #expect(messages.contains("[0].degrees: is required"))
            #expect(messages.contains("[1].move: expected one of forward, backward, front, back, got \"up\""))
            #expect(messages.contains { $0.hasPrefix("[2].op: unknown operation \"fly\"") })
            #expect(messages.contains { $0.hasPrefix("[3].colour: unknown field") })
        }
    }
}
