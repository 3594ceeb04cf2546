import CollageCore
import Foundation
import Testing

/// Absurd numbers in every field that reads one: each is refused with a message naming the
/// field, and none traps (a trap would end this test process).
@Suite("Limits: extreme numbers everywhere")
struct LimitsTests {
    static let extremes: [Double] = [
        1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 0, -1, 9.3e18, -9.3e18,
        Double(Int.max), .leastNonzeroMagnitude,
    ]

    /// The document with one field replaced by `value`.
    static func document(setting path: [String], to value: JSONValue) throws -> JSONValue {
        var collage = try Fixtures.collage(template: "grid2x2", photos: 2)
        collage = try collage.applying(.addItem(id: "s", content: .sticker("cat.png"), frame: nil))
        return replacing(CollageDocument.jsonValue(of: collage), at: path[...], with: value)
    }

    static func replacing(_ value: JSONValue, at path: ArraySlice<String>, with replacement: JSONValue) -> JSONValue {
        guard let key = path.first else { return replacement }
        switch value {
        case .object(var members):
            members[key] = replacing(members[key] ?? .null, at: path.dropFirst(), with: replacement)
            return .object(members)
        case .array(var elements):
            guard let index = Int(key), elements.indices.contains(index) else { return value }
            elements[index] = replacing(elements[index], at: path.dropFirst(), with: replacement)
            return .array(elements)
        default:
            return value
        }
    }

    static let numericFields: [[String]] = [
        ["version"], ["canvas", "width"], ["canvas", "height"], ["style", "spacing"], ["style", "padding"],
        ["style", "cornerRadius"], ["items", "0", "frame", "x"], ["items", "0", "frame", "y"],
        ["items", "0", "frame", "width"], ["items", "0", "frame", "height"], ["items", "0", "slot"],
        ["items", "2", "stickerStyle", "outline"],
    ]

