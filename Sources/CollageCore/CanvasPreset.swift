import Foundation

/// The ratio of a canvas's width to its height, e.g. 4:5.
public struct AspectRatio: Hashable, Sendable, CustomStringConvertible {
    /// The width term.
    public let width: Double
    /// The height term.
    public let height: Double

    /// A ratio of `width`:`height`; both terms must lie in ``Limits/aspectTerm`` and their ratio
    /// in ``Limits/aspectRatio``.
    public init?(width: Double, height: Double) {
        guard Limits.aspectTerm.contains(width), Limits.aspectTerm.contains(height),
            Limits.aspectRatio.contains(width / height)
        else { return nil }
        self.width = width
        self.height = height
    }

    /// Parses `4:5`, `4x5` or `1.91:1`.
    public init?(parsing text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "x" || $0 == "X" })
        guard parts.count == 2, let width = Double(decimal: parts[0]), let height = Double(decimal: parts[1]) else {
            return nil
        }
        self.init(width: width, height: height)
    }

    /// Width divided by height.
    public var value: Double { width / height }

    /// 1:1.
    public static let square = AspectRatio(checkedWidth: 1, height: 1)

    private init(checkedWidth width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// `4:5`.
    public var description: String { "\(JSONValue.format(width)):\(JSONValue.format(height))" }

    /// The canvas in points with this ratio whose longer side is `longSide`.
    public func canvasSize(longSide: Double = CanvasPreset.defaultLongSide) -> Size {
        value >= 1
            ? Size(width: longSide, height: (longSide / value).rounded())
            : Size(width: (longSide * value).rounded(), height: longSide)
    }
}

extension AspectRatio {
    /// `4:5`, `16x9`, or the id of a canvas preset such as `a4` or `letter`: what people type
    /// wherever a canvas shape is asked for.
    public init?(parsingOrPreset text: String) {
        guard let aspect = CanvasPreset.named(text)?.aspect ?? AspectRatio(parsing: text) else { return nil }
        self = aspect
    }
}

/// A physical print size and the resolution to render it at, e.g. 6 × 4 in at 300 DPI.
public struct PrintSize: Hashable, Sendable, CustomStringConvertible {
    /// Width in inches.
    public let widthInches: Double
    /// Height in inches.
    public let heightInches: Double
    /// Dots (pixels) per inch.
    public let dpi: Double

    /// The largest DPI accepted; past it a print only grows the file.
    public static let maximumDPI: Double = Limits.dpi.upperBound

    /// A print size: each side in ``Limits/printInches``, the DPI in ``Limits/dpi``, and the
    /// pixels it makes within the output limits (``Limits/allowsOutput(width:height:)``).
    public init?(widthInches: Double, heightInches: Double, dpi: Double) {
        guard Limits.printInches.contains(widthInches), Limits.printInches.contains(heightInches),
            Limits.dpi.contains(dpi),
            Limits.allowsOutput(width: (widthInches * dpi).rounded(), height: (heightInches * dpi).rounded())
        else { return nil }
        self.widthInches = widthInches
        self.heightInches = heightInches
        self.dpi = dpi
    }

    /// Parses `6x4in@300`, `150x100mm@300`, `15x10cm`, or a preset name such as `a4@300` or
    /// `letter`. The DPI defaults to 300.
    public init?(parsing text: String) {
        guard let asked = Self.measure(text) else { return nil }
        self.init(widthInches: asked.width, heightInches: asked.height, dpi: asked.dpi)
    }

