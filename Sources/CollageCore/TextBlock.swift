/// The words of a text item and how they look: a caption or a title on the collage.
///
/// The item's frame width wraps the text; its height follows the text (the service layer fits it
/// after each change, since measuring needs the renderer's fonts). Sizes are in canvas points, so
/// a caption keeps its place and proportion at any output size.
public struct TextBlock: Hashable, Sendable {
    /// The text; `\n` breaks a line.
    public var text: String
    /// A family from ``TextFont/catalog``.
    public var font: String
    /// From 100 (thin) to 900 (black); 400 is regular, 700 bold.
    public var weight: Int
    /// Whether the text slants.
    public var italic: Bool
    /// The font size, in canvas points.
    public var size: Double
    /// The colour of the letters.
    public var color: Color
    /// How lines line up with each other and with the frame.
    public var alignment: TextAlignment
    /// The distance between lines as a multiple of the font's own (1 is the font's default).
    public var lineSpacing: Double
    /// Extra space between letters, as a fraction of the font size (0.1 adds a tenth of an em).
    public var letterSpacing: Double
    /// A rounded box behind the text, if any.
    public var background: TextBackground?
    /// A line around each letter, if any.
    public var outline: TextOutline?
    /// A soft shadow below the letters, if any.
    public var shadow: DropShadow?

    /// A text block; by default dark Inter at 36 points, centred.
    public init(
        text: String, font: String = TextFont.defaultFamily, weight: Int = 400, italic: Bool = false,
        size: Double = 36, color: Color = Color(red: 0x1f, green: 0x1f, blue: 0x1f),
        alignment: TextAlignment = .center, lineSpacing: Double = 1, letterSpacing: Double = 0,
        background: TextBackground? = nil, outline: TextOutline? = nil, shadow: DropShadow? = nil
    ) {
        self.text = text
        self.font = font
        self.weight = weight
        self.italic = italic
        self.size = size
        self.color = color
        self.alignment = alignment
        self.lineSpacing = lineSpacing
        self.letterSpacing = letterSpacing
        self.background = background
        self.outline = outline
        self.shadow = shadow
    }

    /// The space between the frame's edges and the text: the background's padding, or none.
    public var inset: Double { background?.padding ?? 0 }

    /// Every problem with this block, each as `(field, message)`; empty when it renders.
    public var problems: [(field: String, message: String)] {
        var found: [(String, String)] = []
        if let problem = Self.problem(inText: text) { found.append(("text", problem)) }
        if TextFont.named(font) == nil {
            found.append(("font", "no font named \"\(font.prefix(60))\"; expected one of \(TextFont.familyList)"))
        }
        if !Limits.textWeight.contains(weight) {
            found.append(("weight", "expected a whole number \(Limits.describe(Limits.textWeight)), got \(weight)"))
        }
        func check(_ field: String, _ value: Double, _ range: ClosedRange<Double>, _ unit: String) {
            guard !(value.isFinite && range.contains(value)) else { return }
            found.append((field, "expected \(unit) \(Limits.describe(range)), got \(JSONValue.format(value))"))
        }
        check("size", size, Limits.textSize, "a size in points")
        check("lineSpacing", lineSpacing, Limits.textLineSpacing, "a multiple")
        check("letterSpacing", letterSpacing, Limits.textLetterSpacing, "a fraction of the size")
        if let background {
            check("background.opacity", background.opacity, 0...1, "an opacity")
            check("background.cornerRadius", background.cornerRadius, Limits.styleLength, "a radius in points")
            check("background.padding", background.padding, Limits.textPadding, "a padding in points")
        }
        if let outline { check("outline.width", outline.width, Limits.textOutline, "a width in points") }
        if let shadow {
            check("shadow.blur", shadow.blur, Limits.textShadowBlur, "a blur in points")
            check("shadow.x", shadow.offset.x, Limits.textShadowOffset, "an offset in points")
            check("shadow.y", shadow.offset.y, Limits.textShadowOffset, "an offset in points")
        }
        return found
    }

