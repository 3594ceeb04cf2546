import CollageCore
import Synchronization

/// The last few collages a library saved, or read for a change, by exact id. An entry is only
/// a guess: a change starts from it after checking that the collage's row still has its
/// version and time.
final class RecentCollages: Sendable {
    private let entries = Mutex(Entries())

    /// How many collages are kept: more than the editors of one library change at once (a
    /// server's benchmark edits 50 side by side), and a few megabytes at most.
    static let capacity = 128

    private struct Entries {
        var byID: [String: (stored: StoredCollage, use: UInt64)] = [:]
        var uses: UInt64 = 0
    }

    /// The collage last read or saved with exactly this id, if it is still kept.
    subscript(id: String) -> StoredCollage? {
        entries.withLock { entries in
            guard let entry = entries.byID[id] else { return nil }
            entries.uses += 1
            entries.byID[id] = (entry.stored, entries.uses)
            return entry.stored
        }
    }

    /// Keeps `stored`, forgetting the collage used longest ago when full.
    func keep(_ stored: StoredCollage) {
        entries.withLock { entries in
            entries.uses += 1
            entries.byID[stored.collage.id] = (stored, entries.uses)
            if entries.byID.count > Self.capacity,
                let oldest = entries.byID.min(by: { $0.value.use < $1.value.use })?.key
            {
                entries.byID[oldest] = nil
            }
        }
    }
}
