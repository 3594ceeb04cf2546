import CollageLibrary
import CollageTestSupport
import Foundation

/// A library in a temporary folder, with one plain photo in it: what the sticker commands' tests
/// save their stickers against.
struct LibraryWithAPhoto {
    let folder: TemporaryFolder
    let root: URL
    let library: Library
    let photo: PhotoRecord

    init(_ name: String) throws {
        folder = try TemporaryFolder(name)
        root = folder.file("library")
        library = try Library(root: root)
        photo = try library.importPhoto(from: try TestPhotos.solid([90, 140, 200], to: folder.file("p.png"))).photo
    }
}
