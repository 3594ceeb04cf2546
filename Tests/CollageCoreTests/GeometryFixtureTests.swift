import CollageCore
import Foundation
import Testing

/// The page runs a little collage geometry itself during live gestures (`geometry.js`: crop
/// rectangles, hit-testing). These cases are computed here by CollageCore and written to
/// `.build/fixtures/geometry.json`; the browser tests load them into the real editor page and
/// expect the same answers, so a change on either side that makes them disagree fails.
@Suite("Geometry fixtures for the page")
struct GeometryFixtureTests {
    static let fixtureFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/fixtures/geometry.json")

    static func rect(_ rect: Rect) -> JSONValue { CollageDocument.jsonValue(of: rect) }
    static func size(_ size: Size) -> JSONValue {
        .object(["width": .number(size.width), "height": .number(size.height)])
    }

    static func cropCases() -> [JSONValue] {
        let images = [Size(width: 4000, height: 3000), Size(width: 1080, height: 1920), Size(width: 512, height: 512)]
        let frames = [Size(width: 300, height: 300), Size(width: 600, height: 200), Size(width: 150, height: 420)]
        let crops = [
            Crop.centered, Crop(focus: Point(x: 0, y: 0)), Crop(focus: Point(x: 1, y: 1), zoom: 2),
            Crop(focus: Point(x: 0.3, y: 0.8), zoom: 3.7), Crop(focus: Point(x: -2, y: 5), zoom: 0.5),
        ]
        var cases: [JSONValue] = []
        for image in images {
            for frame in frames {
                for crop in crops {
                    let expected = CropMath.sourceRect(imageSize: image, frameSize: frame, crop: crop)
                    cases.append(
                        .object([
                            "image": size(image), "frame": size(frame), "crop": CollageDocument.jsonValue(of: crop),
                            "expected": rect(expected),
                        ]))
                }
            }
        }
        return cases
    }

    /// Two sets: plain frames, and photos cut to shapes (turned, overlapping, over the edge),
    /// each item with the outline the server's layout gives the page.
    static func hitCases() throws -> [JSONValue] {
        let plain: [(String, Rect, Double, ItemLook)] = [
            ("a", Rect(x: 100, y: 100, width: 400, height: 300), 0, .plain),
            ("b", Rect(x: 300, y: 200, width: 400, height: 300), 30, .plain),
            ("c", Rect(x: 600, y: 100, width: 200, height: 500), -75, .plain),
            ("d", Rect(x: -100, y: 500, width: 300, height: 400), 180, .plain),
        ]
        let shaped: [(String, Rect, Double, ItemLook)] = [
            ("plain", Rect(x: 50, y: 50, width: 900, height: 700), 0, .plain),
            ("heart", Rect(x: 100, y: 100, width: 400, height: 300), 20, ItemLook(shape: .heart)),
            ("star", Rect(x: 350, y: 150, width: 350, height: 420), -35, ItemLook(shape: .star)),
            ("circle", Rect(x: 600, y: 80, width: 500, height: 200), 0, ItemLook(shape: .circle)),
            ("blob", Rect(x: -120, y: 450, width: 400, height: 380), 95, ItemLook(shape: .blob)),
            ("arch", Rect(x: 500, y: 420, width: 300, height: 380), 180, ItemLook(shape: .arch)),
            (
                "card", Rect(x: 250, y: 500, width: 200, height: 250), 10,
                ItemLook(shape: .hexagon, border: PhotoBorder(style: .polaroid))
            ),
        ]
        return [try hitSet(plain), try hitSet(shaped)]
    }

    static func hitSet(_ frames: [(String, Rect, Double, ItemLook)]) throws -> JSONValue {
        var collage = Collage(
            id: "g", title: "g", created: Date(timeIntervalSince1970: 0), canvas: Size(width: 1000, height: 800))
        for (id, frame, degrees, look) in frames {
            collage = try collage.applying(.addItem(id: id, content: .photo("\(id).jpg"), frame: frame))
            collage = try collage.applying(.rotateItem(id: id, degrees: degrees))
            collage = try collage.applying(.setLook(id: id, look: look))
        }
        var points: [Point] = []
        for y in stride(from: -50.0, through: 850, by: 37) {
            for x in stride(from: -50.0, through: 1050, by: 41) { points.append(Point(x: x, y: y)) }
        }
        for y in stride(from: 80.0, through: 520, by: 7) {
            for x in stride(from: 90.0, through: 720, by: 9) { points.append(Point(x: x, y: y)) }
        }
        // Corners and edges, where a naive test and a careful one part ways.
        points += [Point(x: 100, y: 100), Point(x: 500, y: 400), Point(x: 499.999, y: 399.999)]
        let items = JSONValue.array(
            collage.items.map { item in
                var members: [String: JSONValue] = [
                    "id": .string(item.id), "frame": rect(item.frame), "rotation": .number(item.rotation.degrees),
                ]
                if let outline = item.look.hitOutline(in: item.frame.size) {
                    members["outline"] = CollageDocument.flatJSONValue(of: outline)
                }
                return .object(members)
            })
        return
            .object([
                "items": items,
                "points": .array(
                    points.map { point in
                        .object([
                            "x": .number(point.x), "y": .number(point.y),
                            "expected": collage.topmostItem(at: point).map { .string($0.id) } ?? .null,
                        ])
                    }),
            ])
    }

    /// The shaped set is worth its name: many of its points land on another item than the
    /// frames alone would say.
    @Test func shapesChangeWhatManyPointsHit() throws {
        guard case .object(let set)? = try Self.hitCases().last, case .array(let points)? = set["points"] else {
            Issue.record("no points")
            return
        }
        var collage = Collage(
            id: "g", title: "g", created: Date(timeIntervalSince1970: 0), canvas: Size(width: 1000, height: 800))
        let frames: [(String, Rect, Double)] = [
            ("plain", Rect(x: 50, y: 50, width: 900, height: 700), 0),
            ("heart", Rect(x: 100, y: 100, width: 400, height: 300), 20),
            ("star", Rect(x: 350, y: 150, width: 350, height: 420), -35),
            ("circle", Rect(x: 600, y: 80, width: 500, height: 200), 0),
            ("blob", Rect(x: -120, y: 450, width: 400, height: 380), 95),
            ("arch", Rect(x: 500, y: 420, width: 300, height: 380), 180),
            ("card", Rect(x: 250, y: 500, width: 200, height: 250), 10),
        ]
        for (id, frame, degrees) in frames {
            collage = try collage.applying([
                .addItem(id: id, content: .photo("\(id).jpg"), frame: frame), .rotateItem(id: id, degrees: degrees),
            ])
        }
        var differ = 0
        for case .object(let point) in points {
            guard case .number(let x)? = point["x"], case .number(let y)? = point["y"] else { continue }
            let framesOnly = collage.topmostItem(at: Point(x: x, y: y)).map { JSONValue.string($0.id) } ?? .null
            if framesOnly != point["expected"] { differ += 1 }
        }
        #expect(differ > 200, "\(differ) points")
    }

    @Test func writeTheFixtures() throws {
        let crops = Self.cropCases()
        let hits = try Self.hitCases()
        #expect(crops.count == 45 && hits.count == 2)
        let fixtures = JSONValue.object(["sourceRect": .array(crops), "topmostItem": .array(hits)])
        try FileManager.default.createDirectory(
            at: Self.fixtureFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(fixtures.serialized(pretty: false).utf8).write(to: Self.fixtureFile)
        #expect(try JSONValue.parse(Data(contentsOf: Self.fixtureFile)) == fixtures)
    }
}
