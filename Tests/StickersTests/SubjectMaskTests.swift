import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

@Suite("Subject masks from U²-Net-p", .serialized)
struct SubjectMaskTests {
    func model() throws -> SubjectModel { try StickerFixtures.model.get() }

    @Test func theOutputIsPinnedToTheFusedMap() throws {
        #expect(try model().outputName == "1959")
    }

    @Test(arguments: [false, true])
    func aShapeOnABackgroundIsFound(textured: Bool) throws {
        let scene = StickerFixtures.scene(
            textured: textured, shapes: [(240, 180, 110, 130, [200, 40, 40])])
        let mask = try model().mask(of: scene.image)
        let iou = StickerFixtures.iou(mask.alpha, scene.truth)
        print("mask IoU (\(textured ? "textured" : "plain") background): \(iou)")
        #expect(iou >= (textured ? 0.8 : 0.9), "IoU \(iou)")
        #expect(mask.subjects.count == 1)
    }

    @Test func twoSeparateShapesAreTwoSubjectsLargestFirst() throws {
        let scene = StickerFixtures.scene(
            width: 600, height: 320,
            shapes: [(150, 160, 70, 90, [30, 90, 200]), (430, 160, 110, 120, [220, 120, 30])])
        let mask = try model().mask(of: scene.image)
        #expect(mask.subjects.count == 2)
        #expect(mask.subjects[0].bounds.center.x > 300, "the larger, right-hand shape comes first")
        #expect(mask.subjectIndex(atX: 150, y: 160) == 1)
        #expect(mask.subjectIndex(atX: 430, y: 160) == 0)
        #expect(mask.subjectIndex(atX: 10, y: 10) == nil)
        let left = try mask.select(.point(x: 150, y: 160))
        #expect(left.count == 1 && left[0].bounds.maxX < 300)
        #expect(throws: StickerError.self) { try mask.select(.point(x: 5, y: 5)) }
        #expect(throws: StickerError.self) { try mask.select(.instance(3)) }
    }

    @Test func refinementFollowsTheSharpEdgeBetterThanBilinear() throws {
        let scene = StickerFixtures.scene(width: 1600, height: 1200, shapes: [(800, 600, 420, 480, [40, 160, 60])])
        let plain = try model().mask(of: scene.image, options: MaskOptions(refine: false))
        let refined = try model().mask(of: scene.image, options: MaskOptions(refine: true))
        let plainError = StickerFixtures.meanError(plain.alpha, scene.truth)
        let refinedError = StickerFixtures.meanError(refined.alpha, scene.truth)
        // The edge band: pixels within about 12 px of the true outline, where upsampling shows.
        var band: [Int] = []
        for y in 0..<1200 {
            for x in 0..<1600 {
                let dx = (Double(x) + 0.5 - 800) / 420
                let dy = (Double(y) + 0.5 - 600) / 480
                if abs((dx * dx + dy * dy).squareRoot() - 1) < 0.027 { band.append(y * 1600 + x) }
            }
        }
        let plainBand = StickerFixtures.meanError(band.map { plain.alpha[$0] }, band.map { scene.truth[$0] })
        let refinedBand = StickerFixtures.meanError(band.map { refined.alpha[$0] }, band.map { scene.truth[$0] })
        print(
            "mean alpha error at 1600 × 1200: whole image bilinear \(plainError), refined \(refinedError); "
                + "edge band bilinear \(plainBand), refined \(refinedBand)")
        #expect(refinedError < plainError)
        #expect(refinedBand < plainBand)
    }

    @Test func aUniformPhotoHasNoSubject() throws {
        for color: [UInt8] in [[0, 0, 0], [128, 128, 128], [250, 250, 250]] {
            #expect(throws: StickerError.self) {
                try model().mask(of: Bitmap(width: 400, height: 300, color: color))
            }
        }
    }

    /// A lone subject under half a percent of the photo (a third of one, as a squirrel far off
    /// on a lawn) was "no subject": it is the photo's subject, and only it.
    @Test func aLoneSmallSubjectIsStillTheSubject() throws {
        // And a smaller thing beside it, which stays a speck.
        let scene = StickerFixtures.scene(
            width: 1600, height: 1200,
            shapes: [(1000, 700, 40, 50, [200, 40, 40]), (400, 300, 20, 24, [40, 60, 200])])
        let mask = try model().mask(of: scene.image)
        let subject = try #require(mask.subjects.first)
        #expect(mask.subjects.count == 1)
        #expect(Double(subject.area) < 0.005 * 1600 * 1200, "\(subject.area) px")
        #expect(subject.bounds.contains(Point(x: 1000, y: 700)), "\(subject.bounds)")
        #expect(subject.bounds.width < 200 && subject.bounds.height < 200, "\(subject.bounds)")
    }

    @Test func smartFocusKeepsAnOffCentreSubjectInANarrowFrame() throws {
        // A subject in the left fifth of a wide photo.
        let scene = StickerFixtures.scene(width: 900, height: 400, shapes: [(150, 200, 70, 120, [180, 30, 160])])
        let focus = try model().focus(of: scene.image)
        #expect(abs(focus.center.x - 150.0 / 900) < 0.05, "focus \(focus.center)")
        let imageSize = Size(width: 900, height: 400)
        let frame = Size(width: 200, height: 400)
        let smart = CropMath.sourceRect(imageSize: imageSize, frameSize: frame, crop: Crop(focus: focus.center))
        let centre = CropMath.sourceRect(imageSize: imageSize, frameSize: frame)
        let subject = Rect(x: 80, y: 80, width: 140, height: 240)
        #expect(smart.contains(subject), "the smart crop keeps the subject")
        #expect(centre.intersection(subject) == nil, "a centre crop would miss it entirely")
    }
}

@Suite("The model file")
struct ModelFileTests {
    @Test func aMissingModelSaysHowToFetchIt() {
        let path = URL(fileURLWithPath: "/nonexistent/u2netp.onnx")
        #expect {
            try SubjectModel(path: path)
        } throws: { error in
            let text = "\(error)"
            return text.contains(path.path) && text.contains(SubjectModel.expectedSHA256)
                && text.contains("scripts/fetch-model")
        }
    }

    @Test func aTruncatedOrCorruptModelIsRefused() throws {
        let real = SubjectModel.defaultPath()
        let folder = try TemporaryFolder("model")
        let directory = folder.url
        var candidates: [URL] = []
        let garbage = directory.appendingPathComponent("garbage.onnx")
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: garbage)
        candidates.append(garbage)
        if let bytes = try? Data(contentsOf: real) {
            let truncated = directory.appendingPathComponent("truncated.onnx")
            try bytes.prefix(bytes.count / 2).write(to: truncated)
            candidates.append(truncated)
        }
        for file in candidates {
            #expect {
                try SubjectModel(path: file)
            } throws: { error in
                let text = "\(error)"
                return text.contains(file.path) && text.contains("SHA-256") && text.contains("scripts/fetch-model")
            }
        }
    }
}
