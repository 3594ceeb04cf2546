/// What fills a collage's canvas behind its items: a colour, a gradient, a pattern, a paper or a
/// photo.
///
/// Written as text in the CSS manner, so a document stays readable and `collage make
/// --background` takes the same words: `#fdf6ec`, `transparent`,
/// `linear-gradient(135deg, #ff9a9e 0%, #fad0c4 100%)`, `radial-gradient(#ffffff 0%, #b8c6db 100%)`,
/// `dots(#264d3b, #f6f1e7, 24)` (ink, paper, the pattern's size in points), `paper(kraft)` and
/// `photo(REF, 20)` (a photo covering the canvas, blurred by 20 points).
/// Gradients mean what CSS means by them, so the editor can show one at once with CSS.
public enum Background: Hashable, Sendable, CustomStringConvertible {
    /// One colour; ``Color/transparent`` makes a cut-out collage.
    case color(Color)
    /// Colours along a line at `angle` degrees (0 points up, 90 right, as in CSS), across the whole canvas.
    case linearGradient(angle: Double, stops: [GradientStop])
    /// Colours from the centre out to an ellipse through the corners (CSS's default radial gradient).
    case radialGradient(stops: [GradientStop])
    /// A repeating pattern of two colours.
    case pattern(BackgroundPattern)
    /// A paper made procedurally: its fibres and grain are the same at every export size.
    case paper(PaperTexture)
    /// A photo covering the canvas (cropped around its centre, or its subject), blurred by `blur`
    /// points: the soft backdrop behind photos that keep their own shape. `reference` names the
    /// photo as an item's does (a library id, or a file relative to the document).
    case photo(reference: String, blur: Double)

    /// Plain white, the default.
    public static let white = Background.color(.white)
    /// Nothing: a cut-out collage.
    public static let transparent = Background.color(.transparent)

    /// The fewest and most colours a gradient takes.
    public static let gradientStops: ClosedRange<Int> = 2...4

    /// The canonical text, which ``init(parsing:)`` reads back as the same background.
    public var description: String {
        switch self {
        case .color(let color): color.hexString
        case .linearGradient(let angle, let stops):
            "linear-gradient(\(Self.number(angle))deg, \(stops.map(\.description).joined(separator: ", ")))"
        case .radialGradient(let stops): "radial-gradient(\(stops.map(\.description).joined(separator: ", ")))"
        case .pattern(let pattern):
            "\(pattern.kind.rawValue)(\(pattern.ink.hexString), \(pattern.paper.hexString), \(Self.number(pattern.scale)))"
        case .paper(let texture): "paper(\(texture.rawValue))"
        case .photo(let reference, let blur): "photo(\(reference), \(Self.number(blur)))"
        }
    }

    /// The photo a photo background shows, as an item's content names it; `nil` for the others.
    public var photoContent: ItemContent? {
        if case .photo(let reference, _) = self { .photo(reference) } else { nil }
    }

    /// What keeps a background made in code from being drawn (the text form is checked as it is
    /// read), as a sentence; `nil` when it can be drawn.
    public var problem: String? {
        switch self {
        case .color: return nil
        case .linearGradient(let angle, let stops):
            guard angle.isFinite else { return "a gradient's angle must be a finite number of degrees" }
            return Self.problem(in: stops)
        case .radialGradient(let stops): return Self.problem(in: stops)
        case .pattern(let pattern):
            guard Limits.patternScale.contains(pattern.scale) else {
                return "a pattern's size must be a number of points \(Limits.describe(Limits.patternScale)), "
                    + "got \(JSONValue.format(pattern.scale))"
            }
            return nil
        case .paper: return nil
        case .photo(let reference, let blur):
            if let problem = Self.problem(inReference: reference) { return problem }
            guard blur.isFinite, Limits.backgroundBlur.contains(blur) else {
                return
                    "a photo background's blur must be a number of points \(Limits.describe(Limits.backgroundBlur)), "
                    + "got \(JSONValue.format(blur))"
            }
            return nil
        }
    }

    /// What is wrong with a photo background's reference; `nil` when it can name a photo.
    private static func problem(inReference reference: String) -> String? {
        guard !reference.isEmpty, reference.count <= 1_000 else {
            return "a photo background names its photo in 1 to 1,000 characters"
        }
        guard !reference.contains(where: { $0.isNewline || $0 == ")" || $0 == "," }) else {
            return "a photo background's photo may not contain a comma, a \")\" or a line break"
        }
        return nil
    }

    private static func problem(in stops: [GradientStop]) -> String? {
        guard gradientStops.contains(stops.count) else {
            return
                "a gradient takes \(gradientStops.lowerBound) to \(gradientStops.upperBound) colours, got \(stops.count)"
        }
        guard stops.allSatisfy({ (0...1).contains($0.position) }),
            zip(stops, stops.dropFirst()).allSatisfy({ $0.position <= $1.position })
        else { return "a gradient's colours must sit from 0% to 100%, each at or after the one before" }
        return nil
    }