    /// A generous estimate of the height, in points, the words need in a frame `width` points wide,
    /// made without the fonts (every character taken as an em wide): what bounds a text's
    /// pixels before any are drawn.
    public func roughHeight(inWidth width: Double) -> Double {
        let lineWidth = max(1, width - 2 * inset)
        let em = size * max(0.5, 1 + letterSpacing)
        var lines = 0.0
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // Code points, not characters: a character of many marks is drawn taller, not narrower.
            lines += max(1, (Double(paragraph.unicodeScalars.count) * em / lineWidth).rounded(.up))
        }
        return lines * size * lineSpacing * 1.3 + 2 * inset
    }

    /// Why the words cannot be laid out in a frame `width` points wide on a canvas `canvasHeight`
    /// points tall, or `nil` when they can: they may be at most ``Limits/canvasMultiple`` canvases tall.
    public func problem(inWidth width: Double, canvasHeight: Double) -> String? {
        let height = roughHeight(inWidth: width)
        guard height > canvasHeight * Limits.canvasMultiple else { return nil }
        return "the text would be about \(JSONValue.format(height.rounded())) points tall in a frame "
            + "\(JSONValue.format(width.rounded())) points wide, more than \(JSONValue.format(Limits.canvasMultiple)) "
            + "times the canvas; make it shorter or smaller, or its frame wider"
    }

    /// Why `text` cannot be a text item's text, or `nil` when it can: it must have something to
    /// show, stay within ``Limits/maximumTextLength``, and hold no control characters but line
    /// breaks and tabs (they have no glyphs, and the font machinery refuses some of them).
    public static func problem(inText text: String) -> String? {
        let visible = text.unicodeScalars.contains {
            !$0.properties.isWhitespace && !$0.properties.isDefaultIgnorableCodePoint
        }
        if !visible {
            return "expected some text, got \(text.isEmpty ? "none" : "only spaces or invisible characters")"
        }
        let count = text.count
        guard count <= Limits.maximumTextLength else {
            return "expected at most \(Limits.maximumTextLength) characters, got \(count)"
        }
        // Characters are counted as a reader sees them; what is drawn grows with code points, and
        // one character can hold thousands of them (combining marks, joined emoji).
        let scalars = text.unicodeScalars.count
        guard scalars <= Limits.maximumTextScalars else {
            return "expected at most \(Limits.maximumTextScalars) code points, got \(scalars)"
        }
        for (offset, character) in text.enumerated()
        where character.unicodeScalars.count > Limits.maximumScalarsPerCharacter {
            return "character \(offset + 1) joins \(character.unicodeScalars.count) code points; at most "
                + "\(Limits.maximumScalarsPerCharacter) may make one character"
        }
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            if isControl, scalar != "\n", scalar != "\t" {
                let hex = String(value, radix: 16, uppercase: true)
                return "control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) at "
                    + "position \(offset + 1); only line breaks and tabs may be in a text"
            }
        }
        return nil
    }
}

/// How the lines of a text line up.
public enum TextAlignment: String, CaseIterable, Hashable, Sendable {
    /// Flush with the frame's left edge.
    case left
    /// Centred in the frame.
    case center
    /// Flush with the frame's right edge.
    case right
}

/// A rounded box behind a text, the "pill" of a label.
public struct TextBackground: Hashable, Sendable {
    /// The box's colour.
    public var color: Color
    /// 0 (invisible) to 1 (solid).
    public var opacity: Double
    /// Radius of the corners, in points; half the height or more makes a pill (the default, 500, always does).
    public var cornerRadius: Double
    /// Space between the box's edges and the text, in points.
    public var padding: Double

    /// A background; by default a white, nearly solid pill.
    public init(color: Color = .white, opacity: Double = 0.9, cornerRadius: Double = 500, padding: Double = 12) {
        self.color = color
        self.opacity = opacity
        self.cornerRadius = cornerRadius
        self.padding = padding
    }
}

/// A line drawn around every letter.
public struct TextOutline: Hashable, Sendable {
    /// The line's colour.
    public var color: Color
    /// The line's width outside the letters, in points.
    public var width: Double

