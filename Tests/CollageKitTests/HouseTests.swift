import CollageKit
import Foundation
import Testing

/// The structure the faces keep: each turns its input into a CollageKit request and a Kit
/// ``Failure`` into an exit code or a status; neither reaches past Kit into the library, the
/// sticker engine or the print code.
@Suite("The faces go through CollageKit")
struct HouseTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// The modules only CollageKit may use.
    static let kitOnly: Set<String> = ["CollageLibrary", "Stickers", "StickerPrint", "CSegmentInterface"]

    /// Every module a file imports, whatever the form (`import X`, `@_exported import X`,
    /// `import struct X.Y`, `@testable import X`).
    static func imports(in file: URL) throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        var modules: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init).filter { !$0.hasPrefix("@") }
            guard words.first == "import", words.count >= 2 else { continue }
            let path = words.count >= 3 ? words[2] : words[1]
            modules.insert(String(path.split(separator: ".")[0]))
        }
        return modules
    }

    @Test(arguments: ["collage", "CollageServer"])
    func aFaceImportsNoModuleBehindKit(face: String) throws {
        let folder = Self.sources.appendingPathComponent(face)
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(files.count > 5, "\(folder.path) holds the face's sources")
        for file in files {
            let reached = try Self.imports(in: file).intersection(Self.kitOnly)
            #expect(
                reached.isEmpty, "\(face)/\(file.lastPathComponent) imports \(reached.sorted()): go through CollageKit")
        }
    }

    @Test func thePackageGivesTheFacesNoModuleBehindKit() throws {
        let manifest = try String(
            contentsOf: Self.sources.deletingLastPathComponent().appendingPathComponent("Package.swift"),
            encoding: .utf8)
        for face in ["\"collage\"", "\"CollageServer\""] {
            let start = try #require(manifest.range(of: "name: \(face),"), "the manifest declares \(face)")
            let end = try #require(manifest.range(of: "]", range: start.upperBound..<manifest.endIndex))
            let dependencies = manifest[start.upperBound..<end.lowerBound]
            for module in Self.kitOnly {
                #expect(!dependencies.contains("\"\(module)\""), "\(face) depends on \(module) directly")
            }
        }
    }

    @Test func everyFailureHasOneExitCodeAndOneStatus() {
        // The one table: a kind is never a success, and the two faces agree on which kinds are
        // the person's to fix (4xx, exit 64-66) and which are the machine's.
        for kind in Failure.Kind.allCases {
            let failure = Failure(kind, "x")
            #expect(failure.exitCode != 0)
            #expect((400...599).contains(failure.httpStatus))
        }
        #expect(Failure(.invalidOption, "x").exitCode == 64 && Failure(.invalidOption, "x").httpStatus == 422)
        #expect(Failure(.notFound, "x").exitCode == 66 && Failure(.notFound, "x").httpStatus == 404)
        #expect(Failure(.locked, "x").exitCode == 77 && Failure(.locked, "x").httpStatus == 402)
    }
}
