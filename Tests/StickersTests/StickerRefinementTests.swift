import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

/// The refine brush: Erase and Restore on a sticker's own pixels, edge-aware in the brush's outer
/// half, and refined stickers stored in the library in their photo's place.
@Suite("Stickers: the refine brush")
struct StickerRefinementTests {
    /// A photo of a red disc on a light wall, and the sticker a lift would make of it at (0, 0):
    /// the disc kept, and a stray patch of the wall kept too (what the brush should take away).
    static func disc() -> (photo: Bitmap, sticker: Bitmap) {
        var photo = Bitmap(width: 100, height: 80, color: [225, 222, 215])
        var sticker = Bitmap(width: 100, height: 80, color: [0, 0, 0, 0])
        for y in 0..<80 {
            for x in 0..<100 {
                let inside = (Double(x) - 40) * (Double(x) - 40) + (Double(y) - 40) * (Double(y) - 40) <= 25 * 25
                if inside { photo[x, y] = [200, 30, 40] }
                if inside || (x >= 75 && y < 20) { sticker[x, y] = photo[x, y] + [255] }
            }
        }
        return (photo, sticker)
    }

    @Test func eraseTakesAwayWhatTheStrokeCoversAndRestoreBringsThePhotoBack() throws {
        let (photo, sticker) = Self.disc()
        let erase = BrushStroke(
            mode: .erase, radius: 8, softness: 0, points: [Point(x: 80, y: 2), Point(x: 95, y: 12)])
        let erased = try StickerRefinement.apply([erase], to: sticker, photo: photo)
        #expect(erased[86, 6] == [0, 0, 0, 0], "the stray patch is erased and keeps no colour")
        #expect(erased[40, 40] == [200, 30, 40, 255], "the disc is untouched")
        // Restoring a bite taken out of the disc brings the photo's own red back, opaque.
        var bitten = sticker
        for y in 35..<45 { for x in 60..<66 { bitten[x, y] = [0, 0, 0, 0] } }
        let restore = BrushStroke(mode: .restore, radius: 4, softness: 0, points: [Point(x: 62, y: 40)])
        let restored = try StickerRefinement.apply([restore], to: bitten, photo: photo)
        #expect(restored[62, 40] == [200, 30, 40, 255])
        #expect(restored[64, 44] == [0, 0, 0, 0], "outside the brush nothing comes back")
    }

    @Test func theBrushsOuterHalfStopsAtTheSubjectsEdge() throws {
        let (photo, sticker) = Self.disc()
        // A wide stroke down the wall just right of the disc (its edge at x = 65): the brush's
        // outer half reaches 6 px into the disc but leaves it, as the wall's colour stops there.
        let stroke = BrushStroke(
            mode: .erase, radius: 14, softness: 0.3, points: [Point(x: 73, y: 30), Point(x: 73, y: 50)])
        let erased = try StickerRefinement.apply([stroke], to: sticker, photo: photo)
        #expect(erased[62, 40][3] >= 200, "the disc's edge, in the brush's reach, stays: \(erased[62, 40])")
        // The same stroke on a photo with no edge there (the disc's colour all over) does erase it.
        let flat = Bitmap(width: 100, height: 80, color: [200, 30, 40])
        let plain = try StickerRefinement.apply([stroke], to: sticker, photo: flat)
        #expect(plain[62, 40][3] < 128, "without an edge the brush takes what it covers: \(plain[62, 40])")
    }

    @Test func erasesOuterHalfTakesAFaintLeftoverOfAnotherColour() throws {
        // A dark shelf's edge on the light wall, kept faint by the lift (a quarter opaque), and a
        // wide stroke down the wall beside it: the brush's outer half takes the leftover though its
        // colour is not the wall's. Kept solid, the same edge would stay (see the test above).
        var (photo, sticker) = Self.disc()
        for y in 25..<55 {
            for x in 85..<88 {
                photo[x, y] = [40, 36, 30]
                sticker[x, y] = [40, 36, 30, 60]
            }
        }
        let stroke = BrushStroke(
            mode: .erase, radius: 14, softness: 0.3, points: [Point(x: 78, y: 30), Point(x: 78, y: 50)])
        let erased = try StickerRefinement.apply([stroke], to: sticker, photo: photo)
        #expect(erased[86, 40][3] <= 20, "the faint leftover goes: \(erased[86, 40])")
        for y in 25..<55 { for x in 85..<88 { sticker[x, y][3] = 255 } }
        let solid = try StickerRefinement.apply([stroke], to: sticker, photo: photo)
        #expect(solid[86, 40][3] >= 200, "a solid part of that colour stays: \(solid[86, 40])")
    }

