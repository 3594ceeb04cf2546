import CollageLicence
import CollageTestSupport
import Foundation
import Testing

/// The per-user licence file: kept across restarts, never replaced by a refused key.
struct LicenceStoreTests {
    @Test func anAddedLicenceIsReadBackByAStoreMadeLater() throws {
        let folder = try TemporaryFolder("collage-licence")
        let added = try LicenceStore(folder: folder.url).add(TestLicence.key())
        // A new process is a new store over the same folder.
        let again = LicenceStore(folder: folder.url)
        #expect(again.current() == .valid(added))
        let mode = try FileManager.default.attributesOfItem(atPath: again.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aRefusedKeyLeavesTheLicenceThatWasThere() throws {
        let folder = try TemporaryFolder("collage-licence")
        let store = LicenceStore(folder: folder.url)
        let kept = try store.add(TestLicence.key())
        let before = try Data(contentsOf: store.file)
        #expect(throws: LicenceError.self) { try store.add(String(TestLicence.key(licensee: "Eve").dropLast(5))) }
        #expect(throws: LicenceError.self) { try store.add("garbage") }
        #expect(try Data(contentsOf: store.file) == before)
        #expect(store.licence == kept)
    }

    @Test func aRefusedKeyOnAFreshMachineWritesNothing() throws {
        let folder = try TemporaryFolder("collage-licence")
        let store = LicenceStore(folder: folder.file("collage"))
        #expect(throws: LicenceError.tampered) {
            var parts = TestLicence.key().split(separator: ".").map(String.init)
            parts[2] = TestLicence.key(licensee: "Eve").split(separator: ".").map(String.init)[2]
            try store.add(parts.joined(separator: "."))
        }
        #expect(store.current() == .none)
        #expect(!FileManager.default.fileExists(atPath: store.file.path))
    }

    @Test func copyingTheFileToAnotherMachineRestoresTheLicence() throws {
        let first = try TemporaryFolder("collage-licence")
        let second = try TemporaryFolder("collage-licence")
        let licence = try LicenceStore(folder: first.url).add(TestLicence.key())
        try FileManager.default.copyItem(
            at: first.file("licence.key"), to: second.file("licence.key"))
        #expect(LicenceStore(folder: second.url).licence == licence)
    }

    @Test func aDamagedFileLocksPremiumAndSaysWhy() throws {
        let folder = try TemporaryFolder("collage-licence")
        let store = LicenceStore(folder: folder.url)
        try Data("collage1.garbage\n".utf8).write(to: store.file)
        guard case .invalid = store.current() else {
            Issue.record("a damaged licence file read as \(store.current())")
            return
        }
        #expect(store.licence == nil)
    }

    @Test func removingForgetsTheLicence() throws {
        let folder = try TemporaryFolder("collage-licence")
        let store = LicenceStore(folder: folder.url)
        #expect(try store.remove() == false)
        try store.add(TestLicence.key())
        #expect(try store.remove() == true)
        #expect(store.current() == .none)
    }

    @Test func removingLeavesAFolderALinkOrALargeFileAtThePathAlone() throws {
        let folder = try TemporaryFolder("collage-licence")
        let store = LicenceStore(folder: folder.url)
        // A folder with someone's files in it where the key would be.
        try FileManager.default.createDirectory(at: store.file, withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: store.file.appendingPathComponent("notes.txt"))
        #expect(throws: LicenceError.self) { try store.remove() }
        #expect(FileManager.default.fileExists(atPath: store.file.appendingPathComponent("notes.txt").path))
        try FileManager.default.removeItem(at: store.file)
        // A link to another file: neither is removed.
        let target = folder.file("elsewhere.txt")
        try Data("mine".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(at: store.file, withDestinationURL: target)
        #expect(throws: LicenceError.self) { try store.remove() }
        #expect(try Data(contentsOf: target) == Data("mine".utf8))
        try FileManager.default.removeItem(at: store.file)
        // A file far larger than any key is not one Collage wrote.
        try Data(repeating: 65, count: 100_000).write(to: store.file)
        #expect(throws: LicenceError.self) { try store.remove() }
        #expect(FileManager.default.fileExists(atPath: store.file.path))
    }

    @Test func theStandardPlaceFollowsXDGConfigHome() {
        let store = LicenceStore.standard(environment: ["XDG_CONFIG_HOME": "/tmp/cfg", "HOME": "/home/ada"])
        #expect(store.file.path == "/tmp/cfg/collage/licence.key")
        #expect(
            LicenceStore.standard(environment: ["HOME": "/home/ada"]).file.path
                == "/home/ada/.config/collage/licence.key")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG specification says.
        #expect(
            LicenceStore.standard(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/ada"]).file.path
                == "/home/ada/.config/collage/licence.key")
    }
}
