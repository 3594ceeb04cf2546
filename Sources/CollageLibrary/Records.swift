import CollageCore
import Foundation

/// An imported photo.
public struct PhotoRecord: Hashable, Sendable {
    /// The SHA-256 of the file's bytes (hex): the same bytes are always the same photo.
    public let id: String
    /// The file name it was imported from.
    public let originalName: String
    /// `jpeg`, `png`, `heic`, `avif`, `webp`, `tiff` or `gif`.
    public let format: String
    /// Width in pixels as displayed (EXIF orientation applied).
    public let width: Int
    /// Height in pixels as displayed.
    public let height: Int
    /// Size of the original file.
    public let byteSize: Int
    /// When it was first imported.
    public let importedAt: Date
    /// The extension of the stored original.
    let fileExtension: String
}

/// The outcome of importing one file.
public struct ImportResult: Sendable {
    /// The photo in the library.
    public let photo: PhotoRecord
    /// `false` when the same bytes were already in the library.
    public let isNew: Bool
}

/// A collage as listed: enough to show it without loading its items.
public struct CollageSummary: Hashable, Sendable {
    /// Its id.
    public let id: String
    /// Its title.
    public let title: String
    /// When it was made.
    public let created: Date
    /// When it last changed.
    public let updated: Date
    /// How many photos and stickers it holds.
    public let itemCount: Int
    /// The template it follows, if any.
    public let templateID: String?
    /// Its version: the number of saved changes, starting at 1.
    public let version: Int
    /// Whether its photos are laid out for their shapes (a smart layout, `auto`).
    public var isArranged = false
}

/// A collage as stored, with the version an edit must name to change it.
public struct StoredCollage: Hashable, Sendable {
    /// The document.
    public let collage: Collage
    /// The version, bumped by every saved change.
    public let version: Int
}

/// What garbage collection removed (or, in a dry run, would remove).
public struct CleanupReport: Hashable, Sendable {
    /// Whether nothing was removed, only counted.
    public var dryRun = false
    /// Files removed: orphans, half-written leftovers and stale derived files.
    public var removedFiles: Int = 0
    /// Bytes freed on disk.
    public var freedBytes: Int = 0
    /// Originals and sticker images that no record names, kept: they may be the only copy
    /// (`collage doctor --repair` puts the photos back).
    public var keptUnrecorded: Int = 0
}