    /// Why `text`, a print size as ``init(parsing:)`` reads it, is past the limits: a side or a
    /// DPI out of range, or more pixels than an image may have, with the DPI at which that paper
    /// fits. `nil` when `text` is no print size at all, or is within the limits.
    public static func limitProblem(parsing text: String) -> String? {
        guard let asked = measure(text), PrintSize(parsing: text) == nil else { return nil }
        let quoted = "\"\(text.prefix(40))\""
        guard Limits.printInches.contains(asked.width), Limits.printInches.contains(asked.height) else {
            return "\(quoted): each side of a print must be \(Limits.describe(Limits.printInches)) inches"
        }
        guard Limits.dpi.contains(asked.dpi) else {
            return "\(quoted): the DPI must be \(Limits.describe(Limits.dpi))"
        }
        let width = (asked.width * asked.dpi).rounded()
        let height = (asked.height * asked.dpi).rounded()
        let pixels = "\(quoted) is \(Int(width)) × \(Int(height)) pixels"
        let limit =
            if max(width, height) > Double(Limits.maximumOutputSide) {
                "\(pixels), past the limit of \(Limits.maximumOutputSide) pixels a side"
            } else {
                "\(pixels) (\(JSONValue.format((width * height / 100_000).rounded(.up) / 10)) megapixels), past the "
                    + "limit of \(Limits.maximumOutputPixels / 1_000_000) megapixels"
            }
        // The finest whole DPI whose pixels, rounded as a print's are, are within both limits:
        // from just past the exact bound down, as rounding may let one more DPI in.
        var fitting =
            min(
                (Double(Limits.maximumOutputPixels) / (asked.width * asked.height)).squareRoot(),
                Double(Limits.maximumOutputSide) / max(asked.width, asked.height)
            ).rounded(.down) + 1
        while fitting > Limits.dpi.lowerBound,
            !Limits.allowsOutput(width: (asked.width * fitting).rounded(), height: (asked.height * fitting).rounded())
        {
            fitting -= 1
        }
        guard
            Limits.allowsOutput(width: (asked.width * fitting).rounded(), height: (asked.height * fitting).rounded())
        else { return "\(limit), even at \(JSONValue.format(Limits.dpi.lowerBound)) DPI" }
        return "\(limit); that paper fits at \(Int(fitting)) DPI or less"
    }

    /// The inches and DPI `text` asks for, before any limit is applied.
    private static func measure(_ text: String) -> (width: Double, height: Double, dpi: Double)? {
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        let pieces = lowered.split(separator: "@", omittingEmptySubsequences: false)
        guard pieces.count <= 2 else { return nil }
        var dpi = 300.0
        if pieces.count == 2 {
            guard let parsed = Double(decimal: pieces[1].replacingOccurrences(of: "dpi", with: "")) else { return nil }
            dpi = parsed
        }
        let sizeText = String(pieces[0])
        if let preset = CanvasPreset.all.first(where: { $0.id == sizeText }), let inches = preset.printInches {
            return (inches.width, inches.height, dpi)
        }
        let units: [(suffix: String, perInch: Double)] = [("in", 1), ("mm", 25.4), ("cm", 2.54)]
        guard let unit = units.first(where: { sizeText.hasSuffix($0.suffix) }) else { return nil }
        let terms = sizeText.dropLast(unit.suffix.count).split(separator: "x")
        guard terms.count == 2, let width = Double(decimal: terms[0]), let height = Double(decimal: terms[1]) else {
            return nil
        }
        return (width / unit.perInch, height / unit.perInch, dpi)
    }

    /// The output size in whole pixels.
    public var pixelSize: (width: Int, height: Int) {
        (Int((widthInches * dpi).rounded()), Int((heightInches * dpi).rounded()))
    }

    /// The shape of the print.
    public var aspectRatio: AspectRatio? { AspectRatio(width: widthInches, height: heightInches) }