    /// A blade of grass the lift kept, sticking out of the disc, erased across its middle: its
    /// far end stayed as an island beside the sticker, and the stroke's soft edge left a ghost of
    /// the blade. Both go; a piece that was apart before the stroke (a second thing the lift
    /// kept) stays, and so does what Restore paints back.
    @Test func eraseTakesWhatItCutsOffAndLeavesNoGhost() throws {
        var (photo, sticker) = Self.disc()
        for x in 64..<90 {
            for y in 39..<41 {
                photo[x, y] = [70, 140, 50]
                sticker[x, y] = [70, 140, 50, 255]
            }
        }
        for y in 70..<76 { for x in 90..<96 { sticker[x, y] = [120, 120, 120, 255] } }
        let stroke = BrushStroke(
            mode: .erase, radius: 6, softness: 0.6, points: [Point(x: 78, y: 32), Point(x: 78, y: 48)])
        let erased = try StickerRefinement.apply([stroke], to: sticker, photo: photo)
        #expect(erased[78, 40][3] == 0)
        #expect(erased[86, 40] == [0, 0, 0, 0], "the blade's cut-off end is cleared: \(erased[86, 40])")
        #expect(erased[89, 39] == [0, 0, 0, 0])
        for x in 70..<86 {
            #expect(erased[x, 40][3] == 0 || erased[x, 40][3] >= StickerRefinement.seenOpacity, "a ghost at \(x)")
        }
        #expect(erased[66, 40][3] == 255, "the blade's root, joined to the disc, stays")
        #expect(erased[92, 72] == [120, 120, 120, 255], "a piece the stroke never touched stays")
        #expect(erased[40, 40] == [200, 30, 40, 255])

        // A piece apart from the start stays though the brush's soft edge grazes it, and a cut
        // off end that Restore paints back stays too.
        for y in 52..<56 { for x in 82..<86 { sticker[x, y] = [120, 120, 120, 255] } }
        let grazing = BrushStroke(
            mode: .erase, radius: 6, softness: 0.9, points: [Point(x: 78, y: 48), Point(x: 78, y: 60)])
        let grazed = try StickerRefinement.apply([grazing], to: sticker, photo: photo)
        #expect(grazed[82, 53][3] < 255, "the brush grazed the piece: \(grazed[82, 53])")
        #expect(grazed[85, 54][3] >= 200, "the piece apart is kept: \(grazed[85, 54])")
        let back = BrushStroke(mode: .restore, radius: 3, softness: 0, points: [Point(x: 86, y: 40)])
        let restored = try StickerRefinement.apply([stroke, back], to: sticker, photo: photo)
        #expect(restored[86, 40][3] == 255, "the end painted back stays: \(restored[86, 40])")
    }

    @Test func theBrushReachesPastTheStickerWithinAPhonesCanvas() {
        // A quarter of the longer side, 16 to 512 pixels.
        #expect(StickerRefinement.reach(width: 400, height: 200) == 100)
        #expect(StickerRefinement.reach(width: 40, height: 20) == 16)
        #expect(StickerRefinement.reach(width: 3000, height: 1000) == 512)
        // Near 16 megapixels it shrinks so the picture stays within them; past them it is none.
        let reach = StickerRefinement.reach(width: 4000, height: 3500)
        #expect(reach > 0 && reach < 512)
        #expect((4000 + 2 * reach) * (3500 + 2 * reach) <= StickerRefinement.largestArea)
        #expect(StickerRefinement.reach(width: 5000, height: 4000) == 0)
        // Clipped to the photo, and never smaller than the sticker's own box.
        let area = StickerRefinement.area(
            width: 400, height: 200, origin: PixelPoint(x: 30, y: 500), photoWidth: 1000, photoHeight: 650)
        #expect(area.x == 0 && area.y == 400 && area.width == 530 && area.height == 300, "\(area)")
    }

