import CollageCore
import Foundation

/// Why a library operation failed. The library on disk is unchanged when one is thrown.
public enum LibraryError: Error, Sendable, CustomStringConvertible {
    /// The library folder cannot be created or written.
    case unwritable(path: String, reason: String)
    /// `library.sqlite` exists but is not a Collage library (corrupt, or another program's).
    case notALibrary(path: String, reason: String)
    /// The database was written by a newer Collage.
    case newerSchema(path: String, found: Int, supported: Int)
    /// SQLite reported an error.
    case database(path: String, SQLiteErrorInfo)
    /// No collage has this id.
    case unknownCollage(String)
    /// No photo has this id.
    case unknownPhoto(String)
    /// No sticker has this id.
    case unknownSticker(String)
    /// No paired device has this id.
    case unknownDevice(String)
    /// An edit carried a version other than the collage's current one.
    case staleVersion(collage: String, expected: Int, current: Int)
    /// An edit was refused.
    case edit(EditError)
    /// A photo could not be imported or decoded.
    case image(String)
    /// A photo's file is missing from `photos/`.
    case missingPhotoFile(id: String, path: String)
    /// Anything else, with a message.
    case invalid(String)
    /// The collage a change would store breaks the document rules (``CollageCore/Limits``).
    case invalidCollage([DocumentIssue])
    /// Undo or redo found no step to bring back.
    case emptyHistory(collage: String, action: String)

    /// What to do with a library whose database file is damaged.
    private static let recovery =
        "Restore library.sqlite from a backup; or move it aside with its library.sqlite-wal and library.sqlite-shm "
        + "(keep them: most of it can still be read) and run 'collage doctor --repair', which starts a new database "
        + "and puts back every photo the library's photos folder holds (the collages stay in the damaged file)"

    /// A sentence saying what went wrong and what to do.
    public var description: String {
        switch self {
        case .unwritable(let path, let reason) where reason.contains("No space left"):
            "cannot write \(path): the disk is full (\(reason)); free some space and try again"
        case .unwritable(let path, let reason):
            "cannot write the library at \(path) (\(reason)); choose another folder with --library or fix its permissions"
        case .notALibrary(let path, let reason) where reason.hasPrefix("the database is damaged"):
            "\(path) is damaged (\(reason.dropFirst("the database is damaged: ".count))); it was left untouched. "
                + Self.recovery
        case .notALibrary(let path, let reason):
            "\(path) is not a Collage library (\(reason)); it was left untouched. Move it aside, or choose another "
                + "folder with --library"
        case .newerSchema(let path, let found, let supported):
            "\(path) was written by a newer Collage (schema \(found); this one reads up to \(supported)). "
                + "Update Collage; the library was left untouched"
        case .database(let path, let error) where error.code == 11 && error.statement != nil:
            // SQLITE_CORRUPT from SQLite itself: pages of the file are damaged, not a cell.
            "the library's database \(path) is damaged (\(error.message), SQLite code 11, in \"\(error.statement ?? "")\"); "
                + "nothing was changed. " + Self.recovery
        case .database(let path, let error):
            "database error in \(path): \(error.message) (SQLite code \(error.code)"
                + (error.statement.map { ", in \"\($0)\")" } ?? ")")
        case .unknownCollage(let id): "no collage with id \"\(id)\" (see 'collage list')"
        case .unknownPhoto(let id):
            // A short prefix is refused however many photos it would match: say why.
            "no photo with id \"\(id)\" (see 'collage photos'"
                + (id.count < 6 && id.allSatisfy(\.isHexDigit) ? "; a shortened id needs at least 6 characters)" : ")")
        case .unknownSticker(let id): "no sticker with id \"\(id)\""
        case .unknownDevice(let id): "no paired device with id \"\(id)\" (see 'collage devices')"
        case .staleVersion(let collage, let expected, let current):
            "collage \(collage) is at version \(current), not \(expected): it changed since you read it; "
                + "reload it and apply the edit again"
        case .edit(let error): error.description
        case .image(let message): message
        case .missingPhotoFile(let id, let path):
            "the file of photo \(id) is missing (\(path)); import the photo again to restore it"
        case .invalid(let message): message
        case .emptyHistory(let collage, let action): "collage \(collage) has nothing to \(action)"
        case .invalidCollage(let issues):
            "the collage would not be valid: " + issues.map(\.description).joined(separator: "; ")
        }
    }
}

/// SQLite's code and message, without the internal error type.
public struct SQLiteErrorInfo: Sendable, Hashable {
    /// SQLite's primary result code.
    public let code: Int32
    /// SQLite's message.
    public let message: String
    /// The start of the statement that failed, when one did (opening a file is not one).
    public var statement: String? = nil
}

extension LibraryError {
    static func database(path: String, _ error: SQLiteError) -> LibraryError {
        .database(
            path: path,
            SQLiteErrorInfo(
                code: error.code, message: error.message, statement: error.sql.map { String($0.prefix(60)) }))
    }
}
