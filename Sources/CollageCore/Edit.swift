/// One change to a collage. Every change a person or a script makes is one of these, applied by
/// ``Collage/applying(_:)``; the web editor, the command line and undo all go through it.
public enum Edit: Hashable, Sendable {
    /// Adds an item: a photo just above the other photos (under the stickers and text that
    /// decorate them), anything else on top. With no frame, a photo takes the first empty
    /// template slot, and anything else is centred at a default size.
    case addItem(id: String, content: ItemContent, frame: Rect?)
    /// Removes an item.
    case removeItem(id: String)
    /// Adds a copy of an item, named `newID`, just above it and shifted a little down and to the
    /// right (or back, where that would leave the canvas): the same content, size, turn, crop and
    /// look, free of any slot.
    case duplicateItem(id: String, newID: String)
    /// Moves an item so its frame's top-left corner is at `origin`; it leaves its slot.
    case moveItem(id: String, origin: Point)
    /// Gives an item a new frame (resize handles); it leaves its slot.
    case resizeItem(id: String, frame: Rect)
    /// Sets an item's rotation; normalised to (-180, 180].
    case rotateItem(id: String, degrees: Double)
    /// Moves an item in the stacking order.
    case reorder(id: String, move: ZOrderMove)
    /// Exchanges what two items show (with their crops, sticker styles and looks), keeping their
    /// frames; in a template's slots each photo lies centred in its new slot with the size
    /// against its slot and the turn it had (not where it had been nudged), a shaped slot
    /// keeping its shape.
    case swapContents(first: String, second: String)
    /// Puts a photo into a template slot: it takes the slot's frame, upright and uncropped. A
    /// photo already in that slot swaps places with it, so dropping a photo on a filled slot
    /// never stacks two photos in one frame.
    case placeInSlot(id: String, slot: Int)
    /// Follows a template: photos snap into its slots in order, extra photos stay free. A sticker
    /// lying on a photo moves with it.
    case applyTemplate(id: String)
    /// Lays photos out in frames made for their shapes (``AutoLayout`` computes them): the collage
    /// follows no template, each listed item takes its frame upright and uncropped, and the
    /// arrangement is kept so the same layout, or the next, can be made again. A sticker lying on
    /// a photo moves with it, keeping its place and share of the photo's frame.
    case arrange(frames: [String: Rect], arrangement: Arrangement)
    /// Changes background, spacing, padding and corner radius; slotted items re-flow.
    case setStyle(Style)
    /// Changes the canvas shape, keeping its longer side; slotted items re-flow.
    case setAspect(AspectRatio)
    /// Sets which part of a photo fills its frame; `nil` returns to the automatic crop.
    case setCrop(id: String, crop: Crop?)
    /// Sets a sticker's outline and shadow; `nil` removes both.
    case setStickerStyle(id: String, style: StickerStyle?)
    /// Shows another library sticker in a sticker item (its refined copy), keeping the item's
    /// frame, turn, style and look.
    case replaceSticker(id: String, sticker: String)
    /// Shows another photo in a photo item, keeping its id, frame, slot, turn, place in the
    /// stacking order and whole look (filter, adjustments, shape, border, shadow, mirroring,
    /// opacity); its crop returns to the automatic one, made for the new photo. (Removed and
    /// added again, a replaced photo lost its look and rose above the photos it lay under.)
    case replacePhoto(id: String, photo: String)
    /// Sets how an item is mirrored and how opaque it is, and a photo's filter and adjustments
    /// (``ItemLook/plain`` returns it to as it is).
    case setLook(id: String, look: ItemLook)
    /// Changes a text item's words and look; its frame keeps its place and width.
    case setText(id: String, text: TextBlock)
    /// Renames the collage.
    case rename(title: String)
}

/// A step in the stacking order.
public enum ZOrderMove: String, CaseIterable, Hashable, Sendable {
    /// One place towards the top.
    case forward
    /// One place towards the bottom.
    case backward
    /// To the very top.
    case front
    /// To the very bottom.
    case back
}

