import Foundation

/// An ICC colour profile, read only as far as deciding whether it is sRGB.
///
/// Converting a photo through its embedded profile costs a colour transform on every pixel; for
/// the many files whose profile is sRGB under another name ("sRGB IEC61966-2.1", "sRGB built-in",
/// a camera maker's copy) the transform changes nothing, so the renderer skips it. The test is on
/// what the profile does, not what it is called: sRGB's primaries and sRGB's tone curves.
///
/// Every read is bounds-checked: a profile comes from a file anyone could have made.
package struct ICCProfile: Sendable {
    /// The profile as stored.
    package let bytes: [UInt8]

    /// A profile from its bytes; `nil` when they are too short to hold a header and tag count,
    /// or shorter than the size the header declares (a profile cut short).
    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= Self.tagTableOffset + 4 else { return nil }
        let declared = Int(Slice(bytes: bytes[...]).uint32(at: 0))
        guard declared >= Self.tagTableOffset + 4, declared <= bytes.count else { return nil }
        self.bytes = bytes
    }

    /// The profile embedded in an image file; `nil` when there is none or the file cannot be read.
    package init?(embeddedIn path: String) {
        guard let profile = try? VipsImage.openHeader(path).profile else { return nil }
        self = profile
    }

    private static let tagTableOffset = 128
    private static let tagEntrySize = 12

    /// The colour space of the data (`RGB `, `CMYK`, `GRAY`).
    package var colorSpace: String { signature(at: 16) }

    /// The profile connection space (`XYZ ` or `Lab `).
    package var connectionSpace: String { signature(at: 20) }

    /// Whether the profile describes sRGB: an RGB matrix/TRC profile with sRGB's primaries (as
    /// adapted to the D50 connection space) and tone curves within half a level of 8-bit output.
    package var isSRGB: Bool {
        guard colorSpace == "RGB ", connectionSpace == "XYZ " else { return false }
        let primaries: [(name: String, xyz: [Double])] = [
            ("rXYZ", [0.4361, 0.2225, 0.0139]), ("gXYZ", [0.3851, 0.7169, 0.0971]), ("bXYZ", [0.1431, 0.0606, 0.7141]),
        ]
        for (name, expected) in primaries {
            guard let xyz = tag(name), xyz.count >= 20, xyz.signature(at: 0) == "XYZ " else { return false }
            for axis in 0..<3 where abs(xyz.s15Fixed16(at: 8 + 4 * axis) - expected[axis]) > 0.004 {
                return false
            }
        }
        for name in ["rTRC", "gTRC", "bTRC"] {
            guard let curve = tag(name) else { return false }
            for x in stride(from: 0.05, to: 1, by: 0.15) {
                guard let y = curve.toneCurve(at: x), abs(y - Self.srgbDecode(x)) <= 0.002 else { return false }
            }
        }
        return true
    }

    /// sRGB's own tone curve, from encoded to linear light.
    static func srgbDecode(_ x: Double) -> Double {
        x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
    }

    // MARK: - Reading

    /// The bytes of one tag, found in the tag table; `nil` when absent or pointing outside the profile.
    func tag(_ signature: String) -> Slice? {
        let count = Int(uint32(at: Self.tagTableOffset))
        guard count <= (bytes.count - Self.tagTableOffset - 4) / Self.tagEntrySize else { return nil }
        for index in 0..<count {
            let entry = Self.tagTableOffset + 4 + Self.tagEntrySize * index
            guard self.signature(at: entry) == signature else { continue }
            let offset = Int(uint32(at: entry + 4))
            let size = Int(uint32(at: entry + 8))
            guard offset <= bytes.count, size <= bytes.count - offset else { return nil }
            return Slice(bytes: bytes[offset..<offset + size])
        }
        return nil
    }

    private func signature(at offset: Int) -> String { Slice(bytes: bytes[...]).signature(at: offset) }
    private func uint32(at offset: Int) -> UInt32 { Slice(bytes: bytes[...]).uint32(at: offset) }

    /// A run of a profile's bytes, read big-endian as ICC stores everything; reads past the end give 0.
    struct Slice {
        let bytes: ArraySlice<UInt8>

        var count: Int { bytes.count }

        func byte(at offset: Int) -> UInt8 {
            let index = bytes.startIndex + offset
            return offset >= 0 && index < bytes.endIndex ? bytes[index] : 0
        }

        func uint16(at offset: Int) -> UInt16 { UInt16(byte(at: offset)) << 8 | UInt16(byte(at: offset + 1)) }

        func uint32(at offset: Int) -> UInt32 {
            UInt32(uint16(at: offset)) << 16 | UInt32(uint16(at: offset + 2))
        }

        func s15Fixed16(at offset: Int) -> Double { Double(Int32(bitPattern: uint32(at: offset))) / 65536 }

        func signature(at offset: Int) -> String {
            String(decoding: (0..<4).map { byte(at: offset + $0) }, as: UTF8.self)
        }

        /// A `curv` or `para` tone curve at `x` in 0…1; `nil` when the tag is neither or is cut short.
        func toneCurve(at x: Double) -> Double? {
            guard count >= 12 else { return nil }
            switch signature(at: 0) {
            case "curv":
                let points = Int(uint32(at: 8))
                guard points <= (count - 12) / 2 else { return nil }
                if points == 0 { return x }
                if points == 1 { return pow(x, Double(uint16(at: 12)) / 256) }
                let position = x * Double(points - 1)
                let index = min(Int(position), points - 2)
                let low = Double(uint16(at: 12 + 2 * index)) / 65535
                let high = Double(uint16(at: 14 + 2 * index)) / 65535
                return low + (high - low) * (position - Double(index))
            case "para":
                let parameterCounts = [1, 3, 4, 5, 7]
                let type = Int(uint16(at: 8))
                guard type < parameterCounts.count, count >= 12 + 4 * parameterCounts[type] else { return nil }
                var p = [Double](repeating: 0, count: 7)
                for index in 0..<parameterCounts[type] { p[index] = s15Fixed16(at: 12 + 4 * index) }
                let (g, a, b, c, d, e, f) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6])
                switch type {
                case 0: return pow(x, g)
                case 1: return a != 0 && x >= -b / a ? pow(a * x + b, g) : 0
                case 2: return a != 0 && x >= -b / a ? pow(a * x + b, g) + c : c
                case 3: return x >= d ? pow(a * x + b, g) : c * x
                default: return x >= d ? pow(a * x + b, g) + e : c * x + f
                }
            default:
                return nil
            }
        }
    }
}
