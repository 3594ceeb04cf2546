import CollageCore
import Foundation

/// Documents and ids for tests, built the same way every time.
enum Fixtures {
    static let created = Date(timeIntervalSince1970: 1_780_000_000.123)

    /// A collage on `canvas` following `template`, with one photo per slot.
    static func collage(
        template: String? = "grid2x2", photos: Int = 4, canvas: Size = Size(width: 1200, height: 1200),
        style: Style = Style()
    ) throws -> Collage {
        var collage = Collage(
            id: "c1", title: "Test", created: created, canvas: canvas, style: style, templateID: template)
        for index in 0..<photos {
            collage = try collage.applying(.addItem(id: "p\(index)", content: .photo("photo\(index).jpg"), frame: nil))
        }
        return collage
    }

    static func approximatelyEqual(_ a: Double, _ b: Double, tolerance: Double = 1e-6) -> Bool {
        abs(a - b) <= tolerance
    }
}
