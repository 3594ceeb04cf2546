extension Collage {
    /// The topmost item whose rotated frame contains `point` (canvas points), if any.
    public func topmostItem(at point: Point) -> CollageItem? {
        items.last { $0.contains(point) }
    }
}

extension CollageItem {
    /// Whether `point` (canvas points) lies inside the frame as it is drawn, rotation included.
    public func contains(_ point: Point) -> Bool {
        // Turning the point back by the item's rotation lets the unrotated frame answer.
        let local = point.rotated(by: Angle(degrees: -rotation.degrees), around: frame.center)
        return frame.contains(local)
    }
}
