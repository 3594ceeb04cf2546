import CollageCore
import CollageRender
import Foundation
import Synchronization
import Testing

@testable import CollageLibrary

@Suite("Library: photos")
struct LibraryPhotoTests {
    @Test func importStoresTheOriginalByHashWithThumbnailAndPreview() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let file = try fixtures.photo("ünïcode photo.png", [10, 120, 200], width: 3000, height: 1000)
        let result = try library.importPhoto(from: file)
        #expect(result.isNew)
        #expect(result.photo.id == SHA256.hex(of: try Data(contentsOf: file)))
        #expect((result.photo.width, result.photo.height, result.photo.format) == (3000, 1000, "png"))
        #expect(result.photo.originalName == "ünïcode photo.png")
        let stored = library.originalFile(of: result.photo)
        #expect(try Data(contentsOf: stored) == Data(contentsOf: file))
        let thumbnail = try Bitmap.read(try library.thumbnailFile(of: result.photo))
        #expect((thumbnail.width, thumbnail.height) == (512, 171))
        let preview = try Bitmap.read(try library.previewFile(of: result.photo))
        #expect(preview.width == 2048)
    }

    /// A see-through PNG's thumbnail and preview keep its transparency, made at import or later:
    /// the editor drew them on white, while the export showed the background through the photo.
    /// (Made at import, they were JPEGs under a WebP's name.) A JPEG's stay JPEGs.
    @Test func aSeeThroughPhotosThumbnailAndPreviewKeepTheirTransparency() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let file = fixtures.directory.appendingPathComponent("clear.png")
        try Bitmap(width: 400, height: 300, color: [200, 40, 40, 0]).write(to: file, format: .png)
        let photo = try library.importPhoto(from: file).photo
        for made in [try library.thumbnailFile(of: photo), try library.previewFile(of: photo)] {
            #expect(made.pathExtension == "webp")
            #expect(try Data(contentsOf: made).prefix(4) == Data("RIFF".utf8), "\(made.lastPathComponent)")
            let image = try Bitmap.read(made)
            #expect(image.channels == 4 && image[10, 10][3] == 0, "\(made.lastPathComponent)")
        }
        let jpeg = try library.importPhoto(from: try fixtures.photo("camera.jpg", [20, 90, 160], format: .jpeg)).photo
        #expect(try library.thumbnailFile(of: jpeg).pathExtension == "jpg")
    }

    @Test func anImportCanLeaveThePreviewToBeMadeWhenFirstAskedFor() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let file = try fixtures.photo("wide.jpg", [200, 60, 20], width: 3000, height: 1000, format: .jpeg)
        let photo = try library.importPhoto(from: file, makingPreview: false).photo
        let path = library.derivedPath(of: photo, kind: "previews", size: Library.previewSize)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect(try Bitmap.read(try library.thumbnailFile(of: photo)).width == 512)
        let preview = try Bitmap.read(try library.previewFile(of: photo))
        #expect((preview.width, preview.height) == (2048, 683))
    }

    @Test func aPreviewAskedForByManyAtOnceIsMadeOnce() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let file = try fixtures.photo("big.jpg", [20, 90, 160], width: 4000, height: 3000, format: .jpeg)
        let photo = try library.importPhoto(from: file, makingPreview: false).photo
        // Each caller notes the file it was given; a file made again would be a new one (a
        // rename over the old), with a new inode.
        let seen = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            guard let preview = try? library.previewFile(of: photo),
                let inode = try? FileManager.default.attributesOfItem(atPath: preview.path)[.systemFileNumber]
                    as? NSNumber
            else { return }
            seen.withLock { $0.append(inode.intValue) }
        }
        let inodes = seen.withLock { $0 }
        #expect(inodes.count == 8 && Set(inodes).count == 1, "\(inodes)")
    }

    @Test func everySupportedFormatImports() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let base = try fixtures.photo("base.png", [30, 140, 220], width: 160, height: 120)
        var files: [(URL, String)] = [(base, "png")]
        for format in [OutputFormat.jpeg, .webp, .heic, .avif] {
            let file = fixtures.directory.appendingPathComponent("photo.\(format.rawValue)")
            try Bitmap(width: 160, height: 120, color: [30, 140, 220]).write(to: file, format: format)
            files.append((file, format.rawValue))
        }
        for (name, format) in [("photo.tif", "tiff"), ("photo.gif", "gif")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
            process.arguments = ["copy", base.path, fixtures.directory.appendingPathComponent(name).path]
            try process.run()
            process.waitUntilExit()
            files.append((fixtures.directory.appendingPathComponent(name), format))
        }
        for (file, format) in files {
            let photo = try library.importPhoto(from: file).photo
            #expect(photo.format == format, "\(file.lastPathComponent)")
            #expect((photo.width, photo.height) == (160, 120))
            let thumbnail = try Bitmap.read(try library.thumbnailFile(of: photo))
            #expect(thumbnail.width == 160, "no upscaling of small photos")
        }
        let svg = fixtures.directory.appendingPathComponent("drawing.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8).write(to: svg)
        #expect {
            try library.importPhoto(from: svg)
        } throws: { error in
            "\(error)".contains("not a photo format Collage imports")
        }
    }

    @Test func theSameBytesAreOnePhoto() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let file = try fixtures.photo("a.png", [1, 2, 3])
        let copy = fixtures.directory.appendingPathComponent("copy of a.png")
        try FileManager.default.copyItem(at: file, to: copy)
        let first = try library.importPhoto(from: file)
        let second = try library.importPhoto(from: copy)
        #expect(first.isNew && !second.isNew)
        #expect(first.photo == second.photo)
        #expect(try library.photos().count == 1)
    }

    @Test func derivedFilesAreRebuiltWhenMissing() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("a.jpg", [200, 10, 10], format: .jpeg)).photo
        let thumbnail = try library.thumbnailFile(of: photo)
        try FileManager.default.removeItem(at: thumbnail)
        #expect(try library.thumbnailFile(of: photo) == thumbnail)
        #expect(FileManager.default.fileExists(atPath: thumbnail.path))
    }

    @Test func badFilesAreRefusedAndLeaveNothingBehind() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let notes = fixtures.directory.appendingPathComponent("notes.jpg")
        try Data("hello".utf8).write(to: notes)
        let truncated = fixtures.directory.appendingPathComponent("cut.jpg")
        let jpeg = try Data(
            contentsOf: try fixtures.photo("whole.jpg", [9, 9, 9], width: 800, height: 600, format: .jpeg))
        try jpeg.prefix(jpeg.count / 2).write(to: truncated)
        // Refused as surely when the preview is left for later: the thumbnail decodes the whole file.
        for file in [notes, truncated, fixtures.directory.appendingPathComponent("missing.png")] {
            for makingPreview in [true, false] {
                #expect {
                    try library.importPhoto(from: file, makingPreview: makingPreview)
                } throws: { error in
                    (error as? LibraryError)?.description.contains(file.lastPathComponent) == true
                }
            }
        }
        #expect(try library.photos().isEmpty)
        let leftovers =
            FileManager.default.enumerator(atPath: library.photosFolder.path)?.allObjects
            .compactMap { $0 as? String }.filter { $0.contains(".") } ?? []
        #expect(leftovers.isEmpty, "no files left in photos/: \(leftovers)")
    }

    @Test func photosAreFoundByUniquePrefix() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let photo = try library.importPhoto(from: try fixtures.photo("a.png", [5, 5, 5])).photo
        #expect(try library.photo(String(photo.id.prefix(8))) == photo)
        #expect(throws: LibraryError.self) { try library.photo("zzzzzzzz") }
    }

    @Test func cleanUpRemovesLeftoversButKeepsEveryPhotoPlacedOrNot() throws {
        let fixtures = try LibraryFixtures()
        let library = try fixtures.open()
        let used = try library.importPhoto(from: try fixtures.photo("used.png", [1, 1, 1])).photo
        let unused = try library.importPhoto(from: try fixtures.photo("unused.png", [2, 2, 2])).photo
        _ = try library.createCollage(title: "Keep", templateID: "grid2x2", aspect: .square, photoIDs: [used.id])
        let partial = library.photosFolder.appendingPathComponent("ab/.abc.jpg.123.partial")
        try FileManager.default.createDirectory(
            at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1000).write(to: partial)
        // A half-written file is left alone while it may still be being written…
        let fresh = library.derivedFolder.appendingPathComponent(".being-written.jpg.partial")
        try Data(repeating: 8, count: 10).write(to: fresh)
        // …and removed once it has been abandoned for over an hour.
        let hoursAgo = Date().addingTimeInterval(-2 * 3600)
        try FileManager.default.setAttributes([.modificationDate: hoursAgo], ofItemAtPath: partial.path)
        // A thumbnail no record names (an import interrupted after writing it) is a leftover too…
        let orphan = library.derivedFolder.appendingPathComponent(
            "thumbnails/cd/" + String(repeating: "c", count: 64) + ".jpg")
        try FileManager.default.createDirectory(
            at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 9, count: 500).write(to: orphan)
        // …but an original no record names may be the only copy of a photo: it stays.
        let unrecorded = library.photosFolder.appendingPathComponent("ef/" + String(repeating: "e", count: 64) + ".png")
        try FileManager.default.createDirectory(
            at: unrecorded.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 6, count: 300).write(to: unrecorded)
        // A dry run says what would go, and removes nothing.
        let dry = try library.cleanUp(dryRun: true)
        #expect(dry.dryRun && dry.removedFiles == 2 && dry.freedBytes == 1500 && dry.keptUnrecorded == 1)
        #expect(
            FileManager.default.fileExists(atPath: partial.path) && FileManager.default.fileExists(atPath: orphan.path))
        let report = try library.cleanUp()
        #expect(FileManager.default.fileExists(atPath: fresh.path))
        #expect(report.freedBytes == 1500 && report.removedFiles == 2 && report.keptUnrecorded == 1)
        #expect(
            !FileManager.default.fileExists(atPath: partial.path)
                && !FileManager.default.fileExists(atPath: orphan.path))
        #expect(FileManager.default.fileExists(atPath: unrecorded.path))
        // Every photo stays, the one no collage shows yet too (an upload not placed, an import).
        #expect(FileManager.default.fileExists(atPath: library.originalFile(of: unused).path))
        #expect(FileManager.default.fileExists(atPath: library.originalFile(of: used).path))
        #expect(Set(try library.photos().map(\.id)) == [used.id, unused.id])
    }
}