    @Test func aPhotoOfAnotherSizeIsRefusedByName() throws {
        let (_, sticker) = Self.disc()
        let photo = Bitmap(width: 10, height: 10, color: [0, 0, 0])
        #expect {
            try StickerRefinement.apply([], to: sticker, photo: photo)
        } throws: { error in
            "\(error)".contains("10 × 10")
        }
    }

    @Test func aRefinedStickerIsANewLibraryStickerInItsPhotosPlace() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("refine")
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(shapes: [(240, 180, 90, 110, [30, 60, 200])])
        let file = folder.file("scene.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        // Analysed first: the lift copies a prepared sticker, and its place beside it.
        #expect(try model.analyse(photo, in: library) == .ready)
        let prepared = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions())
        let origin = try #require(prepared.photoOrigin)
        #expect(abs(origin.x - 150) < 12 && abs(origin.y - 70) < 12, "\(origin)")
        // A sticker that recorded no place (an older version's prepared file) has it found
        // again, and kept.
        let walk = FileManager.default.enumerator(at: library.maskCacheFolder, includingPropertiesForKeys: nil)
        for case let file as URL in walk?.allObjects ?? [] where file.pathExtension == "origin" {
            try FileManager.default.removeItem(at: file)
        }
        let other = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(margin: 0.03001))
        #expect(other.photoOrigin != nil, "a sticker made the long way records its place")
        let lifted = try library.saveSticker(
            id: "older", photoID: photo.id, selection: prepared.selection, outlineWidth: 0, shadow: false,
            image: try Bitmap.read(library.stickerFile(of: prepared)))
        #expect(lifted.photoOrigin == nil)
        #expect(try model.origin(of: lifted, in: library) == origin)
        #expect(try library.sticker(lifted.id).photoOrigin == origin)
        // Erase the left half of the subject, then restore a dab of it.
        let middle = Double(lifted.height) / 2
        let erase = BrushStroke(
            mode: .erase, radius: 30, softness: 0,
            points: [Point(x: 0, y: middle - 60), Point(x: 0, y: middle), Point(x: 0, y: middle + 60)])
        let restore = BrushStroke(mode: .restore, radius: 5, softness: 0, points: [Point(x: 20, y: middle)])
        let refined = try model.refineSticker(lifted.id, strokes: [erase, restore], in: library)
        // What the strokes left is cut down to, with a sticker's margin: the erased left edge is
        // gone, so the sticker is narrower and starts further right in the photo.
        let moved = try #require(refined.photoOrigin)
        let shift = moved.x - origin.x
        #expect(refined.id != lifted.id && refined.height == lifted.height && moved.y == origin.y)
        #expect(shift > 0 && shift < 15 && refined.width == lifted.width - shift, "\(moved), \(refined.width)")
        let pixels = try Bitmap.read(library.stickerFile(of: refined))
        let right = Int(Double(lifted.width) * 0.5)
        let before = try Bitmap.read(library.stickerFile(of: lifted))
        #expect(lifted.width > 120 && before[10, Int(middle)][3] == 255, "\(before[10, Int(middle)])")
        #expect(pixels[max(0, 10 - shift), Int(middle)][3] == 0, "erased: \(pixels[10 - shift, Int(middle)])")
        #expect(pixels[20 - shift, Int(middle)] == [30, 60, 200, 255], "restored from the photo")
        #expect(pixels[right - shift, Int(middle)] == [30, 60, 200, 255], "the rest is as lifted")
        // Restore reaches past the sticker's box: a dab left of it, on the photo's background,
        // grows the sticker to keep it.
        let beside = BrushStroke(mode: .restore, radius: 6, softness: 0, points: [Point(x: -14, y: middle)])
        let grown = try model.refineSticker(lifted.id, strokes: [beside], in: library)
        let grownOrigin = try #require(grown.photoOrigin)
        #expect(grownOrigin.x <= origin.x - 20 && grown.width >= lifted.width + 20, "\(grownOrigin), \(grown.width)")
        let grownPixels = try Bitmap.read(library.stickerFile(of: grown))
        let dab = grownPixels[origin.x - 14 - grownOrigin.x, Int(middle)]
        #expect(dab[3] == 255 && dab != [30, 60, 200, 255], "the photo's background, restored: \(dab)")
        // The same strokes make the same sticker; the original stays for the collages that show it.
        #expect(try model.refineSticker(lifted.id, strokes: [erase, restore], in: library).id == refined.id)
        #expect(try library.stickers().count == 5)
        // Refining the refined one again finds its place from its record.
        let again = try model.refineSticker(refined.id, strokes: [restore], in: library)
        #expect(again.photoOrigin?.y == origin.y && (again.photoOrigin?.x ?? 0) >= origin.x)
        // A sticker with its outline drawn in is refused, with what to do instead.
        let outlined = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(outlineWidth: 6))
        #expect {
            try model.refineSticker(outlined.id, strokes: [restore], in: library)
        } throws: { error in
            "\(error)".contains("outline or shadow drawn into it")
        }
        // So is one with an effect drawn in (its colours are no longer the photo's), and the
        // library remembers which after it is opened again.
        let comic = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(effect: .comic))
        #expect(try Library(root: folder.file("library")).sticker(comic.id).drawnEffect == "comic")
        #expect(try library.sticker(refined.id).drawnEffect == nil)
        #expect {
            try model.refineSticker(comic.id, strokes: [restore], in: library)
        } throws: { error in
            "\(error)".contains("has the comic effect drawn into it")
        }
    }
}

extension StickerRefinementTests {
    /// A prepared sticker's place beside it that holds nonsense (the most negative number, which
    /// traps a naive abs()) is no place: the lift still works, and the place is found again.
    @Test func aDamagedPlaceBesideAPreparedStickerIsFoundAgain() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("refine-damaged-place")
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(shapes: [(240, 180, 90, 110, [30, 60, 200])])
        let file = folder.file("scene.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        #expect(try model.analyse(photo, in: library) == .ready)
        let walk = FileManager.default.enumerator(at: library.maskCacheFolder, includingPropertiesForKeys: nil)
        var damaged = 0
        for case let place as URL in walk?.allObjects ?? [] where place.pathExtension == "origin" {
            try Data("-9223372036854775808,-9223372036854775808".utf8).write(to: place)
            damaged += 1
        }
        #expect(damaged > 0)
        let lifted = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions())
        #expect(lifted.photoOrigin == nil)
        let origin = try model.origin(of: lifted, in: library)
        #expect(abs(origin.x - 150) < 12 && abs(origin.y - 70) < 12, "\(origin)")
    }
}
