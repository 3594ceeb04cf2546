import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import CollageTestSupport
import Foundation
import StickerPrint
import Testing

/// CollageKit's use cases called as either face calls them, without a socket or a process: the
/// checks, the one failure table, and what a use case leaves in a real library.
@Suite("CollageKit use cases")
struct UseCaseTests {
    @Test func exportOptionsAreReadOnceForBothFaces() throws {
        let options = try ExportOptions.parse(["scale": "3", "quality": "80"], fileName: "poster.jpg")
        #expect(options.size == .scale(3) && options.format == .jpeg && options.quality == 80)
        #expect(throws: Failure.self) { try ExportOptions.parse(["scale": "2", "size": "800"]) }
        do {
            _ = try ExportOptions.parse(["scale": "1e300"])
            Issue.record("an absurd scale was taken")
        } catch {
            #expect(error.kind == .invalidOption && error.description.contains("scale"))
            #expect(error.exitCode == 64 && error.httpStatus == 422)
        }
    }

    @Test func aNewCollageIsCheckedThenStoredInARealLibrary() throws {
        let folder = try TemporaryFolder("kit-new")
        let library = try Library(root: folder.file("library"))
        defer { library.close() }
        let photo = try library.importPhoto(from: try TestPhotos.solid([200, 40, 40], to: folder.file("p.png"))).photo
        #expect(throws: Failure.self) { try NewCollageRequest(template: "no-such-layout") }
        #expect(throws: Failure.self) { try NewCollageRequest(aspect: "0:0") }
        let request = try NewCollageRequest(title: "Trip", template: "grid2x2", aspect: "4:5", photos: [photo.id])
        let stored = try request.create(in: library, access: PremiumAccess(licence: nil))
        let reopened = try library.collage(stored.collage.id)
        #expect(reopened.collage.title == "Trip" && reopened.collage.items.count == 1)
        #expect(abs(reopened.collage.canvas.width / reopened.collage.canvas.height - 0.8) < 0.001)
        // A premium layout without a licence is refused with the failure both faces answer 402/77 for.
        do {
            _ = try NewCollageRequest(template: "magazine").create(in: library, access: PremiumAccess(licence: nil))
            Issue.record("a premium layout was applied without a licence")
        } catch {
            #expect(error.kind == .locked && error.httpStatus == 402 && error.exitCode == 77)
        }
    }

    @Test func stickerRequestsRefuseWhatNoLiftCouldDo() {
        #expect(throws: Failure.self) { try StickerRequest(outline: 1e300) }
        #expect(throws: Failure.self) { try StickerRequest(effect: "sparkly") }
        #expect(throws: Failure.self) { try StickerRequest(point: .unit(x: 2, y: 0.5)) }
        #expect((try? StickerRequest(outline: 8, shadow: true, effect: "puffy")) != nil)
    }

    /// One table: an error of each lower library maps to one failure, whichever face shows it.
    @Test(arguments: [
        (PrintError.unreadable("x.png: not a PNG").failure, 65, 422),
        (PrintError.tooLarge("does not fit").failure, 65, 422),
        (PrintError.invalidOption("size").failure, 64, 422),
        (PrintError.unwritable("out.pdf").failure, 73, 500),
        (LicenceError.tampered.failure, 65, 422),
        (LicenceError.cannotWrite(path: "p", reason: "r").failure, 73, 500),
        (LibraryError.unknownCollage("c").failure, 66, 404),
        (LibraryError.staleVersion(collage: "c", expected: 1, current: 2).failure, 75, 409),
    ])
    func everyLowerErrorMapsOnce(failure: Failure, exitCode: Int32, status: Int) {
        #expect(failure.exitCode == exitCode && failure.httpStatus == status, "\(failure)")
    }
}

/// The refine brush's strokes, read and checked as the API receives them.
@Suite("Refine strokes")
struct RefineRequestTests {
    static func strokes(_ json: String) throws -> JSONValue {
        try JSONValue.parse(Data(json.utf8))
    }

    @Test func strokesAreReadWithTheirDefaultsAndEveryBadValueIsNamed() throws {
        let request = try RefineRequest(
            Self.strokes(#"[{"mode": "restore", "size": 30, "points": [[1, 2], [3.5, 4]]}]"#), stickerWidth: 100,
            stickerHeight: 80)
        #expect(request.strokes.count == 1 && request.strokes[0].mode == .restore)
        #expect(request.strokes[0].radius == 15 && request.strokes[0].softness == 0.5)
        #expect(request.strokes[0].points == [Point(x: 1, y: 2), Point(x: 3.5, y: 4)])
        for (json, field) in [
            (#"{}"#, "strokes"), (#"[{"mode": "erase", "size": 10, "points": []}]"#, "strokes[0].points"),
            (#"[{"mode": "erase", "size": -4, "points": [[1, 1]]}]"#, "strokes[0].size"),
            (#"[{"mode": "erase", "size": 4, "softness": 2, "points": [[1, 1]]}]"#, "strokes[0].softness"),
            (#"[{"mode": "erase", "size": 4, "points": [[1, 1], [400, 1]]}]"#, "strokes[0].points[1]"),
            (#"[{"mode": "erase", "size": 4, "points": [[1, 1, 1]]}]"#, "strokes[0].points[0]"),
        ] {
            #expect {
                try RefineRequest(Self.strokes(json), stickerWidth: 100, stickerHeight: 80)
            } throws: { error in
                (error as? Failure)?.field == field
            }
        }
    }

    /// Wide strokes over a huge sticker would run for minutes: they are refused before any work.
    @Test func strokesThatWouldVisitTooManyPixelsAreRefused() throws {
        let path = Array(repeating: "[0, 0], [9000, 300], [0, 300], [9000, 0]", count: 30).joined(separator: ", ")
        let json = #"[{"mode": "erase", "size": 1500, "points": ["# + path + "]}]"
        #expect {
            try RefineRequest(Self.strokes(json), stickerWidth: 10_000, stickerHeight: 10_000)
        } throws: { error in
            "\(error)".contains("too much")
        }
        // The same strokes on a short sticker visit only its pixels and as far past them as the
        // brush reaches: they are fine.
        #expect(try RefineRequest(Self.strokes(json), stickerWidth: 10_000, stickerHeight: 100).strokes.count == 1)
    }
}
