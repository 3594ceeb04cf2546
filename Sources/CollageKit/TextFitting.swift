import CollageCore
import CollageRender

/// Keeps every text item's frame as tall as its words: the frame's width wraps the text, and its
/// height follows from it. Core cannot measure text (the fonts are the renderer's), so each face
/// adds the resizes that fit after a change, in the same version as the change.
enum TextFitting {
    /// `edits`, then a resize for each text item the edits added, reworded, restyled or made wider
    /// or narrower whose frame is not the height its words need (only those: measuring draws the
    /// words). The frame keeps its top-left corner, so a caption grows downwards as it is typed.
    /// - Throws: ``Failure`` when a text cannot be laid out.
    static func fitting(_ edits: [Edit], on collage: Collage) throws(Failure) -> [Edit] {
        // Edits that are refused are refused by the library, with its words.
        guard let next = try? collage.applying(edits) else { return edits }
        var fits: [Edit] = []
        for item in next.items {
            guard case .text(let block) = item.content else { continue }
            if let before = collage.item(item.id), before.content == item.content,
                before.frame.width == item.frame.width, !edits.isEmpty
            {
                continue
            }
            let height: Double
            do {
                height = try CollageRenderer.fittedTextHeight(block, width: item.frame.width)
            } catch {
                throw error.failure
            }
            guard abs(height - item.frame.height) > 0.5 else { continue }
            var frame = item.frame
            frame.height = height
            fits.append(.resizeItem(id: item.id, frame: frame))
        }
        return edits + fits
    }

    /// `collage` with its text items fitted, for collages made in one step (`make --title`).
    static func fitted(_ collage: Collage) throws(Failure) -> Collage {
        let edits = try fitting([], on: collage)
        do {
            return try collage.applying(edits)
        } catch {
            throw Failure(.invalidInput, error.description)
        }
    }
}
