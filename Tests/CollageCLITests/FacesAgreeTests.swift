import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import CollageServer
import Foundation
import Testing

/// The command line and the API read options through one parser and report failures through one
/// table: the same bad input gets the same words from both (the flag spelled `--scale` on one,
/// `scale` on the other), a usage exit code on one and a 4xx on the other.
@Suite("The command line and the API agree")
struct FacesAgreeTests {
    @Test func theSameBadExportOptionsGetTheSameWords() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("library")
        let photo = directory.appendingPathComponent("p.jpg")
        try Bitmap(width: 320, height: 240, color: [40, 120, 200]).write(to: photo, format: .jpeg)
        #expect(try CommandRunner.run(["import", photo.path, "--library", root.path]).status == 0)
        let made = try CommandRunner.run(["new", "--layout", "grid2x2", "--json", "--library", root.path])
        let id = try #require(try JSONValue.parse(made.stdout).member("id")?.string)

        let library = try Library(root: root)
        defer { library.close() }
        let app = CollageApp(
            workspace: Workspace(
                library: library, model: nil, licences: LicenceStore(folder: directory.appendingPathComponent("config"))
            ),
            allowedHosts: ["test.local"])
        let cases: [[String: String]] = [
            ["scale": "1e300"], ["scale": "-1e300"], ["scale": "0"], ["size": "99999999999999999999"],
            ["size": "40000"], ["print": "1e300x1e300in@300"], ["print": "6x4in@1e300"], ["quality": "1e300"],
            ["quality": "0"], ["format": "gif"], ["scale": "2", "size": "100"], ["print": "a3@1200"],
            ["format": "png", "quality": "80"],
        ]
        for options in cases {
            let flags = options.sorted { $0.key < $1.key }.flatMap { ["--\($0.key)", $0.value] }
            // A file named as its format (a PNG named .jpg is refused, on the command line only).
            let name = options["format"] == "png" ? "x.png" : "x.jpg"
            let cli = try CommandRunner.run(
                ["export", id, "-o", directory.appendingPathComponent(name).path, "--library", root.path] + flags)
            let query = options.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
            let api = app.handle(
                HTTPRequest(
                    method: "GET", path: "/api/collages/\(id)/export",
                    query: options, headers: ["host": "test.local", "x-collage-token": app.token]))
            let message = try #require(
                try JSONValue.parse(api.body).member("error")?.member("message")?.string, "\(query)")
            #expect(cli.status == 64, "\(flags): \(cli.stderr)")
            #expect(api.status.code == 422, "\(query): \(message)")
            Self.expectSameWords(cli: cli.stderr, api: message)
        }
    }

    @Test func theSameBadStickerOptionsGetTheSameWords() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appendingPathComponent("library")
        let photo = directory.appendingPathComponent("p.jpg")
        try Bitmap(width: 320, height: 240, color: [40, 120, 200]).write(to: photo, format: .jpeg)
        let imported = try CommandRunner.run(["import", "--json", photo.path, "--library", root.path])
        let photoID = try #require(try JSONValue.parse(imported.stdout).elements.first?.member("id")?.string)

        let library = try Library(root: root)
        defer { library.close() }
        let app = CollageApp(
            workspace: Workspace(
                library: library, model: nil, licences: LicenceStore(folder: directory.appendingPathComponent("config"))
            ),
            allowedHosts: ["test.local"])
        // Each case: the flags, and the same request as the API's JSON body.
        let cases: [([String], String)] = [
            (["--instance", "0"], #"{"instance": 0}"#), (["--instance", "1e300"], #"{"instance": 1e300}"#),
            (["--instance", "2.5"], #"{"instance": 2.5}"#), (["--instance", "-3"], #"{"instance": -3}"#),
            (["--outline", "-1"], #"{"outline": -1}"#), (["--outline", "1e300"], #"{"outline": 1e300}"#),
            (["--outline", "201"], #"{"outline": 201}"#),
            (["--instance", "1", "--at", "3,4"], #"{"instance": 1, "at": {"x": 0.5, "y": 0.5}}"#),
        ]
        for (flags, body) in cases {
            let cli = try CommandRunner.run(["sticker", photoID, "--library", root.path] + flags)
            let api = app.handle(
                HTTPRequest(
                    method: "POST", path: "/api/photos/\(photoID)/stickers",
                    headers: [
                        "host": "test.local", "x-collage-token": app.token, "content-type": "application/json",
                    ], body: Data(body.utf8)))
            let message = try #require(
                try JSONValue.parse(api.body).member("error")?.member("message")?.string, "\(body)")
            #expect(cli.status == 64, "\(flags): \(cli.stderr)")
            #expect(api.status.code == 422, "\(body): \(message)")
            Self.expectSameWords(cli: cli.stderr, api: message)
        }
    }

    /// The CLI's first line, with its flags spelled as the API spells fields, is the API's message.
    static func expectSameWords(cli stderr: String, api message: String) {
        let cliLine = stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            cliLine.replacingOccurrences(of: "--", with: "") == "collage: \(message)",
            "CLI: \(cliLine)\nAPI: \(message)")
    }
}