    /// An outline; by default 2 points of black.
    public init(color: Color = .black, width: Double = 2) {
        self.color = color
        self.width = width
    }
}

/// A soft shadow cast by a text's letters or a photo's shape.
public struct DropShadow: Hashable, Sendable {
    /// The shadow's colour, with its opacity in the alpha.
    public var color: Color
    /// How soft the shadow is, in points (the blur's standard deviation).
    public var blur: Double
    /// How far the shadow falls from the letters, in points.
    public var offset: Point

    /// What is wrong with the shadow's numbers, naming the field after `prefix`; `nil` when all
    /// are in range.
    public func problem(prefix: String) -> String? {
        for (field, value, range, unit) in [
            ("blur", blur, Limits.textShadowBlur, "a blur in points"),
            ("x", offset.x, Limits.textShadowOffset, "an offset in points"),
            ("y", offset.y, Limits.textShadowOffset, "an offset in points"),
        ] where !(value.isFinite && range.contains(value)) {
            return "\(prefix)\(field) must be \(unit) \(Limits.describe(range)), got \(JSONValue.format(value))"
        }
        return nil
    }

    /// A shadow; by default a soft half-black shadow falling 2 points down.
    public init(
        color: Color = Color(red: 0, green: 0, blue: 0, alpha: 128), blur: Double = 4,
        offset: Point = Point(x: 0, y: 2)
    ) {
        self.color = color
        self.blur = blur
        self.offset = offset
    }
}

/// A font text items may use: a family from Debian's open-font packages, installed by the
/// bootstrap, so every machine that renders a collage draws it with the same files.
public struct TextFont: Hashable, Sendable {
    /// The family name, as documents and fontconfig say it.
    public let family: String
    /// What it is like, for menus: "sans serif", "script" and so on.
    public let kind: String
    /// The Debian package with its files.
    public let package: String
    /// Its licence.
    public let licence: String
    /// The CSS generic family closest to it, for the editor while the renderer's pixels are on their way.
    public let cssFallback: String

    /// The family a new text item uses.
    public static let defaultFamily = "Inter"

    /// The curated fonts, in the order menus show them.
    public static let catalog: [TextFont] = [
        TextFont(
            family: "Inter", kind: "sans serif", package: "fonts-inter", licence: "SIL Open Font License 1.1",
            cssFallback: "sans-serif"),
        TextFont(
            family: "Lato", kind: "sans serif", package: "fonts-lato", licence: "SIL Open Font License 1.1",
            cssFallback: "sans-serif"),
        TextFont(
            family: "Comfortaa", kind: "rounded", package: "fonts-comfortaa", licence: "SIL Open Font License 1.1",
            cssFallback: "sans-serif"),
        TextFont(
            family: "EB Garamond", kind: "serif", package: "fonts-ebgaramond", licence: "SIL Open Font License 1.1",
            cssFallback: "serif"),
        TextFont(
            family: "Roboto Slab", kind: "slab serif", package: "fonts-roboto-slab", licence: "Apache License 2.0",
            cssFallback: "serif"),
        TextFont(
            family: "Lobster Two", kind: "display script", package: "fonts-lobster",
            licence: "SIL Open Font License 1.1", cssFallback: "cursive"),
        TextFont(
            family: "Dancing Script", kind: "handwriting", package: "fonts-dancingscript",
            licence: "SIL Open Font License 1.1", cssFallback: "cursive"),
        TextFont(
            family: "DejaVu Sans", kind: "sans serif, wide coverage", package: "fonts-dejavu-core",
            licence: "Bitstream Vera Fonts licence (free, with changes renamed)", cssFallback: "sans-serif"),
    ]

    /// The font of family `name` (exactly, or ignoring case), if curated.
    public static func named(_ name: String) -> TextFont? {
        catalog.first { $0.family == name } ?? catalog.first { $0.family.lowercased() == name.lowercased() }
    }

    /// The families, quoted and comma-separated, for messages.
    public static var familyList: String { catalog.map { "\"\($0.family)\"" }.joined(separator: ", ") }
}
