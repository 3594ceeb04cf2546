import CollageCore
import Foundation
import Testing

@Suite("collage templates")
struct TemplatesCommandTests {
    @Test func tableListsEveryTemplate() throws {
        let result = try CommandRunner.run(["templates"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        // A header, a row a layout, and how to unlock the premium ones.
        #expect(lines.count == Template.catalog.count + 2)
        #expect(lines.last?.contains("'collage licence add KEY' unlocks them") == true)
        #expect(lines.contains { $0.hasPrefix("magazine") && $0.hasSuffix("premium") && $0.contains(" 3 ") })
        #expect(lines.contains { $0.hasPrefix("grid2x2") && $0.hasSuffix("free") })
    }

    @Test func jsonWithACanvasGivesFrames() throws {
        let result = try CommandRunner.run([
            "templates", "--json", "--canvas", "400x400", "--spacing", "4", "--padding", "4",
        ])
        #expect(result.status == 0)
        guard case .array(let templates) = try JSONValue.parse(result.stdout) else {
            Issue.record("expected an array")
            return
        }
        #expect(templates.count == Template.catalog.count)
        let magazine = try #require(templates.first { $0.member("id") == .string("magazine") })
        #expect(magazine.member("slots") == .number(3))
        #expect(magazine.member("premium") == .bool(true))
        #expect(magazine.member("name") == .string("Magazine"))
        guard case .array(let frames) = magazine.member("frames") else {
            Issue.record("expected frames")
            return
        }
        let expected: [[Double]] = [[4, 4, 214, 392], [222, 4, 174, 194], [222, 202, 174, 194]]
        for (frame, want) in zip(frames, expected) {
            let values = ["x", "y", "width", "height"].map { key -> Double in
                if case .number(let number) = frame.member(key) { number } else { .nan }
            }
            #expect(zip(values, want).allSatisfy { abs($0 - $1) <= 1 }, "\(values) vs \(want)")
        }
    }

    @Test func jsonWithoutACanvasHasNoFrames() throws {
        let result = try CommandRunner.run(["templates", "--json"])
        guard case .array(let templates) = try JSONValue.parse(result.stdout) else {
            Issue.record("expected an array")
            return
        }
        #expect(templates.allSatisfy { $0.member("frames") == nil })
    }

    @Test func canvasPresetsAreAccepted() throws {
        let result = try CommandRunner.run(["templates", "--canvas", "4:5"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("960 × 1200 canvas"))
        #expect(result.stdout.contains("grid2x2 — Grid (free)\n  1. (12, 12, 462 × 582)"))
    }
}

extension JSONValue {
    func member(_ key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }
}
