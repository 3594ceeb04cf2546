import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

@Suite("Stickers in the library", .serialized)
struct LibraryStickerTests {
    @Test func aStickerIsStoredCachedAndPlacedInACollage() throws {
        // A model of its own: the shared one counts inferences from tests running alongside.
        let model = try SubjectModel()
        let folder = try TemporaryFolder("stickers")
        let directory = folder.url
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(shapes: [(240, 180, 90, 110, [30, 60, 200])])
        let photoFile = directory.appendingPathComponent("scene.png")
        try scene.image.write(to: photoFile, format: .png)
        let photo = try library.importPhoto(from: photoFile).photo

        let before = model.inferenceCount
        let first = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(outlineWidth: 6))
        #expect(model.inferenceCount == before + 1)
        let again = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(outlineWidth: 6))
        #expect(model.inferenceCount == before + 1, "the cached mask is reused: no second inference")
        #expect(again.id == first.id)
        let file = library.stickerFile(of: again)
        #expect(try Data(contentsOf: file) == Data(contentsOf: library.stickerFile(of: first)))
        let other = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions())
        #expect(other.id != first.id, "other options are another sticker")

        // Place it in a collage and render: the sticker's pixels land in its frame.
        let stored = try library.createCollage(title: "With sticker", templateID: nil, aspect: .square)
        let placed = try library.apply(
            [.addItem(id: "s", content: .sticker(first.id), frame: Rect(x: 400, y: 400, width: 400, height: 400))],
            to: stored.collage.id)
        let output = directory.appendingPathComponent("out.png")
        try CollageRenderer().render(
            placed.collage, photos: LibraryPhotoSource(library: library),
            options: RenderOptions(size: .scale(0.5), format: .png), to: output)
        let image = try Bitmap.read(output)
        #expect(image[300, 300] == [30, 60, 200], "the subject is in the middle of the frame")
        #expect(image[202, 202] == [255, 255, 255], "around the subject the page shows through")

        // Cleanup keeps the photo a sticker came from, and the sticker's own file.
        #expect(try library.cleanUp().removedFiles == 0)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func analysisMakesThePlainStickersAheadAndALiftCopiesTheSameBytes() throws {
        // A model of its own: the shared one counts inferences from tests running alongside.
        let model = try SubjectModel()
        let folder = try TemporaryFolder("prepared")
        let scene = StickerFixtures.scene(shapes: [
            (150, 180, 90, 120, [200, 40, 40]), (370, 150, 60, 80, [30, 90, 210]),
        ])
        let photoFile = folder.file("two.png")
        try scene.image.write(to: photoFile, format: .png)
        let analysed = try Library(root: folder.file("analysed"))
        let photo = try analysed.importPhoto(from: photoFile).photo
        #expect(try model.analyse(photo, in: analysed) == .ready)
        // Without its cached mask, only a prepared sticker can be lifted without the model.
        let masks = analysed.derivedFolder.appendingPathComponent("masks")
        let files =
            FileManager.default.enumerator(at: masks, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        let refinedMasks = files.filter { $0.lastPathComponent.hasSuffix("-r.png") }
        #expect(refinedMasks.count == 1)
        for file in refinedMasks { try FileManager.default.removeItem(at: file) }

        let fresh = try Library(root: folder.file("fresh"))
        _ = try fresh.importPhoto(from: photoFile)
        for (x, y) in [(150, 180), (370, 150)] {
            let options = StickerOptions(selection: .point(x: x, y: y))
            let before = model.inferenceCount
            let copied = try model.makeSticker(ofPhoto: photo.id, in: analysed, options: options)
            #expect(model.inferenceCount == before, "the sticker at (\(x), \(y)) was made ahead")
            let made = try model.makeSticker(ofPhoto: photo.id, in: fresh, options: options)
            #expect(copied.id == made.id)
            #expect(copied.width == made.width && copied.height == made.height)
            #expect(
                try Data(contentsOf: analysed.stickerFile(of: copied)) == Data(contentsOf: fresh.stickerFile(of: made)),
                "the prepared sticker is the one the long way makes")
            let image = try Bitmap.read(analysed.stickerFile(of: copied))
            #expect(image.width == copied.width && image.height == copied.height)
        }
        // Anything but the plain sticker of one subject takes the long way, with its own errors.
        let before = model.inferenceCount
        _ = try model.makeSticker(ofPhoto: photo.id, in: analysed, options: StickerOptions(outlineWidth: 4))
        #expect(model.inferenceCount == before + 1)
        #expect(throws: StickerError.self) {
            try model.makeSticker(
                ofPhoto: photo.id, in: analysed, options: StickerOptions(selection: .point(x: 5, y: 5)))
        }
    }

    /// "No subject", kept for a photo by an earlier rule (under the model alone, or under its
    /// focus key before photos were given to the model scaled to their brightest), and a mask an
    /// earlier rule cached, are not believed: that photo is analysed again, and its subject found.
    @Test func aPhotoAnEarlierRuleFoundNoSubjectInIsAnalysedAgain() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("no-subject-before")
        let library = try Library(root: folder.file("library"))
        let file = folder.file("disc.png")
        try StickerFixtures.scene(shapes: [(240, 180, 100, 120, [40, 160, 60])]).image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        try library.storeFocus(.noSubject, photoID: photo.id, model: model.sha256)
        try library.storeFocus(.noSubject, photoID: photo.id, model: "\(model.sha256)/top35")
        // And a mask cached under an earlier rule's key: `collage photos` said "ready" for it.
        let oldMask = library.maskCacheFile(photoID: photo.id, key: "\(model.sha256.prefix(12))-r")
        try FileManager.default.createDirectory(
            at: oldMask.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Bitmap(width: 480, height: 360, color: [255]).write(to: oldMask, format: .png)
        let found = { library.subjectsFound(photoID: photo.id, maskKey: model.maskKey, focusKey: model.focusKey) }
        #expect(model.readiness(of: photo, in: library) == .pending)
        #expect(found() == nil)
        #expect(try model.analyse(photo, in: library) == .ready)
        #expect(found() == true)
        #expect(!FileManager.default.fileExists(atPath: oldMask.path), "the earlier rule's mask is removed")
        guard case .subject? = model.cachedFocus(of: photo, in: library) else {
            Issue.record("no focal point kept")
            return
        }
    }

    /// A mask an older Collage cached for a black-and-white photo (from before the model saw
    /// such photos twice, when a grey cat came out as one eye) is not lifted from again: the
    /// photo is seen afresh. A colour photo's cached mask is still read.
    @Test func aGreyPhotosMaskCachedBeforeGreyPhotosWereSeenTwiceIsFoundAgain() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("grey-mask")
        let library = try Library(root: folder.file("library"))
        let colour = StickerFixtures.scene(shapes: [(240, 180, 100, 120, [40, 160, 60])]).image
        let grey = try #require(
            Bitmap(
                width: colour.width, height: colour.height, channels: 3,
                pixels: (0..<colour.width * colour.height).flatMap { index -> [UInt8] in
                    let pixel = colour.pixels[index * 3..<index * 3 + 3].map(Int.init)
                    let luma = UInt8((pixel[0] * 299 + pixel[1] * 587 + pixel[2] * 114) / 1000)
                    return [luma, luma, luma]
                }))
        // What the older Collage left: a mask of a 60 px square, under the key of a refined mask
        // without the mark colourless photos' masks now carry.
        var oldMask = [UInt8](repeating: 0, count: colour.width * colour.height)
        for y in 150..<210 { for x in 210..<270 { oldMask[y * colour.width + x] = 255 } }
        let oldMaskImage = try #require(
            Bitmap(width: colour.width, height: colour.height, channels: 1, pixels: oldMask))
        var widths: [String: Int] = [:]
        for (name, image) in [("colour", colour), ("grey", grey)] {
            let file = folder.file("\(name).png")
            try image.write(to: file, format: .png)
            let photo = try library.importPhoto(from: file).photo
            let cache = library.maskCacheFile(photoID: photo.id, key: model.maskKey)
            try FileManager.default.createDirectory(
                at: cache.deletingLastPathComponent(), withIntermediateDirectories: true)
            try oldMaskImage.write(to: cache, format: .png)
            let before = model.inferenceCount
            let sticker = try model.makeSticker(ofPhoto: photo.id, in: library, options: StickerOptions(margin: 0))
            widths[name] = sticker.width
            #expect(model.inferenceCount == before + (name == "grey" ? 1 : 0), "\(name): the model's runs")
        }
        #expect(widths["colour"] ?? 0 <= 80, "the colour photo's cached mask is read")
        #expect(widths["grey"] ?? 0 >= 180, "the grey photo's sticker is \(widths["grey"] ?? 0) px wide")
    }

    @Test func aPhotoAnalysedBeforeStickersWereMadeAheadIsPreparedFromItsCachedMask() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("prepared-later")
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(shapes: [(240, 180, 100, 120, [40, 160, 60])])
        let file = folder.file("photo.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        #expect(try model.analyse(photo, in: library) == .ready)
        // What an older version left: the mask, and nothing made ahead.
        let walk = FileManager.default.enumerator(at: library.maskCacheFolder, includingPropertiesForKeys: nil)
        for case let made as URL in walk?.allObjects ?? [] where made.lastPathComponent.contains("-edges") {
            try FileManager.default.removeItem(at: made)
        }
        #expect(model.readiness(of: photo, in: library) == .pending)
        let before = model.inferenceCount
        #expect(try model.analyse(photo, in: library) == .ready)
        #expect(model.readiness(of: photo, in: library) == .ready)
        #expect(model.inferenceCount == before, "the cached mask was read, the model not run")
    }

    @Test func anAnalysisStoppedForAShutdownRunsNoModelAndLeavesThePhotoPending() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("analysis-stopped")
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(shapes: [(240, 180, 100, 120, [40, 160, 60])])
        let file = folder.file("photo.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        let before = model.inferenceCount
        do {
            _ = try model.analyse(photo, in: library) { true }
            Issue.record("a stopped analysis went on")
        } catch {
            guard case .image(.cancelled) = error else {
                Issue.record("stopped with \(error)")
                return
            }
        }
        #expect(model.inferenceCount == before, "the model ran after the stop")
        #expect(model.readiness(of: photo, in: library) == .pending)
        #expect(try model.analyse(photo, in: library) == .ready)
    }

    @Test func preparedStickersKeepToTheirBudgetOldestGoingFirst() throws {
        let model = try SubjectModel()
        let folder = try TemporaryFolder("prepared-budget")
        let library = try Library(root: folder.file("library"))
        var photos: [PhotoRecord] = []
        for (index, color) in [[200, 40, 40], [30, 90, 210]].enumerated() {
            let scene = StickerFixtures.scene(shapes: [(240, 180, 100, 120, color.map(UInt8.init))])
            let file = folder.file("photo\(index).png")
            try scene.image.write(to: file, format: .png)
            let photo = try library.importPhoto(from: file).photo
            #expect(try model.analyse(photo, in: library) == .ready)
            photos.append(photo)
        }
        func prepared(_ photo: PhotoRecord) -> [URL] {
            let walk = FileManager.default.enumerator(at: library.maskCacheFolder, includingPropertiesForKeys: nil)
            return (walk?.allObjects as? [URL] ?? []).filter {
                $0.lastPathComponent.hasPrefix(photo.id) && $0.lastPathComponent.contains("-subject")
                    && $0.pathExtension == "png"
            }
        }
        let (older, newer) = (try #require(prepared(photos[0]).first), try #require(prepared(photos[1]).first))
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: older.path)
        let newerSize = try #require(try newer.resourceValues(forKeys: [.fileSizeKey]).fileSize)
        SubjectModel.trimPrepared(in: library, budget: newerSize)
        #expect(prepared(photos[0]).isEmpty, "the older photo's sticker went")
        #expect(!FileManager.default.fileExists(atPath: older.path + ".origin"), "and its place beside it")
        #expect(prepared(photos[1]) == [newer], "the newer one fits and stays")
        // A lift of the older photo still works, the long way (its mask is cached: no inference).
        let before = model.inferenceCount
        let sticker = try model.makeSticker(
            ofPhoto: photos[0].id, in: library, options: StickerOptions(selection: .point(x: 240, y: 180)))
        #expect(model.inferenceCount == before)
        #expect(
            try Bitmap.read(library.stickerFile(of: sticker))[sticker.width / 2, sticker.height / 2] == [
                200, 40, 40, 255,
            ])
    }

    @Test func analysisKeepsTheFocalPointSoASmartCropRunsNoModel() throws {
        // A model of its own: the shared one counts inferences from tests running alongside.
        let model = try SubjectModel()
        let folder = try TemporaryFolder("analysed-focus")
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(width: 900, height: 400, shapes: [(680, 220, 80, 110, [30, 120, 60])])
        let file = folder.file("wide.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        #expect(try model.analyse(photo, in: library) == .ready)
        guard case .subject(let kept)? = try library.cachedFocus(photoID: photo.id, model: model.focusKey) else {
            Issue.record("analysis kept no focal point")
            return
        }
        // Across, the centre of the ellipse; down, 35 % of the way from its top (its head).
        let headroom = (220.0 - 110 + 0.35 * 220) / 400
        #expect(abs(kept.x - 680.0 / 900) < 0.03 && abs(kept.y - headroom) < 0.05, "\(kept)")
        // The model's own focus of the photo agrees with the one taken from the mask.
        let computed = try #require(model.focusPoint(ofFile: file))
        #expect(abs(computed.x - kept.x) < 0.02 && abs(computed.y - kept.y) < 0.02, "\(computed) against \(kept)")
        let before = model.inferenceCount
        let source = LibrarySubjectFocusSource(library: library, model: model)
        #expect(source.automaticFocus(for: .photo(photo.id), file: library.originalFile(of: photo)) == kept)
        #expect(model.inferenceCount == before, "a smart crop of an analysed photo runs no model")
    }

    @Test func focalPointsAreComputedOnceAndKept() throws {
        // A model of its own: the shared one counts inferences from tests running alongside.
        let model = try SubjectModel()
        let folder = try TemporaryFolder("focus")
        let directory = folder.url
        let library = try Library(root: folder.file("library"))
        let scene = StickerFixtures.scene(width: 900, height: 400, shapes: [(150, 200, 70, 120, [180, 30, 160])])
        let file = directory.appendingPathComponent("wide.png")
        try scene.image.write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        let source = LibrarySubjectFocusSource(library: library, model: model)
        let before = model.inferenceCount
        let focus = try #require(source.automaticFocus(for: .photo(photo.id), file: library.originalFile(of: photo)))
        #expect(abs(focus.x - 150.0 / 900) < 0.05)
        _ = source.automaticFocus(for: .photo(photo.id), file: library.originalFile(of: photo))
        #expect(model.inferenceCount == before + 1)
        #expect(try library.cachedFocus(photoID: photo.id, model: model.focusKey) == .subject(focus))
    }
}
