extension Collage {
    /// The topmost item whose rotated frame contains `point` (canvas points), if any.
    public func topmostItem(at point: Point) -> CollageItem? {
        items.last { $0.contains(point) }
    }
}

extension CollageItem {
    /// Whether `point` (canvas points) lies inside the item as it is drawn, rotation included: a
    /// photo cut to a shape takes clicks only inside the shape.
    public func contains(_ point: Point) -> Bool {
        // Turning the point back by the item's rotation lets the unrotated frame answer.
        let local = point.rotated(by: Angle(degrees: -rotation.degrees), around: frame.center)
        guard frame.contains(local) else { return false }
        guard case .photo = content, let outline = look.hitOutline(in: frame.size) else { return true }
        let unit = Point(x: (local.x - frame.x) / frame.width, y: (local.y - frame.y) / frame.height)
        return PhotoShape.contains(unit, outline: outline)
    }
}
