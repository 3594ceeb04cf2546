import CollageCore
import CollageTestSupport
import Foundation
import Stickers
import Testing

/// The focus cache reads only what it wrote: a few bytes a photo, never a huge or odd file.
struct FocusCacheTests {
    @Test func anEntryReadsBackAndAnythingLargeOrOddIsNotRead() throws {
        let folder = try TemporaryFolder("collage-focus")
        let cache = FocusCache(folder: folder.url)
        let photo = Data("a photo's bytes".utf8)
        #expect(cache.focus(ofPhoto: photo, model: "m") == nil)
        cache.store(Point(x: 0.25, y: 0.75), ofPhoto: photo, model: "m")
        #expect(cache.focus(ofPhoto: photo, model: "m") == .some(Point(x: 0.25, y: 0.75)))
        let entry = try #require(
            try FileManager.default.contentsOfDirectory(at: folder.url, includingPropertiesForKeys: nil).first)
        // A large file where the entry was (a damaged or hostile cache): not read, not trusted.
        var large = Data("0.5 0.5".utf8)
        large.append(Data(repeating: 0x20, count: 2_000_000))
        try large.write(to: entry)
        #expect(cache.focus(ofPhoto: photo, model: "m") == nil)
        // A folder in its place: nothing read either.
        try FileManager.default.removeItem(at: entry)
        try FileManager.default.createDirectory(at: entry, withIntermediateDirectories: false)
        #expect(cache.focus(ofPhoto: photo, model: "m") == nil)
    }
}