    /// The colour, for a plain background.
    public var solidColor: Color? {
        if case .color(let color) = self { color } else { nil }
    }

    /// Whether any of the background lets what is behind the collage show through.
    public var hasTransparency: Bool { colors.contains { $0.alpha < 255 } }

    /// The colours it is made of, for a swatch or a stand-in while its pixels are drawn.
    public var colors: [Color] {
        switch self {
        case .color(let color): [color]
        case .linearGradient(_, let stops), .radialGradient(let stops): stops.map(\.color)
        case .pattern(let pattern): [pattern.paper, pattern.ink]
        case .paper(let texture): [texture.color]
        // Until the photo's pixels come, a neutral grey.
        case .photo: [Color(red: 200, green: 200, blue: 200)]
        }
    }

    /// Reads the text form (see the type's description).
    /// - Throws: ``BackgroundError`` saying what was expected and what was found.
    public init(parsing text: String) throws(BackgroundError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 1_200 else { throw BackgroundError("a background is at most 1,200 characters") }
        guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")") else {
            guard let color = Color(parsing: trimmed) else {
                throw BackgroundError(
                    "expected a colour such as \"#ffffff\" or \"transparent\", a gradient such as "
                        + "\"linear-gradient(135deg, #ff9a9e, #fad0c4)\", a pattern such as \"dots(#264d3b, #f6f1e7, 24)\" "
                        + "or a paper such as \"paper(kraft)\", got \"\(trimmed.prefix(60))\"")
            }
            self = .color(color)
            return
        }
        let name = trimmed[..<open].trimmingCharacters(in: .whitespaces).lowercased()
        let arguments = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]
            .split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        switch name {
        case "linear-gradient":
            var angle = 180.0
            var stopTexts = arguments
            if let first = arguments.first, first.lowercased().hasSuffix("deg") {
                guard let degrees = Double(first.dropLast(3)), degrees.isFinite, abs(degrees) <= 100_000 else {
                    throw BackgroundError(
                        "a gradient's angle must be a number of degrees such as 135deg, got \"\(first)\"")
                }
                // Kept to a thousandth, as written, so the text reads back as the same background.
                angle = (degrees.truncatingRemainder(dividingBy: 360) * 1000).rounded() / 1000
                if angle < 0 { angle += 360 }
                if angle >= 360 { angle -= 360 }
                stopTexts.removeFirst()
            }
            self = .linearGradient(angle: angle, stops: try Self.stops(stopTexts))
        case "radial-gradient":
            self = .radialGradient(stops: try Self.stops(arguments))
        case "photo":
            guard (1...2).contains(arguments.count), let reference = arguments.first, !reference.isEmpty else {
                throw BackgroundError("photo takes the photo and a blur in points, e.g. \"photo(IMG_0042.jpg, 20)\"")
            }
            var blur = 0.0
            if arguments.count == 2 {
                guard let value = Double(arguments[1]), Limits.backgroundBlur.contains(value) else {
                    throw BackgroundError(
                        "a photo background's blur must be a number of points \(Limits.describe(Limits.backgroundBlur)), "
                            + "got \"\(arguments[1].prefix(40))\"")
                }
                blur = (value * 1000).rounded() / 1000
            }
            if let problem = Self.problem(inReference: reference) { throw BackgroundError(problem) }
            self = .photo(reference: reference, blur: blur)
        case "paper":
            let word = arguments.first?.lowercased() ?? ""
            guard arguments.count == 1,
                let texture = PaperTexture(rawValue: word == "watercolor" ? "watercolour" : word)
            else {
                throw BackgroundError(
                    "expected a paper: \(PaperTexture.allCases.map(\.rawValue).joined(separator: ", ")), "
                        + "got \"\(arguments.joined(separator: ", ").prefix(40))\"")
            }
            self = .paper(texture)
        default:
            guard let kind = BackgroundPattern.Kind(rawValue: name) else {
                throw BackgroundError(
                    "unknown background \"\(name.prefix(40))\"; expected linear-gradient, radial-gradient, "
                        + "\(BackgroundPattern.Kind.allCases.map(\.rawValue).joined(separator: ", ")), paper or photo")
            }
            guard (2...3).contains(arguments.count) else {
                throw BackgroundError(
                    "\(name) takes an ink colour, a paper colour and a size in points, e.g. "
                        + "\"\(name)(#264d3b, #f6f1e7, 24)\"")
            }
            let ink = try Self.color(arguments[0])
            let paper = try Self.color(arguments[1])
            var scale = BackgroundPattern.defaultScale
            if arguments.count == 3 {
                guard let value = Double(arguments[2]), Limits.patternScale.contains(value) else {
                    throw BackgroundError(
                        "a pattern's size must be a number of points \(Limits.describe(Limits.patternScale)), "
                            + "got \"\(arguments[2].prefix(40))\"")
                }
                scale = (value * 1000).rounded() / 1000
            }
            self = .pattern(BackgroundPattern(kind: kind, ink: ink, paper: paper, scale: scale))
        }
    }

    private static func color(_ text: String) throws(BackgroundError) -> Color {
        guard let color = Color(parsing: text) else {
            throw BackgroundError("expected a colour such as \"#f6f1e7\", got \"\(text.prefix(40))\"")
        }
        return color
    }

    /// Colour stops as CSS places them: a stop without a position sits evenly between its
    /// neighbours (the first at 0 %, the last at 100 %), and none sits before the one before it.
    private static func stops(_ texts: [String]) throws(BackgroundError) -> [GradientStop] {
        guard gradientStops.contains(texts.count) else {
            throw BackgroundError(
                "a gradient takes \(gradientStops.lowerBound) to \(gradientStops.upperBound) colours, got \(texts.count)"
            )
        }
        var colors: [Color] = []
        var positions: [Double?] = []
        for text in texts {
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard (1...2).contains(parts.count) else {
                throw BackgroundError(
                    "expected a colour and an optional position such as \"#fad0c4 80%\", got \"\(text)\"")
            }
            colors.append(try color(String(parts[0])))
            if parts.count == 2 {
                guard parts[1].hasSuffix("%"), let percent = Double(parts[1].dropLast()), (0...100).contains(percent)
                else {
                    throw BackgroundError(
                        "a colour's position must be a percentage from 0% to 100%, got \"\(parts[1])\"")
                }
                positions.append(percent / 100)
            } else {
                positions.append(nil)
            }
        }
        if positions[0] == nil { positions[0] = 0 }
        if positions[positions.count - 1] == nil { positions[positions.count - 1] = 1 }
        var placed: [Double] = []
        var index = 0
        while index < positions.count {
            if let position = positions[index] {
                placed.append(max(position, placed.last ?? 0))
                index += 1
                continue
            }
            // A run of stops without positions shares the space up to the next one with a position.
            var next = index
            while positions[next] == nil { next += 1 }
            let start = placed.last ?? 0
            let end = max(positions[next] ?? 1, start)
            let count = Double(next - index + 1)
            for step in 1...(next - index) { placed.append(start + (end - start) * Double(step) / count) }
            index = next
        }
        // Kept to a thousandth of a percent, as written, so the text reads back as the same stops.
        return zip(colors, placed).map { GradientStop(color: $0, position: ($1 * 100_000).rounded() / 100_000) }
    }

    private static func number(_ value: Double) -> String { JSONValue.format((value * 1000).rounded() / 1000) }
}

