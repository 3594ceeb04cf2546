import CollageCore
import CollageLibrary
import CollageRender
import Foundation

/// A collage's stickers drawn as they look on it (outline, shadow, effect) by the renderer, as
/// picture files to print on a sticker sheet: what a person peels off is what they placed.
public enum StickerPrints {
    /// One sticker item of a collage, drawn.
    public struct Print: Sendable, Equatable {
        /// The item on the collage.
        public let itemID: String
        /// The library sticker it shows.
        public let stickerID: String
        /// The drawn picture (PNG with alpha).
        public let file: URL
    }

    /// Draws every sticker item of `collage`, large enough for a print `size` millimetres on its
    /// longer side at `dotsPerInch`, into `folder`. A drawing already there for the same look
    /// is reused (its name is a digest of the look), so a sheet packed again draws nothing again.
    /// - Throws: ``Failure``: `invalidInput` when the collage has no stickers, or a sticker's
    ///   picture cannot be drawn.
    public static func draw(
        _ collage: Collage, photos: some PhotoSource, into folder: URL, size: Double, dotsPerInch: Double = 300
    ) throws(Failure) -> [Print] {
        let items = collage.items.filter { if case .sticker = $0.content { true } else { false } }
        guard !items.isEmpty else {
            throw Failure(.invalidInput, "the collage \"\(collage.title.prefix(60))\" has no stickers to print")
        }
        guard size.isFinite, size > 0, dotsPerInch.isFinite, dotsPerInch > 0 else {
            throw Failure(.invalidOption, "a sticker's print size must be a positive number of millimetres")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(.cannotWrite, "cannot make \(folder.path): \(error.localizedDescription)")
        }
        let wanted = size / 25.4 * dotsPerInch
        var prints: [Print] = []
        for item in items {
            guard let reference = item.content.reference else { continue }
            let longer = max(item.frame.width, item.frame.height)
            let scale = min(Limits.exportScale.upperBound, max(Limits.exportScale.lowerBound, wanted / longer))
            // No style draws plain, unlike the default style: the key says which.
            let style =
                item.stickerStyle.map {
                    "\($0.outlineWidth)|\($0.shadow)|\($0.effect.map(StickerEffects.drawingVersion) ?? "")"
                } ?? "plain"
            // The drawing generation too: a look drawn before an effect or the outline was
            // redrawn is drawn again.
            let look = [
                StickerEffects.drawingGeneration, reference, style, "\(item.frame.width)x\(item.frame.height)",
                "\(scale)",
            ].joined(separator: "|")
            let file = folder.appendingPathComponent("look-\(SHA256.hex(of: Data(look.utf8)).prefix(32)).png")
            if !FileManager.default.fileExists(atPath: file.path) {
                let partial = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).partial")
                do throws(RenderError) {
                    _ = try CollageRenderer().writeDrawnItem(item, photos: photos, scale: scale, to: partial)
                } catch {
                    try? FileManager.default.removeItem(at: partial)
                    throw error.failure
                }
                // Renamed whole: another sheet reading the same look never sees half a file.
                guard rename(partial.path, file.path) == 0 else {
                    try? FileManager.default.removeItem(at: partial)
                    throw Failure(.cannotWrite, "cannot write \(file.path)")
                }
            }
            prints.append(Print(itemID: item.id, stickerID: reference, file: file))
        }
        trim(folder, keeping: Set(prints.map(\.file.lastPathComponent)))
        return prints
    }

    /// The most drawings kept in a folder; the oldest others go first.
    public static let keptDrawings = 200

    /// Keeps `folder` within ``keptDrawings`` files, never removing those just drawn.
    private static func trim(_ folder: URL, keeping current: Set<String>) {
        let keys: [URLResourceKey] = [.contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys),
            files.count > keptDrawings
        else { return }
        let dated = files.filter { !current.contains($0.lastPathComponent) }.map { file in
            (file, (try? file.resourceValues(forKeys: Set(keys)).contentModificationDate) ?? .distantPast)
        }
        for (file, _) in dated.sorted(by: { $0.1 < $1.1 }).prefix(files.count - keptDrawings) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
