/// How an item is drawn beyond what it shows and where: mirrored, and how see-through.
///
/// A look travels with what an item shows: swapping two photos swaps their looks, and a
/// duplicate keeps its original's.
public struct ItemLook: Hashable, Sendable {
    /// Whether the picture is mirrored left to right, inside its frame and before it is turned.
    public var flipsHorizontally: Bool
    /// Whether the picture is mirrored top to bottom, inside its frame and before it is turned.
    public var flipsVertically: Bool
    /// How opaque the whole item is, outline and shadow included: 0 is invisible, 1 as it is.
    public var opacity: Double

    /// A look; by default the item as it is: unmirrored and opaque.
    public init(flipsHorizontally: Bool = false, flipsVertically: Bool = false, opacity: Double = 1) {
        self.flipsHorizontally = flipsHorizontally
        self.flipsVertically = flipsVertically
        self.opacity = opacity
    }

    /// The item as it is.
    public static let plain = ItemLook()

    /// Whether the look changes nothing, so a document need not mention it.
    public var isPlain: Bool { self == .plain }

    /// Whether the picture is mirrored either way.
    public var isFlipped: Bool { flipsHorizontally || flipsVertically }

    /// What keeps this look off an item that shows `content`, as a sentence; `nil` when it fits.
    ///
    /// A text is never mirrored: mirrored words are a mistake far more often than a wish.
    public func problem(for content: ItemContent) -> String? {
        guard opacity.isFinite, Limits.itemOpacity.contains(opacity) else {
            return "opacity must be a number \(Limits.describe(Limits.itemOpacity)), got \(JSONValue.format(opacity))"
        }
        if isFlipped, content.textBlock != nil { return "a text is not flipped; only photos and stickers are" }
        return nil
    }
}
