import CollageCore
import Testing

@Suite("Crop math and hit-testing")
struct CropMathTests {
    @Test func centreCropOfAWidePhotoInASquareFrame() {
        let rect = CropMath.sourceRect(
            imageSize: Size(width: 4000, height: 3000), frameSize: Size(width: 500, height: 500))
        #expect(rect == Rect(x: 500, y: 0, width: 3000, height: 3000))
    }

    @Test func tallFrameOnAWidePhotoKeepsTheFrameAspect() {
        let rect = CropMath.sourceRect(
            imageSize: Size(width: 4000, height: 3000), frameSize: Size(width: 200, height: 600))
        #expect(abs(rect.width / rect.height - 1.0 / 3) < 1e-9)
        #expect(rect.height == 3000)
    }

    @Test func zoomShrinksAroundTheFocus() {
        let rect = CropMath.sourceRect(
            imageSize: Size(width: 1000, height: 1000), frameSize: Size(width: 100, height: 100),
            crop: Crop(focus: Point(x: 0.25, y: 0.75), zoom: 2))
        #expect(rect == Rect(x: 0, y: 500, width: 500, height: 500))
    }

    @Test func focusNearAnEdgeSlidesInsteadOfLeavingThePhoto() {
        let rect = CropMath.sourceRect(
            imageSize: Size(width: 4000, height: 3000), frameSize: Size(width: 100, height: 100),
            crop: Crop(focus: Point(x: 1, y: 0.5)))
        #expect(rect.maxX == 4000 && rect.x == 1000)
    }

    @Test func offCentreSubjectStaysInANarrowFrame() {
        // A subject at the left fifth of a landscape photo, in a narrow portrait frame.
        let subject = Rect(x: 0.1, y: 0.3, width: 0.15, height: 0.4)
        let focus = CropMath.focus(centreOfMass: subject.center, bounds: subject)
        let image = Size(width: 3000, height: 2000)
        let rect = CropMath.sourceRect(
            imageSize: image, frameSize: Size(width: 300, height: 900), crop: Crop(focus: focus))
        let subjectPixels = Rect(x: 300, y: 600, width: 450, height: 800)
        #expect(rect.contains(subjectPixels))
        let centre = CropMath.sourceRect(imageSize: image, frameSize: Size(width: 300, height: 900))
        #expect(!centre.contains(subjectPixels), "a centre crop would cut the subject")
    }

    /// A person standing in a square photo, her head at the top and most of her below it (the
    /// astronaut sample), in a wide frame: the crop keeps her head, where a crop round her centre
    /// of mass showed her from the chin down. A subject the frame holds whole stays whole.
    @Test func aSubjectTallerThanAWideFrameKeepsItsTop() {
        let person = Rect(x: 0.2, y: 0.05, width: 0.6, height: 0.95)
        let head = Rect(x: 1200, y: 500, width: 1200, height: 1300)
        let image = Size(width: 6000, height: 6000)
        let frame = Size(width: 1600, height: 1000)
        let focus = CropMath.focus(centreOfMass: Point(x: 0.5, y: 0.62), bounds: person)
        #expect(CropMath.sourceRect(imageSize: image, frameSize: frame, crop: Crop(focus: focus)).contains(head))
        let byMass = CropMath.sourceRect(imageSize: image, frameSize: frame, crop: Crop(focus: Point(x: 0.5, y: 0.62)))
        #expect(!byMass.contains(head), "the centre of mass cut the head off")
        let small = Rect(x: 0.3, y: 0.4, width: 0.4, height: 0.4)
        let kept = CropMath.focus(centreOfMass: Point(x: 0.5, y: 0.62), bounds: small)
        let smallPixels = Rect(x: 1800, y: 2400, width: 2400, height: 2400)
        #expect(
            CropMath.sourceRect(imageSize: image, frameSize: frame, crop: Crop(focus: kept))
                .contains(smallPixels))
    }

    @Test func hitTestingFindsTheTopmostItemHonouringRotation() throws {
        var collage = Collage(
            id: "c", title: "t", created: Fixtures.created, canvas: Size(width: 1000, height: 1000))
        collage = try collage.applying([
            .addItem(id: "bottom", content: .photo("a"), frame: Rect(x: 100, y: 100, width: 400, height: 400)),
            .addItem(id: "bar", content: .photo("b"), frame: Rect(x: 100, y: 280, width: 400, height: 40)),
        ])
        #expect(collage.topmostItem(at: Point(x: 300, y: 300))?.id == "bar")
        #expect(collage.topmostItem(at: Point(x: 300, y: 150))?.id == "bottom")
        #expect(collage.topmostItem(at: Point(x: 50, y: 50)) == nil)
        // Rotating the bar by 90° makes it vertical: a point left of centre on its old line misses it.
        collage = try collage.applying(.rotateItem(id: "bar", degrees: 90))
        #expect(collage.topmostItem(at: Point(x: 150, y: 300))?.id == "bottom")
        #expect(collage.topmostItem(at: Point(x: 300, y: 130))?.id == "bar")
    }
}
