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

        // Cleanup keeps the photo a sticker came from.
        #expect(try library.cleanUp().removedPhotos.isEmpty)
        #expect(FileManager.default.fileExists(atPath: file.path))
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
        #expect(try library.cachedFocus(photoID: photo.id, model: model.sha256) == .subject(focus))
    }
}
