import CollageCore
import CollageLicence
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// `collage licence` and the premium gate on the command line, run as a user would run them.
@Suite("collage licence and premium layouts")
struct LicenceCommandTests {
    /// A folder with a library, a photo, and a configuration folder of its own (no licence yet).
    final class Machine {
        let folder: TemporaryFolder
        var config: URL { folder.file("config") }
        var library: URL { folder.file("library") }
        var licenceFile: URL { config.appendingPathComponent("collage/licence.key") }
        let photo: String

        init() throws {
            folder = try TemporaryFolder("collage-licence-cli")
            photo = folder.file("red.png").path
            try Bitmap(width: 160, height: 120, color: [210, 40, 40]).write(
                to: URL(fileURLWithPath: photo), format: .png)
        }

        func run(_ arguments: [String], stdin: Data? = nil) throws -> CommandRunner.Result {
            try CommandRunner.run(arguments, stdin: stdin, environment: ["XDG_CONFIG_HOME": config.path])
        }
    }

    @Test func everyFaceOfTheCommandLineRefusesPremiumLayoutsWith77() throws {
        let machine = try Machine()
        let library = ["--library", machine.library.path]
        let made = try machine.run([
            "make", "--layout", "triptych", machine.photo, "-o", machine.folder.file("t.jpg").path,
        ])
        #expect(made.status == 77)
        #expect(made.stderr.contains("triptych (Triptych) is a premium layout"))
        #expect(made.stderr.contains("collage licence add KEY"))
        #expect(!FileManager.default.fileExists(atPath: machine.folder.file("t.jpg").path))

        let new = try machine.run(["new", "--layout", "magazine", machine.photo] + library)
        #expect(new.status == 77 && new.stderr.contains("free layouts are grid2x2, strip"))
        #expect(try machine.run(["list", "--json"] + library).stdout.contains("[]"))
        // Refused before anything was imported.
        #expect(try machine.run(["photos", "--json"] + library).stdout.contains("[]"))

        let free = try machine.run(["new", "--json", "--layout", "strip", machine.photo] + library)
        #expect(free.status == 0, "\(free.stderr)")
        let id = try #require(try JSONValue.parse(free.stdout).member("id")?.string)
        #expect(try machine.run(["layout", id, "magazine"] + library).status == 77)
        let edit = try machine.run(["edit", id, #"{"op": "applyTemplate", "template": "bigCenter"}"#] + library)
        #expect(edit.status == 77 && edit.stderr.contains("bigCenter"))
        #expect(try machine.run(["layout", id, "grid3x3"] + library).status == 0)
        // The help says what 77 means.
        #expect(try machine.run(["--help"]).stdout.contains("77  a premium layout needs Collage Premium"))
    }

    @Test func aKeyUnlocksEveryLibraryAndSurvivesARestart() throws {
        let machine = try Machine()
        let added = try machine.run(["licence", "add", TestLicence.key()])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("unlocked for Ada Lovelace <ada@example.com>"))
        // Each command is a new process: the licence is read back from the file.
        let shown = try machine.run(["licence", "show", "--json"])
        let json = try JSONValue.parse(shown.stdout)
        #expect(json.member("unlocked") == .bool(true))
        #expect(json.member("licence")?.member("id") == .string("CL-TEST-0001"))
        for library in ["one", "two"] {
            let path = machine.folder.file(library).path
            let made = try machine.run(["new", "--layout", "magazine", machine.photo, "--library", path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let output = machine.folder.file("m.png")
        #expect(try machine.run(["make", "--layout", "magazine", machine.photo, "-o", output.path]).status == 0)
        #expect(try machine.run(["templates"]).stdout.contains("Premium layouts are unlocked (licensed to Ada"))
    }

    @Test func theKeyCanComeFromStandardInputOrAFile() throws {
        let machine = try Machine()
        let key = TestLicence.key()
        let middle = key.index(key.startIndex, offsetBy: 130)
        // Pasted over two lines, as a terminal or an e-mail may break it.
        let piped = try machine.run(
            ["licence", "add", "-"], stdin: Data((key[..<middle] + "\n" + key[middle...] + "\n").utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try machine.run(["licence", "remove"]).stdout.contains("locked again"))
        let file = machine.folder.file("receipt key.txt")
        try Data(TestLicence.key(licensee: "Grace").utf8).write(to: file)
        #expect(try machine.run(["licence", "add", "--file", file.path]).stdout.contains("unlocked for Grace"))
        #expect(try machine.run(["licence", "add", "--file", machine.folder.file("none").path]).status == 66)
        #expect(try machine.run(["licence", "add"]).status == 64)
        #expect(try machine.run(["licence", "renew"]).status == 64)
    }

    @Test func pastedBytesAreNeverPrintedRaw() throws {
        let machine = try Machine()
        // An escape sequence (red text), a bell, a bidi override and a backspace in a pasted "key".
        let hostile = "k\u{1B}[31mRED\u{07}\u{202E}evil\u{08}"
        for arguments in [["licence", "add", "-"], ["licence", "add", hostile]] {
            let result = try machine.run(arguments, stdin: Data(hostile.utf8))
            #expect(result.status == 65, "\(result.stderr)")
            #expect(
                !result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
                "\(result.stderr.debugDescription)")
            #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x202E })
            #expect(result.stderr.contains("\\u{1B}[31mRED"), "\(result.stderr)")
        }
    }

    @Test func eachBadKeyGetsItsOwnMessageAndTheOldLicenceStays() throws {
        let machine = try Machine()
        #expect(try machine.run(["licence", "add", TestLicence.key()]).status == 0)
        let before = try Data(contentsOf: machine.licenceFile)
        let good = TestLicence.key(licensee: "Eve <eve@example.com>")
        var parts = good.split(separator: ".").map(String.init)
        let stranger = try #require(SigningKeyFixture.untrustedKey())
        let cases: [(String, String)] = [
            ("not a key at all", "is not a Collage licence key"),
            (String(good.prefix(90)), "cut short: it ends after 90 characters"),
            (String(good.dropLast(20)), "its signature has 66 of its 86 characters"),
            (parts.prefix(4).joined(separator: "."), "has no signature"),
            (TestLicence.key(product: "someone-else"), "for another product (\"someone-else\")"),
            (stranger, "does not trust"),
            (
                {
                    parts[2] = TestLicence.key(licensee: "Mallory").split(separator: ".").map(String.init)[2]
                    return parts.joined(separator: ".")
                }(), "changed after it was issued"
            ),
        ]
        for (key, words) in cases {
            let refused = try machine.run(["licence", "add", key])
            #expect(refused.status == 65, "\(key): \(refused.stderr)")
            #expect(refused.stderr.contains(words), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was changed"))
        }
        #expect(try Data(contentsOf: machine.licenceFile) == before)
        #expect(try machine.run(["licence", "show"]).stdout.contains("licensed to  Ada Lovelace"))
    }

    @Test func aCollageOnAPremiumLayoutStillOpensEditsAndExportsWithoutALicence() throws {
        let machine = try Machine()
        let library = ["--library", machine.library.path]
        #expect(try machine.run(["licence", "add", TestLicence.key()]).status == 0)
        let made = try machine.run(["new", "--json", "--layout", "magazine", machine.photo] + library)
        let id = try #require(try JSONValue.parse(made.stdout).member("id")?.string)
        // A document on a premium layout, as someone else might send it.
        let document = machine.folder.file("received.json")
        let saved = try machine.run([
            "make", "--layout", "magazine", machine.photo, "--save-document", document.path, "-o",
            machine.folder.file("first.png").path,
        ])
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try machine.run(["licence", "remove"]).status == 0)
        let rendered = try machine.run(["render", document.path, "-o", machine.folder.file("again.png").path])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(
            try JSONValue.parse(machine.run(["licence", "show", "--json"]).stdout).member("unlocked") == .bool(false))

        #expect(try machine.run(["show", id] + library).stdout.contains("layout magazine"))
        let edited = try machine.run(["edit", id, #"{"op": "rotateItem", "id": "i1", "degrees": 5}"#] + library)
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try machine.run(["layout", id, "magazine"] + library).status == 0)
        let output = machine.folder.file("mine.png")
        let exported = try machine.run(["export", id, "-o", output.path, "--size", "400", "--no-smart-crop"] + library)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try Bitmap.read(output).width > 0)
        #expect(try machine.run(["duplicate", id] + library).status == 0)
        #expect(try machine.run(["undo", id] + library).status == 0)
    }

    @Test func theSellersToolMakesKeysThatThisBuildAccepts() throws {
        let machine = try Machine()
        let tool = CommandRunner.executable.deletingLastPathComponent().appendingPathComponent("collage-licence")
        func sell(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = tool
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        let signed = try sell([
            "sign", "--key", TestLicence.signingKeyFile.path, "--licensee", "Linus <linus@example.com>", "--id",
            "CL-77",
        ])
        #expect(signed.status == 0, "\(signed.output)")
        let key = signed.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try machine.run(["licence", "add", key]).stdout.contains("licence CL-77"))
        // A new key pair: its private half is written once, never over an existing file.
        let secret = machine.folder.file("seller.key")
        #expect(try sell(["keygen", "--out", secret.path]).status == 0)
        #expect(try sell(["keygen", "--out", secret.path]).status == 73)
        let mode = try FileManager.default.attributesOfItem(atPath: secret.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Its licences are refused until a build trusts it.
        let untrusted = try sell(["sign", "--key", secret.path, "--licensee", "X"]).output
        #expect(
            try machine.run(["licence", "add", untrusted.trimmingCharacters(in: .whitespacesAndNewlines)]).status == 65)
    }
}

/// A key signed by a key pair nobody trusts.
enum SigningKeyFixture {
    static func untrustedKey() -> String? {
        guard let stranger = SigningKey.generate(),
            let details = try? LicenceDetails(id: "CL-X", licensee: "Mallory", issued: "2026-12-02")
        else { return nil }
        return stranger.issue(details)
    }
}
