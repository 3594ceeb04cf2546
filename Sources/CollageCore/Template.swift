/// A layout: named slot rectangles in unit coordinates that become frames on any canvas.
///
/// Templates are data, so adding a layout is adding one entry to ``Template/catalog``.
public struct Template: Hashable, Sendable, Identifiable {
    /// Stable identifier used in documents and on the command line, e.g. `magazine`.
    public let id: String
    /// A name to show people.
    public let name: String
    /// An SF Symbols-style name for the picker icon.
    public let symbol: String
    /// Whether the layout belongs to the paid tier of the original app.
    public let isPremium: Bool
    /// Slot rectangles in unit coordinates (0…1 each way), in fill order.
    public let slots: [Rect]
    /// The shape each slot cuts its photo to, in slot order; empty when every slot is a rectangle.
    public let shapes: [PhotoShape]

    /// A template. Slots are unit rectangles; edges that line up are kept exact by
    /// ``frames(in:spacing:padding:)``. `shapes`, when given, has a shape for every slot.
    public init(id: String, name: String, symbol: String, isPremium: Bool, slots: [Rect], shapes: [PhotoShape] = []) {
        self.id = id
        self.name = name
        self.symbol = symbol
        self.isPremium = isPremium
        self.slots = slots
        self.shapes = shapes
    }

    /// The shape slot `index` gives its photo; a rectangle for a slot without one (or no slot).
    public func shape(ofSlot index: Int?) -> PhotoShape {
        guard let index, shapes.indices.contains(index) else { return .rectangle }
        return shapes[index]
    }

    /// How many photos the layout holds.
    public var slotCount: Int { slots.count }

    /// The slot frames on a canvas, in canvas points.
    ///
    /// The inner area (the canvas less `padding` on every side) is divided by the slots' unit
    /// edges as if each slot carried `spacing` on its trailing sides. So slots of equal unit size
    /// get equal frames, every gap between neighbours is exactly `spacing`, and every outer
    /// margin is exactly `padding`. Edges are rounded to a thousandth of a point, which keeps
    /// binary fractions such as 641.4000000000001 out of documents.
    public func frames(in canvas: Size, spacing: Double, padding: Double) -> [Rect] {
        func span(_ start: Double, _ end: Double, length: Double) -> (Double, Double) {
            let scale = length - 2 * padding + spacing
            let lower = ((padding + start * scale) * 1000).rounded() / 1000
            let upper = ((padding + end * scale - spacing) * 1000).rounded() / 1000
            return (lower, max(lower, upper))
        }
        return slots.map { slot in
            let (left, right) = span(slot.x, slot.maxX, length: canvas.width)
            let (top, bottom) = span(slot.y, slot.maxY, length: canvas.height)
            return Rect(
                x: left, y: top, width: ((right - left) * 1000).rounded() / 1000,
                height: ((bottom - top) * 1000).rounded() / 1000)
        }
    }

    /// The slot frames for a collage's canvas and style.
    public func frames(for collage: Collage) -> [Rect] {
        frames(in: collage.canvas, spacing: collage.style.spacing, padding: collage.style.padding)
    }

    /// The template with `id` from the catalogue.
    public static func named(_ id: String) -> Template? { catalog.first { $0.id == id } }
}
