extension Double {
    /// A number as people write it in a flag, a query or a size: `12`, `-0.5`, `2.5e3`. Swift's
    /// own `Double(_:)` also reads hexadecimal (`0x12C` is 300), `nan` and `inf`; none of those is
    /// a number anyone means here, so each is refused rather than silently read.
    public init?(decimal text: some StringProtocol) {
        var scalars = text.unicodeScalars[...]
        if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
        let digits = scalars.prefix { ("0"..."9").contains($0) }
        scalars = scalars.dropFirst(digits.count)
        var fraction = 0
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            fraction = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(fraction)
        }
        guard digits.count + fraction > 0 else { return nil }
        if scalars.first == "e" || scalars.first == "E" {
            scalars = scalars.dropFirst()
            if scalars.first == "+" || scalars.first == "-" { scalars = scalars.dropFirst() }
            let exponent = scalars.prefix { ("0"..."9").contains($0) }.count
            guard exponent > 0 else { return nil }
            scalars = scalars.dropFirst(exponent)
        }
        guard scalars.isEmpty, let value = Double(String(text)), value.isFinite else { return nil }
        self = value
    }
}
