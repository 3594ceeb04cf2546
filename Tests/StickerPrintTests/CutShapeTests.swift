import CollageCore
import Testing

@testable import StickerPrint

/// The cut line's own steps on masks whose answer is known.
struct CutShapeTests {
    /// The 8-connected regions of a mask, by flood fill from every unseen inside pixel.
    private func regions(_ inside: [Bool], width: Int, height: Int) -> Int {
        var seen = [Bool](repeating: false, count: inside.count)
        var count = 0
        for start in inside.indices where inside[start] && !seen[start] {
            count += 1
            var stack = [start]
            seen[start] = true
            while let index = stack.popLast() {
                let (x, y) = (index % width, index / width)
                for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                    let (nx, ny) = (x + dx, y + dy)
                    guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                    let next = ny * width + nx
                    if inside[next], !seen[next] {
                        seen[next] = true
                        stack.append(next)
                    }
                }
            }
        }
        return count
    }

    @Test func partsThatTouchOnlyAtACornerAreOnePart() {
        // Two squares meeting corner to corner, and the same squares a pixel apart.
        let touching = (0..<64).map { index in
            let (x, y) = (index % 8, index / 8)
            return (x < 4 && y < 4) || (x >= 4 && y >= 4)
        }
        #expect(!CutSticker.hasSeveralParts(touching, width: 8, height: 8))
        let apart = (0..<64).map { index in
            let (x, y) = (index % 8, index / 8)
            return (x < 3 && y < 3) || (x >= 4 && y >= 4)
        }
        #expect(CutSticker.hasSeveralParts(apart, width: 8, height: 8))
        #expect(!CutSticker.hasSeveralParts([Bool](repeating: false, count: 12), width: 4, height: 3))
    }

    @Test(arguments: 0..<40)
    func severalPartsAgreesWithAFloodFill(seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        let (width, height) = (Int.random(in: 1...24, using: &generator), Int.random(in: 1...24, using: &generator))
        let density = Double.random(in: 0.05...0.6, using: &generator)
        let inside = (0..<width * height).map { _ in Double.random(in: 0..<1, using: &generator) < density }
        let expected = regions(inside, width: width, height: height) > 1
        #expect(CutSticker.hasSeveralParts(inside, width: width, height: height) == expected)
    }
}
