import CollageCore
import Synchronization

/// The last few collages a library saved, or read for a change, by exact id. An entry is only
/// a guess: a change starts from it after checking that the collage's row still has its
/// version and time.
final class RecentCollages: Sendable {
    private let entries = Mutex(Entries())

    /// How many collages are kept: more than the editors of one library change at once (a
    /// server's benchmark edits 50 side by side).
    static let capacity = 128
    /// About how many bytes the kept collages may hold together: a collage of 200 long texts
    /// can hold megabytes, and such collages are kept fewer at a time.
    static let byteBudget = 32 << 20

    private struct Entries {
        var byID: [String: (stored: StoredCollage, use: UInt64, bytes: Int)] = [:]
        var uses: UInt64 = 0
        var bytes = 0
    }

    /// About how much memory a collage holds: its texts, and a little for everything else.
    static func approximateBytes(of collage: Collage) -> Int {
        collage.items.reduce(1_024 + collage.title.utf8.count) { total, item in
            total + 256 + item.id.utf8.count + (item.content.textBlock?.text.utf8.count ?? 0)
        }
    }

    /// The collage last read or saved with exactly this id, if it is still kept.
    subscript(id: String) -> StoredCollage? {
        entries.withLock { entries in
            guard let entry = entries.byID[id] else { return nil }
            entries.uses += 1
            entries.byID[id]?.use = entries.uses
            return entry.stored
        }
    }

    /// Keeps `stored`, forgetting the collages used longest ago when there are too many or
    /// they hold too much.
    func keep(_ stored: StoredCollage) {
        let bytes = Self.approximateBytes(of: stored.collage)
        entries.withLock { entries in
            entries.uses += 1
            if let replaced = entries.byID.updateValue((stored, entries.uses, bytes), forKey: stored.collage.id) {
                entries.bytes -= replaced.bytes
            }
            entries.bytes += bytes
            while entries.byID.count > 1, entries.byID.count > Self.capacity || entries.bytes > Self.byteBudget,
                let oldest = entries.byID.min(by: { $0.value.use < $1.value.use })
            {
                entries.bytes -= oldest.value.bytes
                entries.byID[oldest.key] = nil
            }
        }
    }

    /// Forgets the collage `id` (it was deleted).
    func forget(_ id: String) {
        entries.withLock { entries in
            if let removed = entries.byID.removeValue(forKey: id) { entries.bytes -= removed.bytes }
        }
    }
}
