import CollageCore
import CollageRender
import Foundation
import Testing

@Suite("Rendering: shapes, borders and shadows")
struct RenderFrameTests {
    /// A grey canvas of 300 × 300 points with one green photo in a 200-point frame at (50, 50).
    func render(
        _ look: ItemLook, cornerRadius: Double = 0, degrees: Double = 0, name: String = "framed.png"
    ) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        let file = try fixtures.solid("green.png", [30, 200, 60], width: 400, height: 400)
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: Size(width: 300, height: 300))
        var style = collage.style
        style.background = .color(Color(red: 128, green: 128, blue: 128))
        style.cornerRadius = cornerRadius
        collage = try collage.applying([
            .setStyle(style),
            .addItem(id: "p", content: .photo(file.path), frame: Rect(x: 50, y: 50, width: 200, height: 200)),
            .setLook(id: "p", look: look), .rotateItem(id: "p", degrees: degrees),
        ])
        return try fixtures.render(collage, name, options: RenderOptions(size: .scale(1), format: .png))
    }

    let grey: [UInt8] = [128, 128, 128]
    let green: [UInt8] = [30, 200, 60]

    @Test func everyShapeCutsThePhotoAndLeavesTheFramesCornersToTheBackground() throws {
        for shape in PhotoShape.allCases where shape != .rectangle {
            let image = try render(ItemLook(shape: shape), name: "\(shape).png")
            #expect(close(Array(image[150, 150].prefix(3)), green), "\(shape): the centre is the photo")
            #expect(close(Array(image[52, 52].prefix(3)), grey), "\(shape): the frame's corner is the background")
            // Each point Core says is inside (or outside) is drawn so, away from the edge.
            let outline = shape.outline(in: Size(width: 200, height: 200))
            var wrong = 0
            for y in stride(from: 55, to: 250, by: 10) {
                for x in stride(from: 55, to: 250, by: 10) {
                    let unit = Point(x: (Double(x) + 0.5 - 50) / 200, y: (Double(y) + 0.5 - 50) / 200)
                    let inside = PhotoShape.contains(unit, outline: outline)
                    let nearEdge = [(-2.0, 0.0), (2, 0), (0, -2), (0, 2)].contains { dx, dy in
                        PhotoShape.contains(Point(x: unit.x + dx / 200, y: unit.y + dy / 200), outline: outline)
                            != inside
                    }
                    if !nearEdge, close(Array(image[x, y].prefix(3)), inside ? green : grey) == false { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(shape): \(wrong) points drawn on the wrong side of the outline")
        }
    }

    @Test func aHeartIsAsWideAsItIsTallInAWideFrameAndCentred() throws {
        let outline = PhotoShape.heart.outline(in: Size(width: 400, height: 200))
        let xs = outline.map(\.x)
        let ys = outline.map(\.y)
        #expect(abs(((xs.min() ?? 0) + (xs.max() ?? 0)) / 2 - 0.5) < 0.001, "centred")
        #expect(abs((ys.max() ?? 0) - (ys.min() ?? 0) - 1) < 0.001, "as tall as the frame")
        let width = ((xs.max() ?? 0) - (xs.min() ?? 0)) * 400
        #expect(width > 200 && width < 240, "keeps its own proportions: \(width) points wide")
    }

    @Test func aLineBorderRunsInsideTheShapesEdgeInItsColour() throws {
        let red = Color(red: 220, green: 20, blue: 20)
        let image = try render(ItemLook(shape: .circle, border: PhotoBorder(width: 10, color: red)))
        // The circle's leftmost point is at x = 50: the band from 50 to 60 is the border.
        #expect(close(Array(image[55, 150].prefix(3)), [220, 20, 20]), "\(image[55, 150])")
        #expect(close(Array(image[66, 150].prefix(3)), green), "the photo inside the line")
        #expect(close(Array(image[47, 150].prefix(3)), grey), "nothing outside the frame")
        let square = try render(ItemLook(border: PhotoBorder(width: 10, color: red)), cornerRadius: 30)
        #expect(close(Array(square[55, 150].prefix(3)), [220, 20, 20]))
        #expect(close(Array(square[51, 51].prefix(3)), grey), "the collage's corners round the border too")
    }

    @Test func aPolaroidIsACardWithTheDeepMarginAtTheBottom() throws {
        let image = try render(ItemLook(border: PhotoBorder(style: .polaroid, width: 10, color: .white)))
        #expect(close(Array(image[150, 55].prefix(3)), [255, 255, 255]), "the top margin")
        #expect(close(Array(image[150, 65].prefix(3)), green), "the photo below it")
        // 3.5 × 10 points at the bottom: from y = 215 to 250.
        #expect(close(Array(image[150, 225].prefix(3)), [255, 255, 255]), "the deep bottom margin")
        #expect(close(Array(image[150, 205].prefix(3)), green))
        // A shape cuts the photo on the card, not the card.
        let heart = try render(
            ItemLook(shape: .heart, border: PhotoBorder(style: .polaroid, width: 10, color: .white)), name: "h.png")
        #expect(close(Array(heart[62, 62].prefix(3)), [255, 255, 255]), "the card around the heart: \(heart[62, 62])")
        #expect(close(Array(heart[150, 140].prefix(3)), green))
    }

    @Test func aShadowFallsWhereItsOffsetSaysAndFadesWithItsBlur() throws {
        let shadow = DropShadow(
            color: Color(red: 0, green: 0, blue: 0, alpha: 160), blur: 4, offset: Point(x: 0, y: 20))
        let image = try render(ItemLook(shadow: shadow))
        let below = Int(image[150, 262][0])
        let above = Int(image[150, 40][0])
        #expect(below < 100, "the shadow darkens the grey below the photo: \(below)")
        #expect(above >= 126, "and not above it: \(above)")
        #expect(close(Array(image[150, 150].prefix(3)), green), "the photo stays on top")
        // A shaped photo's shadow has its shape: the corner of the frame casts none.
        let heart = try render(ItemLook(shape: .heart, shadow: shadow), name: "hs.png")
        #expect(Int(heart[52, 72][0]) >= 124, "\(heart[52, 72])")
    }

    @Test func theDrawnPhotoForTheEditorIsTheExportsCellWithItsShadowMargin() throws {
        let fixtures = try RenderFixtures()
        try fixtures.solid("green.png", [30, 200, 60], width: 400, height: 400)
        let shadow = DropShadow(
            color: Color(red: 0, green: 0, blue: 0, alpha: 160), blur: 4, offset: Point(x: 6, y: 20))
        let item = CollageItem(
            id: "p", content: .photo("green.png"), frame: Rect(x: 0, y: 0, width: 200, height: 200),
            look: ItemLook(flipsHorizontally: true, shape: .star, shadow: shadow))
        let drawn = try CollageRenderer().writeDrawnItem(
            item, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), scale: 1, cornerRadius: 12,
            to: fixtures.url("d.png"))
        // Blurred 4 points (13 points of reach), 6 to the right and 20 down: grown alike on
        // opposite sides, so the drawing's centre is the frame's.
        #expect(drawn.offsetX == -19 && drawn.offsetY == -33, "\(drawn)")
        #expect(drawn.width == 200 + 2 * 19 && drawn.height == 200 + 2 * 33)
        #expect(drawn.width + drawn.offsetX > 206 && drawn.height + drawn.offsetY > 220)
        let cell = try Bitmap.read(fixtures.url("d.png"))
        #expect(cell.channels == 4)
        #expect(cell[-drawn.offsetX + 2, -drawn.offsetY + 2][3] == 0, "the star leaves the corner clear")
        #expect(close(Array(cell[-drawn.offsetX + 100, -drawn.offsetY + 110].prefix(3)), [30, 200, 60]))
    }

    /// A shadow reaching one way grows the drawing that way; turned, the photo still turns about
    /// its frame's centre, where the editor (and hit-testing) has it.
    @Test func aTurnedPhotoWithAShadowStaysInItsFrame() throws {
        let shadow = DropShadow(
            color: Color(red: 0, green: 0, blue: 0, alpha: 160), blur: 2, offset: Point(x: 0, y: 30))
        let image = try render(ItemLook(shadow: shadow), degrees: 180, name: "turned-shadow.png")
        for (x, y) in [(56, 56), (244, 244), (56, 244), (244, 56), (150, 150)] {
            #expect(close(Array(image[x, y].prefix(3)), green), "(\(x), \(y)): \(image[x, y])")
        }
        // Turned upside down, the shadow falls upwards, in the item's own directions.
        #expect(Int(image[150, 40][0]) < 100, "\(image[150, 40])")
        #expect(Int(image[150, 262][0]) >= 124, "\(image[150, 262])")
    }

    @Test func aFramedPhotoTurnedKeepsItsBorderAndShape() throws {
        let image = try render(
            ItemLook(shape: .hexagon, border: PhotoBorder(width: 8, color: .black)), degrees: 30, name: "t.png")
        #expect(close(Array(image[150, 150].prefix(3)), green))
        #expect(close(Array(image[52, 52].prefix(3)), grey))
    }
}
