import CollageCore
import Foundation
import Testing

@Suite("Backgrounds: colours, gradients, patterns and papers as text")
struct BackgroundTests {
    @Test(arguments: [
        ("#fdf6ec", "#fdf6ec"), ("transparent", "#00000000"), ("  #FFF ", "#ffffff"),
        ("linear-gradient(135deg, #ff9a9e, #fad0c4)", "linear-gradient(135deg, #ff9a9e 0%, #fad0c4 100%)"),
        ("linear-gradient(#000, #fff)", "linear-gradient(180deg, #000000 0%, #ffffff 100%)"),
        (
            "linear-gradient(-90deg, #f00, #0f0, #00f, #fff)",
            "linear-gradient(270deg, #ff0000 0%, #00ff00 33.333%, #0000ff 66.667%, #ffffff 100%)"
        ),
        // As CSS: unplaced stops share the room between placed ones; none goes back.
        (
            "linear-gradient(10deg, #f00 20%, #0f0, #00f 10%)",
            "linear-gradient(10deg, #ff0000 20%, #00ff00 20%, #0000ff 20%)"
        ),
        ("radial-gradient(#fff, #b8c6db80 90%)", "radial-gradient(#ffffff 0%, #b8c6db80 90%)"),
        ("DOTS(#264d3b, #f6f1e7)", "dots(#264d3b, #f6f1e7, 24)"),
        ("checks(#000, #fff, 7.5)", "checks(#000000, #ffffff, 7.5)"),
        ("paper(kraft)", "paper(kraft)"), ("paper(watercolor)", "paper(watercolour)"),
        ("photo(3f2a9c01, 24)", "photo(3f2a9c01, 24)"), ("photo( photos/beach.jpg )", "photo(photos/beach.jpg, 0)"),
        ("PHOTO(a1b2c3, 12.3456)", "photo(a1b2c3, 12.346)"),
    ])
    func theTextReadsToItsCanonicalFormAndBack(text: String, canonical: String) throws {
        let background = try Background(parsing: text)
        #expect(background.description == canonical)
        #expect(try Background(parsing: canonical) == background)
    }

    @Test(arguments: [
        ("mauve", "expected a colour such as"), ("linear-gradient(#fff)", "a gradient takes 2 to 4 colours, got 1"),
        ("linear-gradient(#1, #2)", "expected a colour such as \"#f6f1e7\", got \"#1\""),
        ("radial-gradient(#f00, #0f0, #00f, #fff, #000)", "a gradient takes 2 to 4 colours, got 5"),
        ("linear-gradient(1e300deg, #fff, #000)", "a gradient's angle must be a number of degrees"),
        ("linear-gradient(nandeg, #fff, #000)", "a gradient's angle must be a number of degrees"),
        ("linear-gradient(#fff 150%, #000)", "a colour's position must be a percentage from 0% to 100%"),
        ("dots(#fff, #000, 0)", "a pattern's size must be a number of points from 4 to 400, got \"0\""),
        ("dots(#fff, #000, 1e300)", "a pattern's size must be a number of points from 4 to 400"),
        ("stripes(#fff)", "stripes takes an ink colour, a paper colour and a size in points"),
        ("zigzag(#fff, #000)", "unknown background \"zigzag\""),
        ("paper(cardboard)", "expected a paper: kraft, linen, watercolour"),
        ("linear-gradient(", "expected a colour such as"),
        ("photo()", "photo takes the photo and a blur in points"),
        ("photo(a.jpg, 1e300)", "a photo background's blur must be a number of points from 0 to 100"),
        ("photo(a.jpg, -1)", "a photo background's blur must be a number of points from 0 to 100"),
        ("photo(a.jpg, 2, 3)", "photo takes the photo and a blur in points"),
    ])
    func badTextSaysWhatIsWrong(text: String, message: String) {
        #expect(throws: BackgroundError.self) { try Background(parsing: text) }
        do {
            _ = try Background(parsing: text)
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func aDocumentKeepsItsBackgroundAndNamesABadOne() throws {
        var collage = Collage(
            id: "c", title: "c", created: Date(timeIntervalSince1970: 0), canvas: Size(width: 100, height: 80))
        #expect(CollageDocument.oldestVersion(holding: collage) == 1)
        collage.style.background = try Background(parsing: "dots(#264d3b, #f6f1e7, 12)")
        #expect(CollageDocument.oldestVersion(holding: collage) == 4, "an older build could not read a pattern")
        #expect(try CollageDocument.decode(CollageDocument.encode(collage)) == collage)
        let text = String(decoding: CollageDocument.encode(collage), as: UTF8.self)
            .replacingOccurrences(of: "dots(#264d3b, #f6f1e7, 12)", with: "dots(#264d3b, #f6f1e7, -3)")
        do {
            _ = try CollageDocument.decode(Data(text.utf8))
            Issue.record("a bad pattern was read")
        } catch {
            #expect(error.issues.contains { $0.path == "style.background" && $0.message.contains("from 4 to 400") })
        }
        // The edit that sets a style says the same.
        #expect(throws: DocumentError.self) {
            try EditCodec.decode(Data(#"{"op": "setStyle", "style": {"background": "linear-gradient(#fff)"}}"#.utf8))
        }
        collage.style.background = .photo(reference: "photos/beach.jpg", blur: 20)
        #expect(CollageDocument.oldestVersion(holding: collage) == 5, "a photo background is version 5")
        #expect(try CollageDocument.decode(CollageDocument.encode(collage)) == collage)
        #expect(Background.photo(reference: "a,b", blur: 1).problem != nil)
        #expect(Background.photo(reference: "a", blur: .nan).problem != nil)
    }

    @Test func transparencyIsSeenInAnyOfItsColours() throws {
        #expect(!(try Background(parsing: "linear-gradient(#fff, #000)")).hasTransparency)
        #expect(try Background(parsing: "linear-gradient(#fff, #00000080)").hasTransparency)
        #expect(try Background(parsing: "dots(#fff, #00000000)").hasTransparency)
        #expect(Background.transparent.hasTransparency && !Background.white.hasTransparency)
    }
}
