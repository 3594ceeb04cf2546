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

    static func hitCases() throws -> [JSONValue] {
        var collage = Collage(
            id: "g", title: "g", created: Date(timeIntervalSince1970: 0), canvas: Size(width: 1000, height: 800))
        let frames: [(String, Rect, Double)] = [
            ("a", Rect(x: 100, y: 100, width: 400, height: 300), 0),
            ("b", Rect(x: 300, y: 200, width: 400, height: 300), 30),
            ("c", Rect(x: 600, y: 100, width: 200, height: 500), -75),
            ("d", Rect(x: -100, y: 500, width: 300, height: 400), 180),
        ]
        for (id, frame, degrees) in frames {
            collage = try collage.applying(.addItem(id: id, content: .photo("\(id).jpg"), frame: frame))
            collage = try collage.applying(.rotateItem(id: id, degrees: degrees))
        }
        var points: [Point] = []
        for y in stride(from: -50.0, through: 850, by: 37) {
            for x in stride(from: -50.0, through: 1050, by: 41) { points.append(Point(x: x, y: y)) }
        }
        // Corners and edges, where a naive test and a careful one part ways.
        points += [Point(x: 100, y: 100), Point(x: 500, y: 400), Point(x: 499.999, y: 399.999)]
        let items = JSONValue.array(
            collage.items.map { item in
                .object(["id": .string(item.id), "frame": rect(item.frame), "rotation": .number(item.rotation.degrees)])
            })
        return [
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
        ]
    }

    @Test func writeTheFixtures() throws {
        let crops = Self.cropCases()
        let hits = try Self.hitCases()
        #expect(crops.count == 45 && hits.count == 1)
        let fixtures = JSONValue.object(["sourceRect": .array(crops), "topmostItem": .array(hits)])
        try FileManager.default.createDirectory(
            at: Self.fixtureFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(fixtures.serialized(pretty: false).utf8).write(to: Self.fixtureFile)
        #expect(try JSONValue.parse(Data(contentsOf: Self.fixtureFile)) == fixtures)
    }
}
