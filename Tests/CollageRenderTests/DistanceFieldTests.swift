import CollageCore
import Testing

@testable import CollageRender

/// The distance field (cut lines, outlines) is exact: the same as measuring every pair.
struct DistanceFieldTests {
    /// The squared distance to the nearest marked pixel, by looking at every pixel.
    private func measured(width: Int, height: Int, marked: [Bool]) -> [Float] {
        let points: [(x: Int, y: Int)] = marked.indices.filter { marked[$0] }.map { ($0 % width, $0 / width) }
        return (0..<width * height).map { index -> Float in
            let (x, y) = (index % width, index / width)
            var nearest = Int.max
            for point in points {
                let (dx, dy) = (point.x - x, point.y - y)
                nearest = min(nearest, dx * dx + dy * dy)
            }
            return Float(nearest)
        }
    }

    @Test(arguments: [(37, 23, 0.02), (1, 40, 0.1), (40, 1, 0.1), (64, 64, 0.3), (50, 31, 0.002)])
    func everyDistanceIsTheNearestMarkedPixels(width: Int, height: Int, density: Double) {
        var generator = SplitMix64(seed: UInt64(width * 1000 + height))
        var marked = (0..<width * height).map { _ in Double.random(in: 0..<1, using: &generator) < density }
        marked[(height / 2) * width + width / 3] = true
        let field = DistanceField.squaredDistances(width: width, height: height) { marked[$0] }
        #expect(field == measured(width: width, height: height, marked: marked))
    }

    @Test func nothingMarkedIsFartherThanTheDiagonal() {
        let field = DistanceField.squaredDistances(width: 30, height: 20) { _ in false }
        let diagonal: Float = 30 * 30 + 20 * 20
        #expect(field.allSatisfy { $0 > diagonal })
        #expect(DistanceField.squaredDistances(width: 0, height: 5) { _ in true }.isEmpty)
    }

    /// With the pixels past the edge marked, a pixel is at most its distance to the border plus
    /// one away; with them clear, only the image's own marks count.
    @Test func theFrameCountsOnlyWhenAsked() {
        let (width, height) = (12, 7)
        let marked = (0..<width * height).map { $0 == 3 * width + 5 }
        let framed = DistanceField.squaredDistances(width: width, height: height, pastEdge: true) { marked[$0] }
        let unframed = DistanceField.squaredDistances(width: width, height: height, pastEdge: false) { marked[$0] }
        #expect(unframed == measured(width: width, height: height, marked: marked))
        for index in 0..<width * height {
            let (x, y) = (index % width, index / width)
            let border = min(x, y, width - 1 - x, height - 1 - y) + 1
            #expect(framed[index] == min(unframed[index], Float(border * border)), "(\(x), \(y))")
        }
    }

    @Test func aColumnWithNothingMarkedTakesItsNeighbours() {
        // Only the first column is marked: every pixel's distance is its column's, squared.
        let field = DistanceField.squaredDistances(width: 9, height: 4) { $0 % 9 == 0 }
        let expected: [Float] = (0..<36).map { index in Float((index % 9) * (index % 9)) }
        #expect(field == expected)
    }
}
