import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

@Suite("collage library commands")
struct LibraryCommandTests {
    final class Workspace {
        let directory: URL
        var library: URL { directory.appendingPathComponent("my library") }
        /// The commands' environment: no licence until ``unlock()``.
        var environment: [String: String] = [:]

        init() throws {
            directory = try CommandRunner.temporaryDirectory()
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func photo(_ name: String, _ color: [UInt8]) throws -> String {
            let file = directory.appendingPathComponent(name)
            try Bitmap(width: 240, height: 180, color: color).write(to: file, format: .jpeg)
            return file.path
        }

        func run(_ arguments: [String], stdin: Data? = nil) throws -> CommandRunner.Result {
            try CommandRunner.run(arguments + ["--library", library.path], stdin: stdin, environment: environment)
        }

        /// Runs `statement` on the library's database with SQLite itself (through Python's sqlite3,
        /// which every machine here has), as another program or a damaged disk would change it;
        /// returns the exit status.
        func sql(_ statement: String) throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
                library.appendingPathComponent("library.sqlite").path, statement,
            ]
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }

        /// Stores a valid test licence for the commands that follow.
        func unlock() throws {
            environment["XDG_CONFIG_HOME"] = try TestLicence.unlockedConfig(in: directory).path
        }

        func json(_ arguments: [String]) throws -> JSONValue {
            let result = try run(arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try JSONValue.parse(result.stdout)
        }
    }

    @Test func importReportsNewKnownAndFailedFiles() throws {
        let space = try Workspace()
        let red = try space.photo("red one.jpg", [220, 0, 0])
        let folder = space.directory.appendingPathComponent("földer")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Bitmap(width: 100, height: 100, color: [0, 0, 200]).write(
            to: folder.appendingPathComponent("b.png"), format: .png)
        try Data("not a photo".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
        let result = try space.run(["import", red, folder.path])
        #expect(result.status == 65)
        #expect(result.stdout.contains("Imported 2 new photos, 1 failed."))
        #expect(result.stderr.contains("broken.jpg"))

        let again = try space.json(["import", red])
        #expect(again.elements.first?.member("new") == .bool(false))
        let fromStdin = try space.run(["import", "-"], stdin: Data("\(red)\n".utf8))
        #expect(fromStdin.status == 0 && fromStdin.stdout.contains("1 already in the library"))
        let photos = try space.json(["photos"])
        #expect(photos.elements.count == 2)
        #expect(photos.elements.allSatisfy { $0.member("format") != nil && $0.member("width") != nil })
        // A file that is not there is exit 66, as the exit codes' table says (it was 65).
        let missing = try space.run(["import", space.directory.appendingPathComponent("gone.jpg").path])
        #expect(missing.status == 66 && missing.stderr.contains("gone.jpg: no such file"), "\(missing.stderr)")
    }

    @Test func importShowsAProgressBarOnATerminal() throws {
        let space = try Workspace()
        let photos = try (0..<4).map { try space.photo("p\($0).jpg", [UInt8($0 * 50), 90, 90]) }
        // `script` gives the command a pseudo-terminal, as a person's shell would.
        let command = ([CommandRunner.executable.path, "import", "--library", space.library.path] + photos)
            .map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.contains("4/4") && text.contains("/s") && text.contains("left"), "\(text)")
        #expect(text.contains("Imported 4 new photos."))
    }

