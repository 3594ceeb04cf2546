import CollageCore
import Foundation
import Testing

@Suite("A photo's shape, border and shadow")
struct PhotoFrameTests {
    @Test func everyShapeIsAClosedOutlineFillingItsFrameOrCentredInIt() {
        for shape in PhotoShape.allCases {
            for size in [Size(width: 300, height: 300), Size(width: 600, height: 200), Size(width: 150, height: 420)] {
                let outline = shape.outline(in: size, cornerRadius: 20)
                #expect(outline.count >= 4, "\(shape)")
                let xs = outline.map(\.x)
                let ys = outline.map(\.y)
                #expect((xs.min() ?? -1) >= 0 && (xs.max() ?? 2) <= 1 && (ys.min() ?? -1) >= 0 && (ys.max() ?? 2) <= 1)
                #expect(PhotoShape.contains(Point(x: 0.5, y: 0.55), outline: outline), "\(shape): its middle is inside")
                let touches =
                    shape.keepsProportions
                    ? abs((xs.max() ?? 0) - (xs.min() ?? 0) - 1) < 1e-3
                        || abs((ys.max() ?? 0) - (ys.min() ?? 0) - 1) < 1e-3
                    : abs((xs.max() ?? 0) - (xs.min() ?? 0) - 1) < 1e-3
                        && abs((ys.max() ?? 0) - (ys.min() ?? 0) - 1) < 1e-3
                #expect(touches, "\(shape) in \(size): as large as the frame allows")
            }
        }
        let circle = PhotoShape.circle.outline(in: Size(width: 600, height: 200))
        let width = ((circle.map(\.x).max() ?? 0) - (circle.map(\.x).min() ?? 0)) * 600
        #expect(abs(width - 200) < 0.1, "a circle stays round in a wide frame: \(width)")
        #expect(PhotoShape.named("heart") == .heart && PhotoShape.named("Heart") == nil)
    }