/// Why an edit was refused. The document is unchanged when one is thrown.
public enum EditError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No item has this id.
    case unknownItem(String)
    /// An item with this id already exists.
    case duplicateItem(String)
    /// No template has this id.
    case unknownTemplate(String)
    /// A number was NaN or infinite.
    case notFinite(field: String)
    /// A frame smaller than ``EditRules/minimumItemSide`` on a side.
    case frameTooSmall(width: Double, height: Double)
    /// A frame with too little of it on the canvas to grab again.
    case frameOffCanvas(Rect)
    /// A frame far larger than the canvas.
    case frameTooLarge(width: Double, height: Double)
    /// Spacing, padding or radius out of range, or leaving no room for slots.
    case invalidStyle(String)
    /// A crop whose focus or zoom is out of range, or a crop on a sticker.
    case invalidCrop(String)
    /// A sticker style on a photo, or an outline out of range.
    case invalidStickerStyle(String)
    /// An opacity, adjustment or filter strength out of range, an unknown filter, a flip on a
    /// text, or a filter on an item that is not a photo.
    case invalidLook(String)
    /// An empty or overlong title.
    case invalidTitle(String)
    /// Swapping an item with itself.
    case swapWithItself(String)
    /// A slot index the collage's layout does not have.
    case unknownSlot(Int, slots: Int)
    /// Only photos go into slots; a sticker stays free.
    case notAPhoto(String)
    /// Only a photo item shows another photo.
    case replacingNotAPhoto(String)
    /// A photo item told to show a photo with no name.
    case noPhotoNamed(String)
    /// Adding an item to a collage that already holds ``Limits/maximumItems``.
    case tooManyItems(limit: Int)
    /// A text that cannot be drawn (empty, too long, an unknown font…), or a text edit on an
    /// item that is not text.
    case invalidText(String)

    /// A sentence saying what was expected and what was received.
    public var description: String {
        switch self {
        case .unknownItem(let id): "no item with id \"\(id)\" in this collage"
        case .duplicateItem(let id): "an item with id \"\(id)\" already exists"
        case .unknownTemplate(let id):
            "no template named \"\(id)\"; expected one of \(Template.catalog.map(\.id).joined(separator: ", "))"
        case .notFinite(let field): "\(field) must be a finite number"
        case .frameTooSmall(let width, let height):
            "a frame must be at least \(format(EditRules.minimumItemSide)) points on each side, got "
                + "\(format(width)) × \(format(height))"
        case .frameOffCanvas(let frame):
            "the frame (\(format(frame.x)), \(format(frame.y)), \(format(frame.width)) × \(format(frame.height))) "
                + "must keep at least \(format(EditRules.minimumVisible)) points on each side inside the canvas"
        case .frameTooLarge(let width, let height):
            "a frame may be at most \(format(EditRules.maximumCanvasMultiple)) times the canvas each way, got "
                + "\(format(width)) × \(format(height))"
        case .invalidStyle(let reason), .invalidCrop(let reason), .invalidTitle(let reason),
            .invalidStickerStyle(let reason), .invalidText(let reason), .invalidLook(let reason):
            reason
        case .swapWithItself(let id): "cannot swap item \"\(id)\" with itself"
        case .unknownSlot(let slot, let slots):
            slots == 0
                ? "this collage has no layout, so it has no slot \(slot)"
                : "no slot \(slot) in this layout: its slots are 0 to \(slots - 1)"
        case .notAPhoto(let id): "item \"\(id)\" is not a photo; only photos go into slots"
        case .replacingNotAPhoto(let id): "item \"\(id)\" is not a photo; only a photo item shows another photo"
        case .noPhotoNamed(let id): "item \"\(id)\" cannot show a photo with an empty id"
        case .tooManyItems(let limit): "a collage holds at most \(limit) items; remove one before adding another"
        }
    }
}

/// The limits edits enforce, so the editor and the command line agree on them.
public enum EditRules {
    /// The smallest side a frame may have, in points.
    public static let minimumItemSide: Double = 20
    /// How much of a frame must stay on the canvas each way, so it can always be grabbed again.
    public static let minimumVisible: Double = 20
    /// A frame may be at most this many canvases wide or tall.
    public static let maximumCanvasMultiple: Double = Limits.canvasMultiple
    /// The longest title, in characters.
    public static let maximumTitleLength = 200
    /// An added text with no frame is this fraction of the canvas's width wide.
    public static let defaultTextWidthFraction: Double = 0.7
    /// An added item with no frame is this fraction of the canvas's shorter side.
    public static let defaultItemFraction: Double = 0.4
    /// How far apart, as a fraction of the canvas's short side, photos stacked at the centre sit
    /// (the photos a new layout has no slot for).
    public static let cascadeStepFraction: Double = 0.12
}

private func format(_ value: Double) -> String {
    JSONValue.format((value * 100).rounded() / 100)
}