    @Test func collageLifecycleThroughTheCommandLine() throws {
        let space = try Workspace()
        let files = try [("a.jpg", [200, 0, 0] as [UInt8]), ("b.jpg", [0, 200, 0]), ("c.jpg", [0, 0, 200])].map {
            try space.photo($0.0, $0.1)
        }
        // `new` imports files it is given; magazine is a premium layout.
        try space.unlock()
        let created = try space.json(["new", "--title", "Été", "--layout", "magazine", "--aspect", "4:5"] + files)
        let id = try #require(created.member("id")?.string)
        #expect(created.member("items") == .number(3) && created.member("version") == .number(1))
        #expect(try space.json(["list"]).elements.first?.member("title") == .string("Été"))

        let shown = try space.json(["show", String(id.prefix(5))])
        #expect(shown.member("collage")?.member("template") == .string("magazine"))

        #expect(try space.run(["rename", id, "Summer"]).status == 0)
        let edited = try space.json(["edit", id, #"{"op": "rotateItem", "id": "i1", "degrees": 370}"#])
        #expect(edited.member("version") == .number(3))
        let stale = try space.run(["edit", "--version", "1", id, #"{"op": "rename", "title": "x"}"#])
        #expect(stale.status == 75 && stale.stderr.contains("is at version 3, not 1"))
        let badEdit = try space.run(["edit", id, #"{"op": "spin", "id": "i1"}"#])
        #expect(badEdit.status == 65 && badEdit.stderr.contains("op: unknown operation \"spin\""))
        let refused = try space.run(["edit", id, #"{"op": "removeItem", "id": "zz"}"#])
        #expect(refused.status == 65 && refused.stderr.contains("no item with id \"zz\""))

        let laidOut = try space.json(["layout", id, "strip"])
        #expect(laidOut.member("template") == .string("strip"))
        let copy = try space.json(["duplicate", id])
        #expect(copy.member("title") == .string("Summer copy"))

        let output = space.directory.appendingPathComponent("export ü.png")
        let exported = try space.json(["export", id, "-o", output.path, "--size", "600"])
        #expect(exported.member("width") == .number(480) && exported.member("height") == .number(600))
        #expect(try Bitmap.read(output).height == 600)
        // Enlarged past what looks sharp, the photos are named as they were imported, not by
        // their files in the library (named by their hash).
        let large = try space.run(["export", id, "-o", output.path, "--size", "3000"])
        #expect(large.status == 0 && large.stderr.contains("a.jpg enlarged"), "\(large.stderr)")

        let refusedDelete = try space.run(["rm", id])
        #expect(refusedDelete.status == 64 && refusedDelete.stderr.contains("--yes"))
        #expect(try space.run(["rm", "--yes", id]).status == 0)
        #expect(try space.json(["list"]).elements.count == 1)
        let cleaned = try space.json(["gc"])
        #expect(cleaned.member("removedFiles") == .number(0) && cleaned.member("dryRun") == .bool(false))
        #expect(try space.run(["rm", "--yes", try #require(copy.member("id")?.string)]).status == 0)
        // No collage shows the photos now; they are still the person's.
        let dry = try space.run(["gc", "--dry-run"])
        #expect(
            dry.status == 0 && dry.stdout.contains("Nothing would be removed")
                && dry.stdout.contains("Every photo stays"))
        #expect(try space.json(["gc"]).member("removedFiles") == .number(0))
        #expect(try space.json(["photos"]).elements.count == 3)
    }

    @Test(arguments: [
        (["show", "nosuchcollage"], 66, "no collage with id \"nosuchcollage\""),
        (["export", "nosuchcollage", "-o", "/tmp/x.jpg"], 66, "no collage with id"),
        (["new", "--layout", "hexagon"], 64, "--layout expects a template id"),
        (["new", "ffffffffffff"], 66, "no photo with id \"ffffffffffff\" (see 'collage photos')"),
        (["new", "596aa"], 66, "no photo with id \"596aa\" (see 'collage photos'; a shortened id needs at least 6"),
        (["edit", "abc", "{not json"], 65, "invalid JSON"),
        (["rename", "onlyone"], 64, "takes 2 arguments, got 1"),
    ])
    func errorsHaveDocumentedExitCodes(arguments: [String], status: Int32, message: String) throws {
        let space = try Workspace()
        #expect(try space.run(["new", "--title", "First"]).status == 0)
        let result = try space.run(arguments)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// The same history the editor's Undo and Redo buttons walk, from the command line.
    @Test func undoAndRedoFromTheCommandLine() throws {
        let space = try Workspace()
        let created = try space.json(["new", "--title", "Steps", try space.photo("a.jpg", [10, 200, 10])])
        let id = try #require(created.member("id")?.string)
        #expect(try space.run(["edit", id, #"{"op": "rename", "title": "Later"}"#]).status == 0)
        let undone = try space.json(["undo", id])
        #expect(undone.member("title")?.string == "Steps")
        let redone = try space.run(["redo", id])
        #expect(redone.status == 0 && redone.stdout.contains("Redid a change to \(id)"), "\(redone.stderr)")
        #expect(try space.json(["show", id]).member("collage")?.member("title")?.string == "Later")
        let nothing = try space.run(["redo", id])
        #expect(nothing.status == 65 && nothing.stderr.contains("has nothing to redo"), "\(nothing.stderr)")
        let stale = try space.run(["undo", id, "--version", "1"])
        #expect(stale.status == 75, "\(stale.stderr)")
        #expect(try space.run(["undo", id, "--version", "1e300"]).status == 64)
    }

    @Test func aDamagedLibraryIsReportedAndKept() throws {
        let space = try Workspace()
        try FileManager.default.createDirectory(at: space.library, withIntermediateDirectories: true)
        let database = space.library.appendingPathComponent("library.sqlite")
        try Data("definitely not sqlite".utf8).write(to: database)
        let result = try space.run(["list"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(database.path) is not a Collage library"))
        #expect(try String(contentsOf: database, encoding: .utf8) == "definitely not sqlite")
    }

    /// A library whose database lost its rows (emptied here; replaced or rolled back is the same)
    /// keeps its photos' files: `gc` removed every one of them before, saying every photo stays.
    /// `doctor` names them and `doctor --repair` puts them back.
    @Test func photosADatabaseLostAreKeptAndPutBack() throws {
        let space = try Workspace()
        let files = [try space.photo("a.jpg", [200, 30, 30]), try space.photo("b.jpg", [30, 30, 200])]
        #expect(try space.run(["import"] + files).status == 0)
        let ids = Set(try space.json(["photos"]).elements.compactMap { $0.member("id")?.string })
        #expect(ids.count == 2)
        func originals() -> [String] {
            let walk = FileManager.default.enumerator(atPath: space.library.appendingPathComponent("photos").path)
            return (walk?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }
        }
        #expect(originals().count == 2)
        let database = space.library.appendingPathComponent("library.sqlite")
        try Data().write(to: database)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }

        let cleaned = try space.json(["gc"])
        #expect(cleaned.member("keptUnrecorded") == .number(2))
        #expect(originals().count == 2, "gc removed originals that no record names")
        let said = try space.run(["gc", "--dry-run"])
        #expect(
            said.stdout.contains("Kept 2 photo or sticker files that no record in the library names"), "\(said.stdout)")

        let checked = try space.run(["doctor"])
        #expect(checked.status == 65)
        #expect(checked.stdout.contains("a photo file with no record in the library"), "\(checked.stdout)")
        let repaired = try space.run(["doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(repaired.stdout.contains("put back photo"), "\(repaired.stdout)")
        #expect(Set(try space.json(["photos"]).elements.compactMap { $0.member("id")?.string }) == ids)
        #expect(try space.run(["doctor"]).stdout.contains("The library is healthy"))
        #expect(originals().count == 2)
    }

    /// Photo rows lost while the collage showing them stayed (a database rolled back): `doctor
    /// --repair` puts the photos back before it checks the collage, so the collage keeps them
    /// rather than having them set aside as showing photos the library does not have.
    @Test func photosPutBackStayInTheCollagesThatShowThem() throws {
        let space = try Workspace()
        let files = [try space.photo("a.jpg", [200, 30, 30]), try space.photo("b.jpg", [30, 30, 200])]
        let created = try space.json(["new", "--title", "Kept"] + files)
        let id = try #require(created.member("id")?.string)
        #expect(try space.sql("DELETE FROM photos") == 0)
        #expect(try space.json(["photos"]).elements.isEmpty)
        let repaired = try space.run(["doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(!repaired.stdout.contains("set aside"), "\(repaired.stdout)")
        let shown = try space.json(["show", id])
        #expect(shown.member("collage")?.member("items")?.elements.count == 2, "\(shown)")
        #expect(try space.json(["photos"]).elements.count == 2)
    }

    /// A database whose pages are damaged (garbage written over them) says so and how to recover,
    /// not SQLite's bare "database disk image is malformed"; moved aside, `doctor --repair` starts
    /// a new one with every photo back.
    @Test func aDatabaseWithDamagedPagesSaysHowToRecover() throws {
        let space = try Workspace()
        let files = [try space.photo("a.jpg", [200, 30, 30]), try space.photo("b.jpg", [30, 30, 200])]
        #expect(try space.run(["new", "--title", "Trip"] + files).status == 0)
        let ids = Set(try space.json(["photos"]).elements.compactMap { $0.member("id")?.string })
        let database = space.library.appendingPathComponent("library.sqlite")
        // Everything in the main file first, then its second page and on overwritten.
        #expect(try space.sql("PRAGMA wal_checkpoint(TRUNCATE)") == 0)
        let handle = try FileHandle(forUpdating: database)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((0..<Int(size) - 4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }))
        try handle.close()
        let listed = try space.run(["list"])
        #expect(listed.status != 0)
        #expect(
            listed.stderr.contains("is damaged") && listed.stderr.contains("doctor --repair"), "\(listed.stderr)")
        let aside = space.directory.appendingPathComponent("damaged.sqlite")
        try FileManager.default.moveItem(at: database, to: aside)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database.path + suffix) }
        let repaired = try space.run(["doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(Set(try space.json(["photos"]).elements.compactMap { $0.member("id")?.string }) == ids)
    }

    /// A collage with nothing on it exported to a blank image without a word, which looked like
    /// a render that failed; a note says what it is.
    @Test func anEmptyCollagesExportSaysItIsBackgroundAlone() throws {
        let space = try Workspace()
        let id = try #require(try space.json(["new", "--title", "Later"]).member("id")?.string)
        let output = space.directory.appendingPathComponent("empty.png")
        let result = try space.run(["export", id, "-o", output.path, "--size", "300"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\"Later\" has nothing on it yet: the image is its background alone"))
        #expect(FileManager.default.fileExists(atPath: output.path))
    }

    /// A mistyped --library made an empty library there, and `doctor` called it healthy: the
    /// commands that read a library refuse a folder that holds none, and leave nothing behind;
    /// those that make one (import, new) still do.
    @Test func aFolderWithNoLibraryIsRefusedByTheCommandsThatReadOne() throws {
        let space = try Workspace()
        let typo = space.directory.appendingPathComponent("libary")
        for command in [["doctor"], ["gc"], ["list"], ["photos"], ["show", "abc"], ["export", "abc", "-o", "x.png"]] {
            let result = try CommandRunner.run(command + ["--library", typo.path])
            #expect(result.status == 66, "\(command): \(result.stderr)")
            #expect(
                result.stderr.contains("\(typo.path): no Collage library there (no such folder)")
                    && result.stderr.contains("check --library"), "\(command): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: typo.path), "\(command) made a library")
        }
        try FileManager.default.createDirectory(at: typo, withIntermediateDirectories: true)
        let empty = try CommandRunner.run(["doctor", "--library", typo.path])
        #expect(empty.status == 66 && empty.stderr.contains("nor photos in it"), "\(empty.stderr)")
        let made = try CommandRunner.run(["new", "--title", "Here", "--library", typo.path])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try CommandRunner.run(["list", "--library", typo.path]).stdout.contains("Here"))
    }

    @Test func theEnvironmentSelectsTheLibrary() throws {
        let space = try Workspace()
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["new", "--json", "--title", "Here"]
        process.environment = ["COLLAGE_LIBRARY": space.library.path, "HOME": space.directory.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: space.library.appendingPathComponent("library.sqlite").path))
        // A mistyped one is said, as a mistyped --library is, by a command that reads a library.
        let typo = try CommandRunner.run(
            ["list"], environment: ["COLLAGE_LIBRARY": space.library.path + "x", "HOME": space.directory.path])
        #expect(typo.status == 66 && typo.stderr.contains("check $COLLAGE_LIBRARY"), "\(typo.stderr)")
    }

    @Test func aCollageLaidOutForItsPhotosKeepsItsArrangementAndShuffles() throws {
        let space = try Workspace()
        let files = try [(300, 200), (200, 300), (240, 240), (400, 150)].enumerated().map { index, size in
            let file = space.directory.appendingPathComponent("shape \(index).png")
            try Bitmap(width: size.0, height: size.1, color: [UInt8(50 * index), 120, 200]).write(
                to: file, format: .png)
            return file.path
        }
        let created = try space.json(["new", "--layout", "auto", "--hero", "2", "--any-order"] + files)
        let id = try #require(created.member("id")?.string)
        let shown = try space.json(["show", id]).member("collage")
        #expect(shown?.member("template") == nil)
        // Listed and shown as laid out for its photos ("-" and "free-form" before).
        #expect(try space.run(["list"]).stdout.contains("auto"))
        #expect(try space.run(["show", id]).stdout.contains("layout auto (made for its photos)"))
        #expect(shown?.member("arrangement")?.member("hero") == .string("i2"))
        #expect(shown?.member("arrangement")?.member("keepsOrder") == .bool(false))
        let frames = { () throws -> JSONValue? in try space.json(["show", id]).member("collage")?.member("items") }
        let before = try frames()
        let shuffled = try space.run(["layout", id, "auto", "--seed", "1"])
        #expect(
            shuffled.status == 0 && shuffled.stdout.contains("laid out for its photos (seed 1"), "\(shuffled.stderr)")
        #expect(try frames() != before)
        // The hero and the order were kept: only the seed changed.
        let arrangement = try space.json(["show", id]).member("collage")?.member("arrangement")
        #expect(arrangement?.member("hero") == .string("i2") && arrangement?.member("seed") == .number(1))
        #expect(try space.run(["layout", id, "auto", "--seed", "0"]).status == 0)
        #expect(try frames() == before)
        let bad = try space.run(["layout", id, "auto", "--hero", "9"])
        #expect(bad.status == 64 && bad.stderr.contains("--hero expects the number of one of the photos, 1 to 4"))
        let notAuto = try space.run(["layout", id, "strip", "--seed", "2"])
        #expect(notAuto.status == 64 && notAuto.stderr.contains("--seed only applies with --layout auto"))
        #expect(try space.run(["layout", id, "strip"]).status == 0)
        #expect(try space.json(["show", id]).member("collage")?.member("arrangement") == nil)
    }
}