    @Test func clicksLandOnlyInsideAShapedPhoto() throws {
        var collage = try Fixtures.collage(template: nil, photos: 0)
        collage = try collage.applying([
            .addItem(id: "under", content: .photo("u.jpg"), frame: Rect(x: 100, y: 100, width: 400, height: 400)),
            .addItem(id: "heart", content: .photo("h.jpg"), frame: Rect(x: 100, y: 100, width: 400, height: 400)),
            .setLook(id: "heart", look: ItemLook(shape: .heart)),
        ])
        #expect(collage.topmostItem(at: Point(x: 300, y: 300))?.id == "heart")
        #expect(
            collage.topmostItem(at: Point(x: 110, y: 480))?.id == "under", "the heart's corner reaches the photo below")
        #expect(collage.topmostItem(at: Point(x: 300, y: 105))?.id == "under", "the notch at the top")
        // Turned, the outline turns with it.
        collage = try collage.applying(.rotateItem(id: "heart", degrees: 180))
        #expect(collage.topmostItem(at: Point(x: 300, y: 495))?.id == "under")
        #expect(collage.topmostItem(at: Point(x: 300, y: 135))?.id == "heart", "the point, now at the top")
        // A polaroid card takes clicks anywhere on it, whatever its photo's shape.
        collage = try collage.applying(
            .setLook(id: "heart", look: ItemLook(shape: .heart, border: PhotoBorder(style: .polaroid))))
        #expect(collage.topmostItem(at: Point(x: 110, y: 110))?.id == "heart")
    }

    @Test func aFramedLookSurvivesTheDocumentAsVersionFive() throws {
        var collage = try Fixtures.collage()
        let look = ItemLook(
            shape: .star,
            border: PhotoBorder(style: .polaroid, width: 14, color: Color(red: 250, green: 240, blue: 220)),
            shadow: DropShadow(color: Color(red: 0, green: 0, blue: 0, alpha: 90), blur: 9, offset: Point(x: 3, y: 7)))
        collage = try collage.applying(.setLook(id: "p1", look: look))
        let data = CollageDocument.encode(collage)
        let text = String(decoding: data, as: UTF8.self).filter { !$0.isWhitespace }
        #expect(text.contains(#""version":5"#), "\(text.prefix(200))")
        #expect(text.contains(#""shape":"star""#))
        #expect(text.contains("polaroid"))
        #expect(try CollageDocument.decode(data).item("p1")?.look == look)
        // Without a frame the document stays at the version older builds read.
        var plain = collage
        plain.items[1].look = ItemLook(opacity: 0.5)
        #expect(CollageDocument.oldestVersion(holding: plain) == 4)
    }

    @Test(arguments: [
        (#"{"shape": "hearts"}"#, "items[0].look.shape: no shape named \"hearts\""),
        (#"{"border": {"width": 1e300}}"#, "items[0].look.border.width: expected a width in points from 0.5 to 200"),
        (#"{"border": {"style": "dashed"}}"#, "items[0].look.border.style: expected line or polaroid"),
        (#"{"border": {"color": "red-ish"}}"#, "items[0].look.border.color: expected a colour"),
        (#"{"shadow": {"blur": 1e300}}"#, "items[0].look: shadow.blur must be a blur in points from 0 to 100"),
        (#"{"shadow": {"x": "far"}}"#, "items[0].look.shadow.x: expected a number"),
        (#"{"shape": 7}"#, "items[0].look.shape: expected a string"),
    ])
    func aBadFrameInADocumentNamesItsField(look: String, message: String) throws {
        let text = """
            {"format": "collage", "version": 5, "id": "c", "title": "t", "created": "2026-01-01T00:00:00.000Z",
             "updated": "2026-01-01T00:00:00.000Z", "canvas": {"width": 100, "height": 100},
             "style": {"background": "#ffffff", "spacing": 0, "padding": 0, "cornerRadius": 0},
             "items": [{"id": "p", "content": {"type": "photo", "ref": "a.jpg"},
                        "frame": {"x": 0, "y": 0, "width": 50, "height": 50}, "look": \(look)}]}
            """
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("\(look) was read")
        } catch {
            #expect(error.description.hasPrefix(message), "\(error.description)")
        }
    }

    @Test func onlyPhotosTakeAShapeABorderOrAShadow() throws {
        var collage = try Fixtures.collage()
        collage = try collage.applying([
            .addItem(id: "t", content: .text(TextBlock(text: "Hi")), frame: nil),
            .addItem(id: "s", content: .sticker("s.png"), frame: nil),
        ])
        for id in ["t", "s"] {
            #expect(throws: EditError.self) { try collage.applying(.setLook(id: id, look: ItemLook(shape: .heart))) }
            #expect(throws: EditError.self) {
                try collage.applying(.setLook(id: id, look: ItemLook(border: PhotoBorder())))
            }
        }
        #expect(throws: EditError.self) {
            try collage.applying(.setLook(id: "p0", look: ItemLook(border: PhotoBorder(width: .infinity))))
        }
        #expect(throws: EditError.self) {
            try collage.applying(
                .setLook(id: "p0", look: ItemLook(shadow: DropShadow(blur: 1e300))))
        }
    }

    @Test func shapedLayoutsGiveTheirPhotosTheirShapesAndTakeThemBack() throws {
        var collage = try Fixtures.collage(template: "hearts", photos: 3)
        #expect(collage.items.allSatisfy { $0.look.shape == .heart }, "photos added to the hearts layout are hearts")
        // A shape the person chose stays through a change of layout; the layout's own go with it.
        collage = try collage.applying(.setLook(id: "p1", look: ItemLook(shape: .star)))
        collage = try collage.applying(.applyTemplate(id: "grid2x2"))
        #expect(collage.item("p0")?.look.shape == .rectangle && collage.item("p2")?.look.shape == .rectangle)
        #expect(collage.item("p1")?.look.shape == .star)
        collage = try collage.applying(.applyTemplate(id: "bubbles"))
        #expect(collage.item("p0")?.look.shape == .circle && collage.item("p1")?.look.shape == .star)
        let templates = Template.catalog.filter { !$0.shapes.isEmpty }
        #expect(templates.count >= 2)
        for template in templates { #expect(template.shapes.count == template.slotCount, "\(template.id)") }
    }
}