/// A colour at a place along a gradient.
public struct GradientStop: Hashable, Sendable, CustomStringConvertible {
    /// The colour.
    public var color: Color
    /// Where it is, from 0 (the start) to 1 (the end).
    public var position: Double

    /// A stop.
    public init(color: Color, position: Double) {
        self.color = color
        self.position = position
    }

    /// `#rrggbb 40%`.
    public var description: String { "\(color.hexString) \(JSONValue.format((position * 100_000).rounded() / 1000))%" }
}

/// A repeating two-colour pattern, sized in canvas points so it looks the same at any export size.
public struct BackgroundPattern: Hashable, Sendable {
    /// The patterns there are.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        /// Round dots on a square grid.
        case dots
        /// Diagonal stripes, ink and paper of equal width.
        case stripes
        /// Thin lines, as on graph paper.
        case grid
        /// A chequerboard.
        case checks
    }

    /// Which pattern.
    public var kind: Kind
    /// The colour of the dots, stripes, lines or dark squares.
    public var ink: Color
    /// The colour between them.
    public var paper: Color
    /// How far the pattern repeats, in points.
    public var scale: Double

    /// The size a pattern has when none is given, in points.
    public static let defaultScale: Double = 24

    /// A pattern.
    public init(kind: Kind, ink: Color, paper: Color, scale: Double = defaultScale) {
        self.kind = kind
        self.ink = ink
        self.paper = paper
        self.scale = scale
    }
}

/// Papers made procedurally (no image files): their colour, fibres and grain.
public enum PaperTexture: String, CaseIterable, Hashable, Sendable {
    /// Brown packing paper with long fibres.
    case kraft
    /// Woven cloth: fine threads both ways.
    case linen
    /// Cold-pressed watercolour paper: soft, uneven grain.
    case watercolour

    /// The paper's colour, before its grain.
    public var color: Color {
        switch self {
        case .kraft: Color(red: 196, green: 160, blue: 116)
        case .linen: Color(red: 236, green: 228, blue: 212)
        case .watercolour: Color(red: 250, green: 248, blue: 242)
        }
    }
}

/// Why a background's text could not be read.
public struct BackgroundError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was expected and what was found.
    public let description: String

    init(_ description: String) { self.description = description }
}
