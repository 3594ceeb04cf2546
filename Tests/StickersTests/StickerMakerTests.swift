import CollageCore
import CollageRender
import Foundation
import Stickers
import Testing

@Suite("Stickers", .serialized)
struct StickerMakerTests {
    func model() throws -> SubjectModel { try StickerFixtures.model.get() }

    @Test func aCentredSubjectHasClearCornersAndAnOpaqueMiddle() throws {
        let scene = StickerFixtures.scene(shapes: [(240, 180, 90, 110, [30, 60, 200])])
        let mask = try model().mask(of: scene.image)
        let sticker = try StickerMaker.sticker(from: scene.image, mask: mask, options: StickerOptions())
        #expect(sticker.channels == 4)
        // Cropped to the subject plus a small margin.
        #expect(sticker.width < 220 && sticker.height < 260 && sticker.width >= 180)
        for (x, y) in [
            (0, 0), (sticker.width - 1, 0), (0, sticker.height - 1), (sticker.width - 1, sticker.height - 1),
        ] {
            #expect(sticker[x, y][3] == 0, "corner \(x),\(y) is transparent")
        }
        #expect(sticker[sticker.width / 2, sticker.height / 2] == [30, 60, 200, 255])
    }

    @Test func theOutlineIsWhiteAndOpaque() throws {
        let scene = StickerFixtures.scene(shapes: [(240, 180, 90, 110, [30, 60, 200])])
        let mask = try model().mask(of: scene.image)
        let plain = try StickerMaker.sticker(from: scene.image, mask: mask, options: StickerOptions())
        let outlined = try StickerMaker.sticker(
            from: scene.image, mask: mask, options: StickerOptions(outlineWidth: 10))
        #expect(outlined.width > plain.width)
        // Walk in from the left edge along the middle row: transparent, then white outline, then the subject.
        let row = outlined.height / 2
        let firstVisible = try #require((0..<outlined.width).first { outlined[$0, row][3] > 0 })
        #expect(outlined[firstVisible + 3, row] == [255, 255, 255, 255], "outline pixels are white and opaque")
        #expect(outlined[outlined.width / 2, row] == [30, 60, 200, 255])
    }

    @Test func selectingOneOfTwoSubjectsKeepsOnlyIt() throws {
        let scene = StickerFixtures.scene(
            width: 600, height: 320,
            shapes: [(150, 160, 70, 90, [30, 90, 200]), (430, 160, 110, 120, [220, 120, 30])])
        let mask = try model().mask(of: scene.image)
        let left = try StickerMaker.sticker(
            from: scene.image, mask: mask, options: StickerOptions(selection: .point(x: 150, y: 160)))
        #expect(left.width < 200, "cropped to the left subject only")
        #expect(left[left.width / 2, left.height / 2] == [30, 90, 200, 255])
        let both = try StickerMaker.sticker(from: scene.image, mask: mask, options: StickerOptions())
        #expect(both.width > 400)
        let maskImage = try StickerMaker.maskImage(mask, options: StickerOptions(selection: .instance(1)))
        #expect(maskImage.channels == 1 && maskImage.width == 600)
        #expect(maskImage[430, 160] == [255] && maskImage[150, 160] == [0])
    }
}

extension StickerMakerTests {
    @Test func aMaskOfAnotherSizeIsRefusedNotRead() throws {
        let photo = try #require(
            Bitmap(width: 40, height: 30, channels: 3, pixels: [UInt8](repeating: 90, count: 3600)))
        let mask = try SubjectMask(alpha: [UInt8](repeating: 255, count: 20 * 15), width: 20, height: 15)
        #expect {
            try StickerMaker.cutOut(from: photo, mask: mask, options: StickerOptions())
        } throws: { error in
            (error as? StickerError).map { "\($0)".contains("20 × 15") } ?? false
        }
    }
}
