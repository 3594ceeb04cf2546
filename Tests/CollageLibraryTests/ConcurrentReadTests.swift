import CollageCore
import Foundation
import Synchronization
import Testing

@testable import CollageLibrary

/// Reads run on their own connections beside the writes: each still sees one whole committed
/// change, never a collage row from one version and its items from the next.
struct ConcurrentReadTests {
    @Test func aReadBesideWritesSeesWholeChanges() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let id = try library.createCollage(title: "0", templateID: nil, aspect: .square).collage.id
        let writes = 150
        let done = Atomic<Bool>(false)
        let mismatches = Mutex<[String]>([])
        let reads = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        // Each write adds one item and renames the collage to the number of its items; two
        // threads of their own read meanwhile (threads, so they run beside the writes even on
        // a machine with one core).
        let readers = (0..<2).map { _ in
            Thread {
                while !done.load(ordering: .acquiring) {
                    guard let stored = try? library.collage(id).collage else { continue }
                    reads.add(1, ordering: .relaxed)
                    if stored.title != "\(stored.items.count)" {
                        mismatches.withLock { $0.append("title \(stored.title) with \(stored.items.count) items") }
                    }
                }
                finished.add(1, ordering: .releasing)
            }
        }
        for reader in readers { reader.start() }
        for step in 1...writes {
            do {
                try library.apply(
                    [
                        .addItem(
                            id: "t\(step)", content: .text(TextBlock(text: "\(step)", size: 12)),
                            frame: Rect(x: 10, y: 10, width: 100, height: 40)),
                        .rename(title: "\(step)"),
                    ], to: id)
            } catch {
                mismatches.withLock { $0.append("write \(step) failed: \(error)") }
            }
        }
        done.store(true, ordering: .releasing)
        while finished.load(ordering: .acquiring) < readers.count { usleep(1000) }
        #expect(mismatches.withLock { $0 }.isEmpty)
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(try library.collage(id).collage.items.count == writes)
    }
}
