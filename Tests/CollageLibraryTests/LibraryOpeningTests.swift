import CollageCore
import Foundation
import Testing

@testable import CollageLibrary

@Suite("Library: opening, migrations and damaged databases")
struct LibraryOpeningTests {
    @Test func anEmptyFolderBecomesALibraryAtTheCurrentSchema() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        for folder in ["photos", "derived"] {
            #expect(FileManager.default.fileExists(atPath: fixtures.libraryRoot.appendingPathComponent(folder).path))
        }
        let (version, mode) = try library.database.read { connection throws(LibraryError) in
            (try connection.scalar("PRAGMA user_version"), try connection.scalar("PRAGMA journal_mode"))
        }
        #expect(version == .integer(Int64(Schema.currentVersion)))
        #expect(mode == .text("wal"))
        library.close()
        // Opening again runs nothing and keeps what is there.
        #expect(try fixtures.open().collages().isEmpty)
    }

    @Test func workThatArrivesAfterTheLibraryClosedIsRefusedNotRunOnFreedMemory() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        _ = try library.createCollage(title: "Kept", templateID: "grid2x2", aspect: .square, photoIDs: [])
        library.close()
        // A background job finishing as the server stops: every kind of call says the library closed.
        let calls: [(String, () throws -> Void)] = [
            ("read", { _ = try library.collages() }),
            ("write", { _ = try library.createCollage(title: "Late", templateID: nil, aspect: .square, photoIDs: []) }),
            ("devices", { _ = try library.devices() }),
        ]
        for (name, call) in calls {
            #expect(throws: LibraryError.self, "\(name)") { try call() }
            do {
                try call()
            } catch {
                #expect("\(error)".contains("closed"), "\(name): \(error)")
            }
        }
        #expect(try fixtures.open().collages().map(\.title) == ["Kept"])
    }

    /// A database left at each earlier schema version migrates forward with its rows intact.
    @Test(arguments: 1..<Schema.currentVersion)
    func earlierSchemasMigrateForward(from version: Int) throws {
        let fixtures = try LibraryFixtures()
        try FileManager.default.createDirectory(at: fixtures.libraryRoot, withIntermediateDirectories: true)
        let connection = try Connection(path: fixtures.databaseFile.path)
        for migration in Schema.migrations.prefix(version) { try connection.execute(migration.sql) }
        try connection.execute("PRAGMA user_version = \(version)")
        try connection.execute("PRAGMA application_id = \(Library.applicationID)")
        try connection.run(
            """
            INSERT INTO collages (id, title, created_at, updated_at, canvas_width, canvas_height, background,
                spacing, padding, corner_radius, template_id, version)
            VALUES ('old', 'Made before', 0, 0, 1200, 1200, '#ffffff', 12, 12, 0, 'strip', 3)
            """)
        connection.close()

        let library = try fixtures.open()
        let stored = try library.collage("old")
        #expect(stored.collage.title == "Made before" && stored.version == 3)
        let current = try library.database.read { connection throws(LibraryError) in
            try connection.scalar("PRAGMA user_version")
        }
        #expect(current == .integer(Int64(Schema.currentVersion)))
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        let fixtures = try LibraryFixtures()
        try fixtures.open().close()
        let connection = try Connection(path: fixtures.databaseFile.path)
        try connection.execute("PRAGMA user_version = 99")
        connection.close()
        let before = try Data(contentsOf: fixtures.databaseFile)
        #expect {
            try fixtures.open()
        } throws: { error in
            guard let error = error as? LibraryError, case .newerSchema(_, 99, Schema.currentVersion) = error else {
                return false
            }
            return error.description.contains("Update Collage") && error.description.contains(Library.databaseName)
        }
        #expect(try Data(contentsOf: fixtures.databaseFile) == before)
    }

    @Test func aCorruptDatabaseIsRefusedAndLeftUntouched() throws {
        let fixtures = try LibraryFixtures()
        try FileManager.default.createDirectory(at: fixtures.libraryRoot, withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: fixtures.databaseFile)
        #expect {
            try fixtures.open()
        } throws: { error in
            guard let error = error as? LibraryError, case .notALibrary(let path, _) = error else { return false }
            return path == fixtures.databaseFile.path && error.description.contains("left untouched")
        }
        #expect(try Data(contentsOf: fixtures.databaseFile) == garbage)
    }

    @Test func aDamagedSQLiteFileIsRefused() throws {
        let fixtures = try LibraryFixtures()
        try fixtures.open().close()
        var bytes = try Data(contentsOf: fixtures.databaseFile)
        // Keep the SQLite header, scramble the rest of the first page.
        for index in 100..<min(bytes.count, 4096) { bytes[index] = 0xA5 }
        try bytes.write(to: fixtures.databaseFile)
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: fixtures.databaseFile.path + "-wal"))
        #expect(throws: LibraryError.self) { try fixtures.open() }
        #expect(try Data(contentsOf: fixtures.databaseFile) == bytes)
    }

    @Test func anotherProgramsDatabaseIsRefused() throws {
        let fixtures = try LibraryFixtures()
        try FileManager.default.createDirectory(at: fixtures.libraryRoot, withIntermediateDirectories: true)
        let connection = try Connection(path: fixtures.databaseFile.path)
        try connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        connection.close()
        #expect {
            try fixtures.open()
        } throws: { error in
            (error as? LibraryError)?.description.contains("tables Collage did not create: invoices") == true
        }
    }

    @Test func anUnwritableLocationSaysSo() throws {
        #expect {
            try Library(root: URL(fileURLWithPath: "/proc/collage-library"))
        } throws: { error in
            guard let error = error as? LibraryError, case .unwritable(let path, _) = error else { return false }
            return path.hasPrefix("/proc/collage-library") && error.description.contains("--library")
        }
        let fixtures = try LibraryFixtures()
        let file = fixtures.directory.appendingPathComponent("a file")
        try Data("x".utf8).write(to: file)
        #expect {
            try Library(root: file)
        } throws: { error in
            (error as? LibraryError)?.description.contains("it is a file, not a folder") == true
        }
    }

    @Test func theDefaultRootFollowsTheEnvironment() {
        #expect(Library.defaultRoot(environment: ["COLLAGE_LIBRARY": "/x/y"]).path == "/x/y")
        #expect(Library.defaultRoot(environment: ["XDG_DATA_HOME": "/data", "HOME": "/h"]).path == "/data/collage")
        #expect(Library.defaultRoot(environment: ["HOME": "/h"]).path == "/h/.local/share/collage")
    }

    @Test func sha256MatchesKnownDigests() {
        #expect(SHA256.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hex(of: million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let spanning = Data((0..<200).map { UInt8($0) })
        var pieces = SHA256()
        pieces.update(spanning.prefix(3))
        pieces.update(spanning.dropFirst(3).prefix(100))
        pieces.update(spanning.dropFirst(103))
        #expect(pieces.finalize() == SHA256.hex(of: spanning))
    }
}

