import CollageCore
import Foundation
import Testing

@Suite("Geometry")
struct GeometryTests {
    @Test(arguments: [
        (0.0, 0.0), (180, 180), (-180, 180), (270, -90), (-270, 90), (540, 180), (725, 5), (-0.0, 0), (359.5, -0.5),
    ])
    func anglesNormaliseIntoTheHalfOpenRange(input: Double, expected: Double) {
        #expect(Angle(degrees: input).degrees == expected)
    }

    @Test func nonFiniteAnglesBecomeZero() {
        #expect(Angle(degrees: .nan).degrees == 0)
        #expect(Angle(degrees: .infinity).degrees == 0)
    }

    @Test func rotationIsClockwiseOnScreen() {
        let turned = Point(x: 10, y: 0).rotated(by: Angle(degrees: 90), around: .zero)
        #expect(abs(turned.x) < 1e-9 && abs(turned.y - 10) < 1e-9)
    }

    @Test func boundingBoxOfARotatedRectangle() {
        let box = Rect(x: 0, y: 0, width: 200, height: 100).boundingBox(rotatedBy: Angle(degrees: 90))
        #expect(abs(box.width - 100) < 1e-9 && abs(box.height - 200) < 1e-9)
        #expect(abs(box.center.x - 100) < 1e-9 && abs(box.center.y - 50) < 1e-9)
    }

    @Test func containsIsHalfOpenSoNeighboursNeverShareAPoint() {
        let left = Rect(x: 0, y: 0, width: 10, height: 10)
        let right = Rect(x: 10, y: 0, width: 10, height: 10)
        let edge = Point(x: 10, y: 5)
        #expect(!left.contains(edge) && right.contains(edge))
    }

    @Test func colorsParseAndPrint() throws {
        #expect(Color(parsing: "#FFF") == .white)
        #expect(Color(parsing: "transparent") == .transparent)
        #expect(Color(parsing: "#11223380")?.alpha == 0x80)
        #expect(try #require(Color(parsing: "0a0b0c")).hexString == "#0a0b0c")
        #expect(Color(parsing: "#12345") == nil)
        #expect(Color(parsing: "red") == nil)
    }

    @Test func presetsAndPrintSizes() throws {
        #expect(CanvasPreset.named("4:5")?.canvasSize == Size(width: 960, height: 1200))
        #expect(CanvasPreset.named("16:9")?.canvasSize == Size(width: 1200, height: 675))
        for id in ["1:1", "4:5", "5:4", "9:16", "16:9", "3:2", "2:3", "4x6in", "5x7in", "8x10in", "a4", "letter"] {
            #expect(CanvasPreset.named(id) != nil, "preset \(id)")
        }
        let print = try #require(PrintSize(parsing: "6x4in@300"))
        #expect(print.pixelSize == (1800, 1200))
        #expect(try #require(PrintSize(parsing: "a4@300")).pixelSize == (2480, 3508))
        #expect(try #require(PrintSize(parsing: "150x100mm")).pixelSize == (1772, 1181))
        #expect(PrintSize(parsing: "6x4in@0") == nil)
        #expect(PrintSize(parsing: "6x4") == nil)
        #expect(AspectRatio(parsing: "4:5")?.value == 0.8)
        #expect(AspectRatio(parsing: "0:5") == nil)
        #expect(AspectRatio(parsingOrPreset: "4x5")?.value == 0.8)
        #expect(AspectRatio(parsingOrPreset: "letter")?.value == 8.5 / 11)
        #expect(AspectRatio(parsingOrPreset: "banana") == nil)
    }
}
