/// An sRGB colour with straight (not premultiplied) alpha, 8 bits a channel.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) – 255 (opaque).
    public var alpha: UInt8

    /// A colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white, the default collage background.
    public static let white = Color(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = Color(red: 0, green: 0, blue: 0)
    /// Fully transparent: the background of a PNG or WebP with alpha.
    public static let transparent = Color(red: 0, green: 0, blue: 0, alpha: 0)

    /// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` (the `#` is optional) or the word `transparent`.
    /// Returns `nil` for anything else.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "transparent" {
            self = .transparent
            return
        }
        var hex = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        guard hex.count == 6 || hex.count == 8, let value = UInt32(hex, radix: 16) else { return nil }
        let rgba = hex.count == 6 ? value << 8 | 0xFF : value
        self.init(
            red: UInt8(rgba >> 24), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF),
            alpha: UInt8(rgba & 0xFF))
    }

    /// `#rrggbb` when opaque, `#rrggbbaa` otherwise: the form documents store.
    public var hexString: String {
        let channels = alpha == 255 ? [red, green, blue] : [red, green, blue, alpha]
        return "#" + channels.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Same as ``hexString``.
    public var description: String { hexString }

    /// Whether any of the colour shows through at all.
    public var isTransparent: Bool { alpha == 0 }
}
