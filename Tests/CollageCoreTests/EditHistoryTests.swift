import CollageCore
import Testing

@Suite("Undo and redo")
struct EditHistoryTests {
    /// A deterministic generator (CollageCore's own), so a failing sequence can be replayed.
    typealias SplitMix = SplitMix64

    static func randomEdit(for collage: Collage, counter: Int, using rng: inout SplitMix) -> Edit {
        let ids = collage.items.map(\.id)
        let id = ids.randomElement(using: &rng) ?? "missing"
        let templates = Template.catalog.map(\.id)
        switch Int.random(in: 0..<11, using: &rng) {
        case 0: return .addItem(id: "n\(counter)", content: .photo("new\(counter).jpg"), frame: nil)
        case 1: return .removeItem(id: id)
        case 2: return .moveItem(id: id, origin: Point(x: .random(in: -50...1100, using: &rng), y: 40))
        case 3:
            return .resizeItem(
                id: id, frame: Rect(x: 10, y: 10, width: .random(in: 5...900, using: &rng), height: 300))
        case 4: return .rotateItem(id: id, degrees: .random(in: -720...720, using: &rng))
        case 5: return .reorder(id: id, move: ZOrderMove.allCases.randomElement(using: &rng) ?? .front)
        case 6: return .swapContents(first: id, second: ids.randomElement(using: &rng) ?? id)
        case 7: return .applyTemplate(id: templates.randomElement(using: &rng) ?? "grid2x2")
        case 8: return .setStyle(Style(spacing: .random(in: 0...60, using: &rng), padding: 8))
        case 9:
            let aspect = AspectRatio(width: .random(in: 1...3, using: &rng), height: 2)
            return aspect.map { .setAspect($0) } ?? .rename(title: "no aspect")
        default: return .rename(title: "Title \(counter)")
        }
    }

    @Test(arguments: 1...25)
    func undoingEverySequenceReturnsTheOriginal(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(seed))
        let original = try Fixtures.collage(template: "magazine", photos: 5)
        var history = EditHistory(original, limit: 1000)
        var applied = 0
        for counter in 0..<40 {
            let edit = Self.randomEdit(for: history.current, counter: counter, using: &rng)
            let before = history.current
            do {
                let after = try history.apply(edit)
                if after != before { applied += 1 }
            } catch {
                #expect(history.current == before, "a refused edit changes nothing")
            }
        }
        let final = history.current
        #expect(history.undoCount == applied)
        while history.canUndo { history.undo() }
        #expect(history.current == original)
        while history.canRedo { history.redo() }
        #expect(history.current == final)
    }

    @Test func newEditClearsRedo() throws {
        var history = EditHistory(try Fixtures.collage())
        try history.apply(.rename(title: "One"))
        history.undo()
        #expect(history.canRedo)
        try history.apply(.rename(title: "Two"))
        #expect(!history.canRedo)
        #expect(history.redo() == nil)
    }

    @Test func depthIsBounded() throws {
        var history = EditHistory(try Fixtures.collage(), limit: 3)
        for index in 1...5 { try history.apply(.rename(title: "T\(index)")) }
        #expect(history.undoCount == 3)
        while history.canUndo { history.undo() }
        #expect(history.current.title == "T2")
    }

    @Test func noOpEditsAreNotRecorded() throws {
        var history = EditHistory(try Fixtures.collage())
        try history.apply(.rename(title: "Test"))
        #expect(!history.canUndo)
    }
}