    @Test(arguments: numericFields)
    func everyNumericDocumentFieldRefusesExtremes(path: [String]) throws {
        for value in Self.extremes {
            let document = try Self.document(setting: path, to: .number(value))
            var refused = false
            do {
                let collage = try CollageDocument.decode(document)
                // A few extremes are legitimate for some fields (0 spacing, a frame at x = -1).
                refused = !CollageDocument.issues(in: collage).isEmpty
                if !refused {
                    #expect(Limits.canvasSide.contains(collage.canvas.width))
                    for item in collage.items {
                        #expect(abs(item.frame.x) <= collage.canvas.width * Limits.canvasMultiple)
                        #expect(item.frame.width <= collage.canvas.width * Limits.canvasMultiple)
                    }
                }
            } catch {
                refused = true
                // The message names the field that holds the number.
                #expect(error.issues.contains { $0.path.hasPrefix(path[0]) }, "\(path) = \(value): \(error)")
            }
            if abs(value) >= 1e18 { #expect(refused, "\(path) = \(value) was accepted") }
        }
    }

    @Test func aPoisonFrameIsInvalid() throws {
        let document = try Self.document(
            setting: ["items", "0", "frame"],
            to: .object(["x": .number(0), "y": .number(0), "width": .number(1e300), "height": .number(1e300)]))
        #expect(throws: DocumentError.self) { try CollageDocument.decode(document) }
        var collage = try Fixtures.collage()
        collage.items[0].frame = Rect(x: 0, y: 0, width: 1e300, height: 1e300)
        let issues = CollageDocument.issues(in: collage)
        #expect(issues.contains { $0.path == "items[0].frame.width" && $0.message.contains("at most 10 times") })
    }

    @Test func tooManyItemsAreRefusedByDocumentsAndEdits() throws {
        var collage = try Fixtures.collage(template: nil, photos: 0)
        for index in 0..<Limits.maximumItems {
            collage = try collage.applying(.addItem(id: "i\(index)", content: .photo("p.jpg"), frame: nil))
        }
        #expect(throws: EditError.tooManyItems(limit: Limits.maximumItems)) {
            try collage.applying(.addItem(id: "one-more", content: .photo("p.jpg"), frame: nil))
        }
        collage.items.append(
            CollageItem(id: "x", content: .photo("p.jpg"), frame: Rect(x: 0, y: 0, width: 50, height: 50)))
        #expect(
            CollageDocument.issues(in: collage).contains { $0.path == "items" && $0.message.contains("at most 200") })
    }

    @Test func aspectRatiosAndPrintSizesStayInRange() {
        for text in ["1e308:1", "1:1e308", "0:1", "-4:5", "nan:1", "inf:1", "21:1", "1e-300:1e-300"] {
            #expect(AspectRatio(parsing: text) == nil, "\(text)")
        }
        #expect(AspectRatio(parsing: "20:1") != nil && AspectRatio(parsing: "1.91:1") != nil)
        for text in [
            "1e300x1e300in@300", "6x4in@1e300", "6x4in@-300", "6x4in@0", "1e300x4in", "-6x4in", "200x200in@300",
            "6x4in@nan", "9223372036854775807x1in@1200",
        ] {
            #expect(PrintSize(parsing: text) == nil, "\(text)")
        }
        let poster = PrintSize(parsing: "24x36in@300")
        #expect(poster?.pixelSize.width == 7200 && poster?.pixelSize.height == 10800)
    }

    /// A print past the limits is told which limit and the finest DPI that fits: one more DPI
    /// than that fits no more (pixels rounded as a print's are), and absurd numbers never trap.
    @Test func aPrintPastTheLimitsSaysWhichAndWhatFits() throws {
        #expect(PrintSize.limitProblem(parsing: "6x4in@300") == nil)
        #expect(PrintSize.limitProblem(parsing: "not a size") == nil)
        for text in ["a3@1200", "24x36in@1000", "79.801x1in@1200", "200x1in@300", "33.4x33.4in@300"] {
            let problem = try #require(PrintSize.limitProblem(parsing: text), "\(text)")
            let fits = try #require(
                problem.split(separator: " ").firstIndex(of: "DPI").map { problem.split(separator: " ")[$0 - 1] }
                    .flatMap { Int($0) }, "\(problem)")
            let size = text.split(separator: "@")[0]
            #expect(PrintSize(parsing: "\(size)@\(fits)") != nil, "\(problem)")
            #expect(PrintSize(parsing: "\(size)@\(fits + 1)") == nil, "\(problem)")
        }
        #expect(PrintSize.limitProblem(parsing: "200x1in@300")?.contains("32000 pixels a side") == true)
        #expect(PrintSize.limitProblem(parsing: "200x1in@300")?.contains("megapixels") == false)
        #expect(PrintSize.limitProblem(parsing: "6x4in@5000")?.contains("the DPI must be from 10 to 1200") == true)
        #expect(PrintSize.limitProblem(parsing: "1e300x1e300in@300")?.contains("each side of a print") == true)
        for text in ["6x4in@nan", "6x4in@-300", "9223372036854775807x1in@1200", "1000x1000in@11"] {
            _ = PrintSize.limitProblem(parsing: text)
        }
        #expect(PrintSize.limitProblem(parsing: "1000x1000in@11")?.contains("fits at 10 DPI or less") == true)
    }

    @Test func datesFromADamagedLibraryNeverTrap() {
        for seconds in [1e300, -1e300, Double.infinity, -Double.infinity, Double.nan, 9.3e15] {
            let text = CollageDocument.jsonDate(Date(timeIntervalSince1970: seconds))
            #expect(text.hasSuffix("Z"), "\(seconds): \(text)")
        }
    }

    @Test func wholeNumbersNeverTrap() {
        for value in Self.extremes + [.nan, .infinity, -.infinity, 1.5] {
            _ = value.wholeNumber(in: Limits.version)
            _ = value.wholeNumber(in: Int.min...Int.max)
        }
        #expect(1e300.wholeNumber(in: Limits.version) == nil)
        #expect(Double(Int.max).wholeNumber(in: Int.min...Int.max) == nil)
        #expect(42.0.wholeNumber(in: Limits.version) == 42)
        #expect(1.5.wholeNumber(in: Limits.version) == nil)
    }

    @Test func editsWithHugeNumbersAreRefused() throws {
        let collage = try Fixtures.collage()
        let edits: [Edit] = [
            .moveItem(id: "p0", origin: Point(x: 1e300, y: 0)),
            .resizeItem(id: "p0", frame: Rect(x: 0, y: 0, width: 1e300, height: 1e300)),
            .setStyle(Style(spacing: 1e300)), .setCrop(id: "p0", crop: Crop(zoom: 1e300)),
        ]
        for edit in edits {
            #expect(throws: EditError.self, "\(edit)") { try collage.applying(edit) }
        }
        let rotated = try collage.applying(.rotateItem(id: "p0", degrees: 1e300))
        #expect(rotated.items[0].rotation.degrees.isFinite)
    }
}
