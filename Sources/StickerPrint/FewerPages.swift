import Foundation

extension SheetPacker {
    /// A way to print the same stickers on fewer pages: turned to fit, or at a smaller size.
    public struct FewerPages: Sendable, Equatable {
        /// The pages the sheet then takes.
        public let pages: Int
        /// The smaller size (millimetres) that saves a page, if that is the way.
        public let size: Double?
        /// Whether letting the stickers turn is the way.
        public let turnsToFit: Bool
        /// The offer in words, for a person.
        public let text: String
    }

    /// The most stickers a lone last page is worth trying to fold back for (each try cuts them again).
    public static let fewerPagesStickerLimit = 40

    /// The smallest size offered, in millimetres: the editor's smallest sticker.
    public static let minimumSuggestedSize = 20.0

    /// When the last page of `layout` would hold one sticker alone, a way to fit them all on fewer
    /// pages, found by packing again (never guessed): turned to fit first (the same cut stickers),
    /// then sizes in whole 5 mm steps down to three quarters of `size` (`cut` cuts the stickers
    /// at a size), never below ``minimumSuggestedSize``. `nil` when nothing saves a page, or the last page is not lonely.
    public static func fewerPages(
        than layout: SheetLayout, size: Double, names: [String], options: SheetOptions,
        cut: (Double) throws(PrintError) -> [CutSticker]
    ) throws(PrintError) -> FewerPages? {
        let last = layout.pageCount - 1
        guard layout.pageCount > 1, layout.placements.filter({ $0.page == last }).count == 1,
            names.count <= fewerPagesStickerLimit
        else { return nil }
        let pages = layout.pageCount
        func fit(_ count: Int) -> String { "all \(names.count) fit on \(count) page\(count == 1 ? "" : "s")" }
        if !options.turnsToFit {
            var turning = options
            turning.turnsToFit = true
            let turned = try pack(layout.stickers, names: names, options: turning)
            if turned.pageCount < pages {
                return FewerPages(
                    pages: turned.pageCount, size: nil, turnsToFit: true,
                    text: "The last page holds one sticker alone; turned to fit, \(fit(turned.pageCount)).")
            }
        }
        // Whole 5 mm steps below the size (as the editor's slider moves), down to three quarters.
        var smaller = ((size - 0.001) / 5).rounded(.down) * 5
        while smaller >= max(minimumSuggestedSize, size * 0.75) {
            defer { smaller -= 5 }
            guard let packed = try? pack(try cut(smaller), names: names, options: options), packed.pageCount < pages
            else { continue }
            return FewerPages(
                pages: packed.pageCount, size: smaller, turnsToFit: false,
                text: "The last page holds one sticker alone; at \(Int(smaller)) mm \(fit(packed.pageCount)).")
        }
        return nil
    }
}