/// Numbers past what a library counts to, left by damage: refused with the row named, never a trap.
@Suite("Library: extreme numbers in damaged rows")
struct DamagedNumberTests {
    @Test(arguments: ["version", "position"])
    func aCountAtTheLargestIntegerIsRefusedNotTrappedOn(column: String) throws {
        let fixtures = try LibraryFixtures()
        var library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("p.png", [10, 90, 160])).photo
        let id = try library.createCollage(title: "Big", templateID: "grid2x2", aspect: .square, photoIDs: [photo.id])
            .collage.id
        try library.apply([.rename(title: "Once")], to: id)
        library.close()
        let connection = try Connection(path: fixtures.databaseFile.path)
        if column == "version" {
            try connection.execute("UPDATE collages SET version = 9223372036854775807")
        } else {
            try connection.execute("UPDATE collage_history SET position = 9223372036854775807")
        }
        library = try fixtures.open()
        #expect {
            // A turn too: a second retitling alone would join the first's step, and save no step.
            try library.apply([.rename(title: "Twice"), .rotateItem(id: "i1", degrees: 5)], to: id)
        } throws: { error in
            "\(error)".contains("outside") && "\(error)".contains("doctor")
        }
        // Nothing was changed, and the collage still reads.
        #expect(try library.collage(id).collage.title == "Once")
        #expect(try library.collages().count == 1)
    }
}
