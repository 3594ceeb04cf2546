import Foundation

/// A collage: a canvas with a style, the template it follows, and its items.
///
/// A value type: every change is an ``Edit`` applied by ``Collage/applying(_:)``, which returns a
/// new document, so undo is keeping the previous value.
public struct Collage: Hashable, Sendable {
    /// Stable identifier.
    public var id: String
    /// A name the person chose.
    public var title: String
    /// When the collage was made (kept to the millisecond so JSON round-trips exactly).
    public var created: Date
    /// When the collage last changed.
    public var updated: Date
    /// The canvas size in points; rendering at scale 3 makes an image of 3 × these pixels.
    public var canvas: Size
    /// Background, spacing, padding and corner radius.
    public var style: Style
    /// The ``Template/id`` of the layout the items follow, if any.
    public var templateID: String?
    /// The items, back to front: the last one is drawn on top.
    public var items: [CollageItem]
    /// How the photos were laid out for their shapes (``AutoLayout``), when they were.
    public var arrangement: Arrangement?

    /// A collage; dates are rounded to the millisecond.
    public init(
        id: String, title: String, created: Date, updated: Date? = nil, canvas: Size, style: Style = Style(),
        templateID: String? = nil, items: [CollageItem] = [], arrangement: Arrangement? = nil
    ) {
        self.arrangement = arrangement
        self.id = id
        self.title = title
        self.created = created.roundedToMilliseconds
        self.updated = (updated ?? created).roundedToMilliseconds
        self.canvas = canvas
        self.style = style
        self.templateID = templateID
        self.items = items
    }

    /// The canvas as a rectangle at the origin.
    public var bounds: Rect { Rect(origin: .zero, size: canvas) }

    /// The template the collage follows, when its id is in the catalogue.
    public var template: Template? { templateID.flatMap(Template.named) }

    /// The item with `id`, if present.
    public func item(_ id: String) -> CollageItem? { items.first { $0.id == id } }

    /// The position of the item with `id` in ``items`` (its z-order), if present.
    public func zIndex(of id: String) -> Int? { items.firstIndex { $0.id == id } }

    /// The photos in the order a layout fills: slotted ones by slot, then the others back to front.
    public var photosInLayoutOrder: [CollageItem] { photoIndicesInLayoutOrder.map { items[$0] } }

    /// The positions in ``items`` of the photos, back to front.
    var photoIndices: [Int] {
        items.indices.filter { if case .photo = items[$0].content { true } else { false } }
    }

    /// The positions in ``items`` of the photos, in layout order.
    var photoIndicesInLayoutOrder: [Int] {
        photoIndices.sorted { lhs, rhs in
            switch (items[lhs].slot, items[rhs].slot) {
            case (let left?, let right?): left < right
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): lhs < rhs
            }
        }
    }
}

/// How a collage's photos were laid out for their own shapes (see ``AutoLayout``): what makes the
/// same layout again, or with the next seed another one (a Shuffle).
public struct Arrangement: Hashable, Sendable {
    /// The search's seed.
    public var seed: UInt64
    /// The id of the item made clearly the largest, if any.
    public var hero: String?
    /// The largest share of a photo's area the layout may crop.
    public var maximumCrop: Double
    /// Whether the photos keep their order, reading from the top left.
    public var keepsOrder: Bool

    /// The largest seed a document keeps (JSON numbers are exact up to 2⁵³).
    public static let maximumSeed: UInt64 = 1 << 53

    /// An arrangement.
    public init(
        seed: UInt64 = 0, hero: String? = nil, maximumCrop: Double = AutoLayout.Options.defaultMaximumCrop,
        keepsOrder: Bool = true
    ) {
        self.seed = seed
        self.hero = hero
        self.maximumCrop = maximumCrop
        self.keepsOrder = keepsOrder
    }
}

/// One photo or sticker placed on the canvas.
public struct CollageItem: Hashable, Sendable {
    /// Stable identifier, unique within its collage.
    public var id: String
    /// What the item shows.
    public var content: ItemContent
    /// The frame in canvas points, before rotation.
    public var frame: Rect
    /// Rotation about the frame's centre.
    public var rotation: Angle
    /// Which part of the photo fills the frame; `nil` lets the renderer choose (centre, or the subject).
    public var crop: Crop?
    /// The template slot this item fills, if any.
    public var slot: Int?
    /// Outline and shadow, for stickers.
    public var stickerStyle: StickerStyle?
    /// Mirroring, opacity and a photo's filter and adjustments; ``ItemLook/plain`` for the item as it is.
    public var look: ItemLook

