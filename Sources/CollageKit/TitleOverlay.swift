import CollageCore

/// The title `collage make --title` puts on a collage: centred over the photos near the bottom
/// edge (or the top or middle, off the subjects), on a white pill so it reads over any photo,
/// whatever the layout (a band would take room from the photos and change every layout's
/// proportions). In the editor it is an ordinary text item: it can be moved, restyled or removed.
public enum TitleOverlay {
    /// The id of the title's text item.
    public static let itemID = "title"

    /// The look of a title on `canvas`: bold, about a sixteenth of the canvas's shorter side.
    public static func block(_ title: String, font: String? = nil, on canvas: Size) -> TextBlock {
        let size = (min(canvas.width, canvas.height) / 16).rounded()
        return TextBlock(
            text: title, font: font.flatMap { TextFont.named($0)?.family ?? $0 } ?? TextFont.defaultFamily,
            weight: 700, size: max(Limits.textSize.lowerBound, size),
            background: TextBackground(
                color: .white, opacity: 0.92, cornerRadius: 500, padding: (size * 0.45).rounded()))
    }

    /// `collage` with the title on top of everything, fitted to its words: near the bottom edge,
    /// or where it would cover none of `subjects` (the photos' subjects, in canvas points) the
    /// first of the top and the middle that covers none (the pill lay over a portrait's mouth
    /// and a cat's face).
    /// - Throws: ``Failure`` of kind `invalidOption` naming `title` or `title-font` when the text
    ///   cannot be a title (empty, too long, control characters) or the font is not curated.
    public static func adding(
        _ title: String, font: String? = nil, to collage: Collage, avoiding subjects: [Point] = []
    ) throws(Failure) -> Collage {
        let block = block(title, font: font, on: collage.canvas)
        if let problem = TextBlock.problem(inText: title) { throw Failure(.invalidOption, problem, field: "title") }
        // It is the document's title too, which is shorter than a text may be: refused here, by
        // its flag, rather than when the collage is drawn.
        let length = title.count
        guard length <= EditRules.maximumTitleLength else {
            throw Failure(
                .invalidOption, "expected at most \(EditRules.maximumTitleLength) characters, got \(length)",
                field: "title")
        }
        if TextFont.named(block.font) == nil {
            throw Failure(
                .invalidOption, "expects one of \(TextFont.familyList), got \"\(block.font.prefix(60))\"",
                field: "title-font")
        }
        let margin = max(collage.style.padding, min(collage.canvas.width, collage.canvas.height) * 0.04)
        let width = collage.canvas.width * 0.8
        var frame = Rect(x: (collage.canvas.width - width) / 2, y: 0, width: width, height: block.size * 2)
        var titled: Collage
        do {
            titled = try collage.applying(.addItem(id: itemID, content: .text(block), frame: frame))
            titled = try TextFitting.fitted(titled)
            frame = titled.item(itemID)?.frame ?? frame
            frame.y = collage.canvas.height - margin - frame.height
            // A face lies a little above its subject's centre: the pill keeps that much clear.
            let covers = { (pill: Rect) in
                let reach = Rect(x: pill.x, y: pill.y - pill.height / 2, width: pill.width, height: pill.height * 2)
                return subjects.contains { reach.contains($0) }
            }
            // The bottom, else the top, else the middle (in a grid of two rows, their seam).
            let places = [frame.y, margin, (collage.canvas.height - frame.height) / 2]
            if let clear = places.first(where: {
                !covers(Rect(x: frame.x, y: $0, width: frame.width, height: frame.height))
            }) {
                frame.y = clear
            }
            return try titled.applying(.moveItem(id: itemID, origin: frame.origin))
        } catch let error as EditError {
            throw Failure(.invalidOption, error.description, field: "title")
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(.invalidOption, "\(error)", field: "title")
        }
    }
}
