import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// The Workspace's use cases called as the faces call them, on a real library and real files,
/// without a socket or a process.
@Suite("CollageKit workspace")
struct WorkspaceTests {
    /// A workspace over a fresh library with no model and no licence.
    static func workspace(_ folder: TemporaryFolder) throws -> (Workspace, Library) {
        let library = try Library(root: folder.file("library"))
        let licences = LicenceStore(folder: folder.file("config"))
        return (Workspace(library: library, model: nil, licences: licences), library)
    }

    /// A transparent PNG with an opaque square in its middle.
    static func sticker(_ name: String, in folder: TemporaryFolder) throws -> URL {
        var image = Bitmap(width: 200, height: 200, color: [0, 0, 0, 0])
        for y in 50..<150 { for x in 50..<150 { image[x, y] = [30, 120, 220, 255] } }
        let file = folder.file(name)
        try image.write(to: file, format: .png)
        return file
    }

    @Test func aCollagesHistoryIsWalkedAndEveryStepKeepsItsVersion() throws {
        let folder = try TemporaryFolder("kit-history")
        let (workspace, library) = try Self.workspace(folder)
        defer { library.close() }
        let made = try workspace.create(NewCollageRequest(title: "Steps"))
        #expect(try workspace.history(of: made.collage.id).canUndo == false)
        let renamed = try workspace.rename(made.collage.id, to: "Renamed", expectedVersion: made.version)
        #expect(try workspace.history(of: made.collage.id).canUndo)
        let back = try workspace.step(made.collage.id, undo: true, expectedVersion: renamed.version)
        #expect(back.collage.title == "Steps" && back.version > renamed.version)
        // A stale version is a conflict, which the API answers 409 and the command line 75.
        do {
            _ = try workspace.step(made.collage.id, undo: false, expectedVersion: renamed.version)
            Issue.record("a stale redo was applied")
        } catch {
            #expect(error.kind == .conflict && error.httpStatus == 409 && error.exitCode == 75)
        }
        let copy = try workspace.duplicate(made.collage.id)
        try workspace.delete(made.collage.id)
        #expect(try workspace.collages().map(\.id) == [copy.collage.id])
        #expect(throws: Failure.self) { try workspace.collage(made.collage.id) }
    }

    @Test func aReplacementThatBringsInAPremiumLayoutIsLocked() throws {
        let folder = try TemporaryFolder("kit-replace")
        let (workspace, library) = try Self.workspace(folder)
        defer { library.close() }
        let made = try workspace.create(NewCollageRequest(template: "grid2x2"))
        var premium = made.collage
        premium.templateID = try #require(Template.catalog.first { $0.isPremium }?.id)
        do {
            _ = try workspace.replace(made.collage.id, with: premium, expectedVersion: made.version)
            Issue.record("a premium layout came in through a replacement without a licence")
        } catch {
            #expect(error.kind == .locked)
        }
        #expect(try workspace.collage(made.collage.id).collage.templateID == "grid2x2")
    }

    @Test func aSheetOfFilesIsMadeAndWrittenWithoutALibrary() throws {
        let folder = try TemporaryFolder("kit-sheet")
        let files = try (0..<3).map { try Self.sticker("s\($0).png", in: folder) }
        let request = try SheetRequest(sources: files.map { .file($0, size: nil) }, page: "a5", size: 40)
        let sheet = try request.make(in: nil, looks: folder.file("looks"))
        #expect(sheet.pageCount == 1 && sheet.placements.count == 3 && sheet.names == ["s0.png", "s1.png", "s2.png"])
        #expect(sheet.pageWidth == 148 && sheet.pageHeight == 210)
        let written = try sheet.write(pdf: folder.file("out.pdf"), svg: folder.file("cut.svg"))
        let pdf = try Data(contentsOf: folder.file("out.pdf"))
        #expect(pdf.starts(with: Data("%PDF".utf8)) && written.previews.count == 1 && written.svg.count == 1)
        // Nothing half-written is left beside them.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!names.contains { $0.hasSuffix(".partial") }, "\(names)")
    }

    @Test func aPictureWithTooFewPixelsForItsSizeIsSaidToPrintSoft() throws {
        let folder = try TemporaryFolder("kit-soft")
        let file = try Self.sticker("small.png", in: folder)
        // A 100-pixel subject across 36 mm (40 mm less the 2 mm cut line each side): 70 an inch.
        let large = try SheetRequest(sources: [.file(file, size: 40)], page: "a5")
        let soft = try large.make(in: nil, looks: folder.file("looks"), warnsOfSoftPictures: true)
        #expect(
            soft.warnings.contains("small.png has only 70 pixels an inch at 40 mm; it will print soft"),
            "\(soft.warnings)")
        // Placed three times, it is said once.
        let thrice = try SheetRequest(sources: Array(repeating: .file(file, size: 40), count: 3), page: "a5")
        let said = try thrice.make(in: nil, looks: folder.file("looks"), warnsOfSoftPictures: true).warnings
        #expect(said.filter { $0.contains("print soft") }.count == 1, "\(said)")
        // Across 8 mm it has 317 an inch; and nobody asked, nothing is said.
        let small = try SheetRequest(sources: [.file(file, size: 12)], page: "a5")
        #expect(try small.make(in: nil, looks: folder.file("looks"), warnsOfSoftPictures: true).warnings.isEmpty)
        #expect(try large.make(in: nil, looks: folder.file("looks")).warnings.isEmpty)
    }

    @Test func aSheetIsRefusedBeforeAnyPixelIsMadeWhenItCannotFit() throws {
        let folder = try TemporaryFolder("kit-sheet-bad")
        let file = try Self.sticker("big.png", in: folder)
        // Larger than an A5 page inside its margins: refused naming the sticker.
        let tooLarge = try SheetRequest(sources: [.file(file, size: 400)], page: "a5")
        do {
            _ = try tooLarge.make(in: nil, looks: folder.file("looks"))
            Issue.record("a sticker larger than the page was packed")
        } catch {
            #expect(error.kind == .invalidInput && error.description.contains("big.png"))
        }
        // Over the sheet's pixel budget together, though each alone is allowed.
        let many = try SheetRequest(
            sources: Array(repeating: .file(file, size: 670), count: 6), page: "1200x1200mm")
        do {
            _ = try many.make(in: nil, looks: folder.file("looks"))
            Issue.record("a sheet over its pixel budget was made")
        } catch {
            #expect(error.description.contains("million pixels"))
        }
        #expect(throws: Failure.self) { try SheetRequest(sources: [.file(file, size: nil)], cut: "laser") }
        #expect(throws: Failure.self) { try SheetRequest(sources: [.file(file, size: nil)], size: 1e300) }
        #expect(throws: Failure.self) { try SheetRequest() }
        // A library sticker needs a library.
        #expect(throws: Failure.self) {
            try SheetRequest(sources: [.sticker("abc", size: nil)]).make(in: nil, looks: folder.file("looks"))
        }
    }
}
