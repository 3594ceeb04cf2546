/// How an item is drawn beyond what it shows and where: mirrored, how see-through, and (for a
/// photo) its adjustments and filter.
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
    /// A photo's own adjustments, made after its filter's.
    public var adjustments: Adjustments
    /// A photo's filter, if any.
    public var filter: FilterChoice?

    /// A look; by default the item as it is: unmirrored, opaque, as shot.
    public init(
        flipsHorizontally: Bool = false, flipsVertically: Bool = false, opacity: Double = 1,
        adjustments: Adjustments = .asShot, filter: FilterChoice? = nil
    ) {
        self.flipsHorizontally = flipsHorizontally
        self.flipsVertically = flipsVertically
        self.opacity = opacity
        self.adjustments = adjustments
        self.filter = filter
    }

    /// Whether the photo's light or colour is changed (by a filter or its own adjustments).
    public var changesColour: Bool { !adjustments.isAsShot || (filter.map { $0.strength > 0 } ?? false) }

    /// The filter's adjustments at its strength, then the photo's own: what the renderer makes.
    public var combinedAdjustments: Adjustments {
        guard let filter, let recipe = Filter.named(filter.id) else { return adjustments }
        return recipe.adjustments.scaled(by: filter.strength).adding(adjustments)
    }

    /// The filter's tone curves (red, green, blue) at its strength, applied last; `nil` for none.
    public var combinedCurves: [ToneCurve]? {
        guard let filter, filter.strength > 0, let recipe = Filter.named(filter.id),
            recipe.curves.contains(where: { $0 != .identity })
        else { return nil }
        return recipe.curves.map { curve in
            ToneCurve(
                (0...16).map { step in
                    let x = Double(step) / 16
                    return (x, x + (curve.value(at: x) - x) * filter.strength)
                })
        }
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
        if let problem = adjustments.problem { return problem }
        if let problem = filter?.problem { return problem }
        if !adjustments.isAsShot || filter != nil, content.kind != "photo" {
            return "only photos take adjustments and filters; this item is a \(content.kind)"
        }
        return nil
    }
}
