/// How an item is drawn beyond what it shows and where: mirrored, how see-through, and (for a
/// photo) its adjustments, filter, shape, border and shadow.
///
/// A look travels with what an item shows: swapping two photos swaps their looks, and a
/// duplicate keeps its original's. Replacing a photo keeps its frame's look: it is the frame
/// that was styled.
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
    /// The outline a photo is cut to; ``PhotoShape/rectangle`` keeps the collage's corners.
    public var shape: PhotoShape
    /// A photo's own border, drawn inside its frame, if any.
    public var border: PhotoBorder?
    /// A photo's drop shadow, cast by its shape and border, if any.
    public var shadow: DropShadow?

    /// A look; by default the item as it is: unmirrored, opaque, as shot, a plain rectangle.
    public init(
        flipsHorizontally: Bool = false, flipsVertically: Bool = false, opacity: Double = 1,
        adjustments: Adjustments = .asShot, filter: FilterChoice? = nil, shape: PhotoShape = .rectangle,
        border: PhotoBorder? = nil, shadow: DropShadow? = nil
    ) {
        self.flipsHorizontally = flipsHorizontally
        self.flipsVertically = flipsVertically
        self.opacity = opacity
        self.adjustments = adjustments
        self.filter = filter
        self.shape = shape
        self.border = border
        self.shadow = shadow
    }

    /// Whether the photo is framed beyond a plain rectangle: a shape, a border or a shadow.
    public var isFramed: Bool { shape != .rectangle || border != nil || shadow != nil }

    /// The outline that takes clicks on a photo, in unit coordinates of its frame; `nil` for the
    /// whole frame (a rectangle, or a polaroid card, which is a rectangle whatever its photo's shape).
    public func hitOutline(in size: Size) -> [Point]? {
        guard shape != .rectangle, border?.style != .polaroid else { return nil }
        return shape.outline(in: size)
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
        if isFramed, content.kind != "photo" {
            return "only photos take a shape, a border or a shadow; this item is a \(content.kind)"
        }
        if let border, !(border.width.isFinite && Limits.photoBorder.contains(border.width)) {
            return "border.width must be a number of points \(Limits.describe(Limits.photoBorder)), "
                + "got \(JSONValue.format(border.width))"
        }
        if let shadow { return shadow.problem(prefix: "shadow.") }
        return nil
    }
}

/// A border a photo draws inside its own frame, so the layout's gaps stay as they were.
public struct PhotoBorder: Hashable, Sendable {
    /// What kind of border.
    public enum Style: String, CaseIterable, Hashable, Sendable {
        /// A line of even width along the photo's shape.
        case line
        /// An instant-photo card: the photo inset by the width on three sides and by
        /// ``PhotoBorder/polaroidBottomRatio`` times it at the bottom, where a caption fits.
        case polaroid
    }

    /// Line or polaroid.
    public var style: Style
    /// The width in points (a polaroid's side margin).
    public var width: Double
    /// The border's colour.
    public var color: Color

    /// How much deeper a polaroid's bottom margin is than its sides, as on the real cards.
    public static let polaroidBottomRatio = 3.5

    /// A border; by default a 12-point white line.
    public init(style: Style = .line, width: Double = 12, color: Color = .white) {
        self.style = style
        self.width = width
        self.color = color
    }

    /// Where the photo sits inside a frame of `size` points: inset by the width for a polaroid's
    /// card (deeper at the bottom), the whole frame for a line, which is drawn over the photo's edge.
    public func photoArea(in size: Size) -> Rect {
        guard style == .polaroid else { return Rect(origin: .zero, size: size) }
        let side = min(width, size.width / 4, size.height / 4)
        let bottom = min(side * Self.polaroidBottomRatio, size.height / 2)
        return Rect(
            x: side, y: side, width: max(1e-3, size.width - 2 * side), height: max(1e-3, size.height - side - bottom))
    }
}