    /// An item.
    public init(
        id: String, content: ItemContent, frame: Rect, rotation: Angle = .zero, crop: Crop? = nil, slot: Int? = nil,
        stickerStyle: StickerStyle? = nil, look: ItemLook = .plain
    ) {
        self.look = look
        self.id = id
        self.content = content
        self.frame = frame
        self.rotation = rotation
        self.crop = crop
        self.slot = slot
        self.stickerStyle = stickerStyle
    }
}

/// What an item shows: a photo or a sticker, each named by a reference that the library or the
/// renderer's photo source resolves (a library id, or a file path relative to the document), or
/// a text drawn with the renderer's fonts.
public enum ItemContent: Hashable, Sendable {
    /// A photo, filled into its frame with an aspect-fill crop.
    case photo(String)
    /// A subject-lifted sticker (an image with alpha), fitted inside its frame.
    case sticker(String)
    /// A caption or title, wrapped at its frame's width.
    case text(TextBlock)

    /// The image the item shows, as the library or a document's folder names it; `nil` for text.
    public var reference: String? {
        switch self {
        case .photo(let reference), .sticker(let reference): reference
        case .text: nil
        }
    }

    /// `"photo"`, `"sticker"` or `"text"`, as written in documents.
    public var kind: String {
        switch self {
        case .photo: "photo"
        case .sticker: "sticker"
        case .text: "text"
        }
    }

    /// The text block, for a text item.
    public var textBlock: TextBlock? {
        if case .text(let block) = self { block } else { nil }
    }
}

/// Which part of a photo fills its frame.
public struct Crop: Hashable, Sendable {
    /// The point of the photo to keep centred, in unit coordinates of the photo (0…1 each way).
    public var focus: Point
    /// 1 shows as much of the photo as aspect-fill allows; 2 shows half as much in each direction.
    public var zoom: Double

    /// The range of zoom an edit accepts.
    public static let zoomRange: ClosedRange<Double> = Limits.cropZoom

    /// A crop centred on `focus` at `zoom`.
    public init(focus: Point = Point(x: 0.5, y: 0.5), zoom: Double = 1) {
        self.focus = focus
        self.zoom = zoom
    }

    /// The plain centre crop.
    public static let centered = Crop()
}

/// How a sticker stands out from what is behind it.
public struct StickerStyle: Hashable, Sendable {
    /// Width of the white outline around the subject, in points; 0 for none.
    public var outlineWidth: Double
    /// Whether a soft drop shadow falls below the sticker.
    public var shadow: Bool
    /// A look drawn over the sticker's own pixels, if any.
    public var effect: StickerEffect?

    /// The widest outline an edit accepts, in points.
    public static let maximumOutlineWidth: Double = Limits.itemOutline.upperBound

    /// A style; by default a 12-point white outline and a shadow, the look of a lifted subject.
    public init(outlineWidth: Double = 12, shadow: Bool = true, effect: StickerEffect? = nil) {
        self.outlineWidth = outlineWidth
        self.shadow = shadow
        self.effect = effect
    }
}

/// The looks a sticker can take, as phones offer them for lifted subjects.
public enum StickerEffect: String, CaseIterable, Hashable, Sendable {
    /// Flat colours in smoothed regions with confident ink lines, as a comic is drawn.
    case comic
    /// A comic printed with fewer colours and its shadows in halftone dots, as in pop art.
    case halftone
    /// Inflated and rounded: lit from above, its edges curving away.
    case puffy
    /// An iridescent sheen that follows the sticker's own light and dark.
    case shiny
}

/// How a collage looks around and between its items.
public struct Style: Hashable, Sendable {
    /// What fills the canvas: a colour (``Color/transparent`` makes a cut-out collage), a
    /// gradient, a pattern, a paper or a photo.
    public var background: Background
    /// Points between neighbouring template slots.
    public var spacing: Double
    /// Points between the canvas edge and the slots.
    public var padding: Double
    /// Radius of each photo's corners, in points.
    public var cornerRadius: Double

    /// The largest spacing, padding or radius an edit accepts, in points.
    public static let maximumLength: Double = Limits.styleLength.upperBound

    /// A style; the defaults are a white canvas with 12-point gaps and square corners.
    public init(
        background: Background = .white, spacing: Double = 12, padding: Double = 12, cornerRadius: Double = 0
    ) {
        self.background = background
        self.spacing = spacing
        self.padding = padding
        self.cornerRadius = cornerRadius
    }
}

extension Date {
    /// Documents keep milliseconds, so a date survives a trip through JSON unchanged.
    package var roundedToMilliseconds: Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
