import StickerPrint

/// `--offset` and `--dpi`, read the same way by `collage sticker --cut-line` and `collage sheet`.
enum CutLineArguments {
    /// The cut line's options from the command line: 2 mm and 300 dpi unless given.
    /// - Throws: ``StickerPrint/PrintError/invalidOption(_:)`` naming the flag and its range.
    static func options(_ arguments: ParsedArguments, whiteBacking: Bool) throws(PrintError) -> CutLineOptions {
        CutLineOptions(
            offset: try arguments.value("--offset").map { text throws(PrintError) in
                try PrintLength.millimetres(text, option: "--offset", range: 0...10)
            } ?? 2,
            dotsPerInch: try arguments.value("--dpi").map { text throws(PrintError) in
                try PrintLength.dotsPerInch(text)
            } ?? 300,
            whiteBacking: whiteBacking)
    }
}
