import CollageCore
import Foundation
import Testing

@Suite("collage validate")
struct ValidateCommandTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples").standardized

    @Test func examplesAreValid() throws {
        let result = try CommandRunner.run(["validate", Self.examples.appendingPathComponent("magazine.json").path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("valid (3 items, template magazine)"))
    }

    @Test func everyProblemIsPrintedWithItsPathAndExit65() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad doc.json")
        let text = try String(contentsOf: Self.examples.appendingPathComponent("magazine.json"), encoding: .utf8)
            .replacingOccurrences(
                of: "\"width\": 414.6, \"height\": 582 },\n      \"rotation\": 0,\n      \"slot\": 2",
                with: "\"width\": -5, \"height\": 582 },\n      \"rotation\": \"left\",\n      \"slot\": 2")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["validate", file.path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("bad doc.json: items[2].frame.width: expected a number > 0, got -5"))
        #expect(result.stderr.contains("items[2].rotation: expected a number of degrees, got \"left\""))

        let json = try CommandRunner.run(["validate", "--json", file.path])
        #expect(json.status == 65)
        let value = try JSONValue.parse(json.stdout)
        #expect(value.member("valid") == .bool(false))
        guard case .array(let errors) = value.member("errors") else {
            Issue.record("expected errors")
            return
        }
        #expect(errors.contains { $0.member("path") == .string("items[2].frame.width") })
    }

    @Test func malformedJSONIsADataError() throws {
        let result = try CommandRunner.run(["validate", "-"], stdin: Data("{\"format\": ".utf8))
        #expect(result.status == 65)
        #expect(result.stderr.contains("invalid JSON at line 1, column 12"))
    }

    @Test func missingFilesExit66() throws {
        let result = try CommandRunner.run(["validate", "/nonexistent/doc.json"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("/nonexistent/doc.json: no such file"))
        let directory = try CommandRunner.run(["validate", "/tmp"])
        #expect(directory.status == 66 && directory.stderr.contains("is a directory"))
    }
}
