/// Why a licence key was refused, or the stored licence could not be read or written. Each case
/// has its own message, so a person can tell a cut-off paste from a key for something else.
public enum LicenceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing was given (or only white space).
    case empty
    /// The text is not a Collage licence key at all.
    case notALicenceKey(start: String)
    /// A key in a format this Collage does not read yet.
    case newerFormat(String)
    /// The key's parts are there but one of them is damaged.
    case malformed(String)
    /// The key ends before its signature.
    case missingSignature
    /// The key was cut short before its signature began: it has `length` characters.
    case cutShort(length: Int)
    /// The key was cut short: its signature has fewer characters than it must.
    case truncated(have: Int, need: Int)
    /// Signed with a key this build of Collage does not trust.
    case unknownSigningKey(String)
    /// The licence's details no longer match the checksum they were issued with.
    case tampered
    /// The signature does not verify: it was not made by the key the licence names.
    case badSignature
    /// A genuine licence, for another product.
    case otherProduct(String)
    /// The licence file could not be written or removed.
    case cannotWrite(path: String, reason: String)
    /// The licence file exists but could not be read.
    case unreadable(path: String, reason: String)

    /// `text` from a pasted key, safe to print: control characters (escape sequences that would
    /// drive a terminal), and the marks that reorder or hide text, are written as `\u{…}`.
    static func shown(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let hidden =
                value < 0x20 || (0x7F...0x9F).contains(value) || (0x200B...0x200F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
            shown += hidden ? "\\u{\(String(value, radix: 16, uppercase: true))}" : String(scalar)
        }
        return shown
    }

    /// A sentence saying what is wrong and what to do.
    public var description: String {
        switch self {
        case .empty:
            "no licence key was given: paste the whole key, one line that starts with \"\(LicenceKey.prefix).\""
        case .notALicenceKey(let start):
            "this is not a Collage licence key: a key starts with \"\(LicenceKey.prefix).\", "
                + "this starts with \"\(Self.shown(start))\""
        case .newerFormat(let format):
            "this licence key is in a newer format (\(Self.shown(format))) than this Collage reads; update Collage and add it again"
        case .malformed(let reason):
            "the licence key is damaged (\(Self.shown(reason))); copy it again, exactly as you received it"
        case .missingSignature:
            "the licence key has no signature: its last part is missing; copy the whole key, to the end of the line"
        case .cutShort(let length):
            "the licence key is cut short: it ends after \(length) characters, before its signature; "
                + "copy the whole key, to the end of the line"
        case .truncated(let have, let need):
            "the licence key is cut short: its signature has \(have) of its \(need) characters; "
                + "copy the whole key, to the end of the line"
        case .unknownSigningKey(let id):
            "the licence key was signed with a key this Collage does not trust (key id \(Self.shown(id))); "
                + "it was not issued for this version of Collage"
        case .tampered:
            "the licence's details were changed after it was issued (they no longer match their checksum); "
                + "use the key exactly as you received it"
        case .badSignature:
            "the licence key's signature is not valid: it was not issued by Collage's seller"
        case .otherProduct(let product):
            "this licence is for another product (\"\(Self.shown(product))\"), not \(LicenceKey.productName)"
        case .cannotWrite(let path, let reason):
            "cannot write the licence file \(path): \(reason)"
        case .unreadable(let path, let reason):
            "cannot read the licence file \(path): \(reason)"
        }
    }
}