    /// How a canvas of another shape prints on this paper, in words, or `nil` when the shapes
    /// match (within 1 %). The renderer prints a collage whole, as large as the paper allows, so
    /// a square collage on 5 × 7 in paper is a 5 × 5 in image: this says so, and what would fill
    /// the paper instead.
    public func fitting(_ canvas: Size) -> String? {
        guard canvas.width > 0, canvas.height > 0, canvas.width.isFinite, canvas.height.isFinite else { return nil }
        let scale = min(widthInches / canvas.width, heightInches / canvas.height)
        let (width, height) = (canvas.width * scale, canvas.height * scale)
        guard abs(width - widthInches) > widthInches / 100 || abs(height - heightInches) > heightInches / 100 else {
            return nil
        }
        func inches(_ value: Double) -> String { JSONValue.format((value * 100).rounded() / 100) }
        let blank = abs(widthInches - width) > abs(heightInches - height) ? widthInches - width : heightInches - height
        // As the renderer counts them: the paper's whole pixels, the collage scaled into them.
        let paper = pixelSize
        let perPoint = min(Double(paper.width) / canvas.width, Double(paper.height) / canvas.height)
        let pixels = "\(Int((canvas.width * perPoint).rounded())) × \(Int((canvas.height * perPoint).rounded())) px"
        var note =
            "the collage is not the paper's shape: it prints whole at \(inches(width)) × \(inches(height)) in "
            + "(\(pixels)), leaving \(inches(blank)) in of the \(inches(widthInches)) × \(inches(heightInches)) in "
            + "paper blank"
        let turned = min(heightInches / canvas.width, widthInches / canvas.height)
        if turned > scale * 1.01 {
            note += "; the paper turned (\(inches(heightInches))x\(inches(widthInches))in) holds it larger"
        } else {
            note += "; to fill it, give the collage the paper's shape"
        }
        return note
    }

    /// `6x4in@300`.
    public var description: String {
        "\(JSONValue.format(widthInches))x\(JSONValue.format(heightInches))in@\(JSONValue.format(dpi))"
    }
}

/// A canvas shape people pick from: a screen aspect or a print size.
public struct CanvasPreset: Hashable, Sendable, Identifiable {
    /// Identifier used on the command line and in the API, e.g. `4:5` or `a4`.
    public let id: String
    /// A name to show people.
    public let name: String
    /// The shape, portrait or landscape as listed.
    public let aspect: AspectRatio
    /// The physical size for print presets; `nil` for screen aspects.
    public let printInches: Size?

    /// The long side, in points, of canvases made from a preset: 3× export gives 3,600 px.
    public static let defaultLongSide: Double = 1200

    /// The canvas size in points for this preset.
    public var canvasSize: Size { aspect.canvasSize() }

    /// The pixel size of a print of this preset at `dpi`, or `nil` for screen aspects.
    public func printSize(dpi: Double) -> PrintSize? {
        printInches.flatMap { PrintSize(widthInches: $0.width, heightInches: $0.height, dpi: dpi) }
    }

    /// A4 in inches (210 × 297 mm); A3 is two of it side by side.
    private static let a4 = Size(width: 210 / 25.4, height: 297 / 25.4)

    /// The screen aspects and print sizes a picker offers.
    public static let all: [CanvasPreset] =
        [
            ("1:1", "Square"), ("4:5", "Portrait"), ("5:4", "Landscape"), ("9:16", "Story"),
            ("16:9", "Widescreen"), ("3:2", "Photo Landscape"), ("2:3", "Photo Portrait"),
        ].compactMap { id, name in
            AspectRatio(parsing: id).map { CanvasPreset(id: id, name: name, aspect: $0, printInches: nil) }
        }
        + [
            ("4x6in", "4 × 6 in print", 4.0, 6.0), ("5x7in", "5 × 7 in print", 5, 7),
            ("8x10in", "8 × 10 in print", 8, 10), ("8x8in", "Square 8 × 8 in print", 8, 8),
            ("a4", "A4", a4.width, a4.height), ("a3", "A3", a4.height, 2 * a4.width),
            ("letter", "US Letter", 8.5, 11),
        ].compactMap { id, name, width, height in
            AspectRatio(width: width, height: height).map {
                CanvasPreset(id: id, name: name, aspect: $0, printInches: Size(width: width, height: height))
            }
        }

    /// The preset with `id`, if any.
    public static func named(_ id: String) -> CanvasPreset? { all.first { $0.id == id.lowercased() } }
}
