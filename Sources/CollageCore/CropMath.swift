/// Aspect-fill crop geometry, shared by the renderer and the editor so both show the same pixels.
public enum CropMath {
    /// The part of a photo, in the photo's pixels, that fills a frame.
    ///
    /// The rectangle has the frame's aspect ratio, is as large as the photo allows divided by the
    /// crop's zoom, is centred on the focus where it can be, and is moved (never shrunk) to stay
    /// inside the photo, so a focus near an edge shows the edge rather than empty space.
    /// - Parameters:
    ///   - imageSize: the photo's pixel size after orientation.
    ///   - frameSize: the frame's size; only its aspect ratio matters.
    ///   - crop: the focus (unit coordinates of the photo) and zoom (clamped to at least 1).
    public static func sourceRect(imageSize: Size, frameSize: Size, crop: Crop = .centered) -> Rect {
        guard imageSize.width > 0, imageSize.height > 0, frameSize.width > 0, frameSize.height > 0 else {
            return Rect(origin: .zero, size: imageSize)
        }
        let frameAspect = frameSize.aspectRatio
        var size =
            imageSize.aspectRatio > frameAspect
            ? Size(width: imageSize.height * frameAspect, height: imageSize.height)
            : Size(width: imageSize.width, height: imageSize.width / frameAspect)
        size = size.scaled(by: 1 / max(1, crop.zoom.isFinite ? crop.zoom : 1))
        let focusX = clamp(crop.focus.x, 0, 1) * imageSize.width
        let focusY = clamp(crop.focus.y, 0, 1) * imageSize.height
        let x = clamp(focusX - size.width / 2, 0, imageSize.width - size.width)
        let y = clamp(focusY - size.height / 2, 0, imageSize.height - size.height)
        return Rect(x: x, y: y, width: size.width, height: size.height)
    }

    /// Where a smart crop centres for a subject (unit coordinates of the photo in and out): its
    /// centre of mass across, and down no lower than 35 % of the way from its top to its bottom.
    /// A person's or an animal's head is at the top of them and their mass below it: a crop
    /// round the centre of mass of an astronaut in a wide frame showed her from the chin down.
    /// A subject the frame holds with room to spare (the frame at least 1.3 times its height)
    /// stays whole; in a frame only a little taller than the subject, its feet go, not its head,
    /// since the focus cannot know the frame's size.
    public static func focus(centreOfMass: Point, bounds: Rect) -> Point {
        let headroom = bounds.y + 0.35 * bounds.height
        return Point(x: clamp(centreOfMass.x, 0, 1), y: clamp(min(centreOfMass.y, headroom), 0, 1))
    }

    private static func clamp(_ value: Double, _ lower: Double, _ upper: Double) -> Double {
        guard value.isFinite else { return lower }
        return min(max(value, lower), max(lower, upper))
    }
}
