/// Why a cut line or a sticker sheet could not be made.
public enum PrintError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A length, page or size was not understood or is out of range; the message names it.
    case invalidOption(String)
    /// The sticker has no opaque subject to cut around.
    case noSubject(String)
    /// A sticker does not fit on the page even alone.
    case tooLarge(String)
    /// No stickers were given.
    case empty
    /// Tracing the cut line failed.
    case tracing(String)
    /// A file could not be written.
    case unwritable(String)
    /// A sticker file could not be read.
    case unreadable(String)
    /// The person who asked for the sheet stopped waiting for it.
    case cancelled

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidOption(let message): message
        case .noSubject(let name): "\(name): the sticker has no opaque subject to cut around"
        case .tooLarge(let message): message
        case .empty: "no stickers to put on the sheet"
        case .tracing(let message): "the cut line could not be traced: \(message)"
        case .unwritable(let message), .unreadable(let message): message
        case .cancelled: "the sheet was cancelled"
        }
    }
}
