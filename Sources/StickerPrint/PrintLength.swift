import CollageCore
import Foundation

/// Lengths on paper, read from the command line as `2mm`, `0.5cm` or `1in`, kept in millimetres.
public enum PrintLength {
    /// Millimetres in an inch.
    public static let millimetresPerInch = 25.4

    /// Reads `text` (a number and a unit: mm, cm or in) as millimetres within `range`.
    /// - Throws: ``PrintError/invalidOption(_:)`` naming `option`, the text and the range.
    public static func millimetres(
        _ text: String, option: String, range: ClosedRange<Double>
    ) throws(PrintError) -> Double {
        let units: [(suffix: String, scale: Double)] = [("mm", 1), ("cm", 10), ("in", millimetresPerInch)]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let unit = units.first(where: { trimmed.hasSuffix($0.suffix) }),
            let number = Double(decimal: trimmed.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)),
            number.isFinite
        else {
            throw .invalidOption("\(option): expected a length such as 2mm, 0.5cm or 1in, got \"\(text)\"")
        }
        let value = number * unit.scale
        guard range.contains(value) else {
            throw .invalidOption(
                "\(option): \(text) is out of range; expected \(format(range.lowerBound)) to \(format(range.upperBound)) mm"
            )
        }
        return value
    }

    /// Reads a resolution in dots per inch, 72 to 1,200.
    public static func dotsPerInch(_ text: String) throws(PrintError) -> Double {
        guard let number = Double(decimal: text.lowercased().replacingOccurrences(of: "dpi", with: "")),
            number.isFinite,
            Limits.printDotsPerInch.contains(number)
        else {
            throw .invalidOption("--dpi: expected a resolution from 72 to 1200 dots per inch, got \"\(text)\"")
        }
        return number
    }

    /// A page size from `a4`, `a5`, `a3`, `letter`, `legal` or `WxHmm` (also cm and in), in
    /// millimetres, portrait as given.
    public static func page(_ text: String) throws(PrintError) -> (width: Double, height: Double) {
        let named: [String: (Double, Double)] = [
            "a3": (297, 420), "a4": (210, 297), "a5": (148, 210), "letter": (215.9, 279.4), "legal": (215.9, 355.6),
        ]
        let lowered = text.lowercased()
        if let size = named[lowered] { return size }
        let parts = lowered.split(separator: "x", maxSplits: 1).map(String.init)
        let unit = ["mm", "cm", "in"].first { lowered.hasSuffix($0) }
        guard parts.count == 2, let unit else {
            throw .invalidOption(
                "--page: expected a4, a5, a3, letter, legal or a size such as 100x150mm, got \"\(text)\"")
        }
        let width = parts[0].hasSuffix(unit) ? parts[0] : parts[0] + unit
        let range = Limits.paperSide
        return (
            try millimetres(width, option: "--page width", range: range),
            try millimetres(parts[1], option: "--page height", range: range)
        )
    }

    /// A length for messages: whole millimetres as they are, others to a tenth.
    public static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
