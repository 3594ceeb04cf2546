import Foundation

/// A verified licence to Collage Premium: who it was issued to, and when.
///
/// A licence is only ever made by ``init(key:trusting:)``, which checks the key's signature
/// against keys compiled into Collage, so holding one means the key is genuine. No network is
/// involved: the key carries everything.
public struct Licence: Hashable, Sendable {
    /// The product the licence unlocks (``LicenceKey/product``).
    public let product: String
    /// The seller's identifier for this licence, e.g. `CL-2026-0042`.
    public let id: String
    /// Who it was issued to: a name, an e-mail address, or both.
    public let licensee: String
    /// The day it was issued, `YYYY-MM-DD`.
    public let issued: String
    /// The id of the key that signed it.
    public let signingKeyID: String
    /// The key's text, exactly one line, as it is stored.
    public let key: String

    /// Reads and verifies a licence key. White space anywhere in `text` is ignored, so a key
    /// that an e-mail wrapped over two lines still reads.
    /// - Throws: ``LicenceError`` saying which part is wrong: not a key, damaged, cut short,
    ///   unsigned, signed by an unknown key, altered, forged, or for another product.
    public init(key text: String, trusting trustedKeys: [TrustedKey] = TrustedKey.builtIn) throws(LicenceError) {
        // A byte-order mark (Windows editors save one) is as invisible as white space.
        let key = String(
            text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) && $0 != "\u{FEFF}" }
                .map(Character.init))
        guard !key.isEmpty else { throw .empty }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let format = parts[0]
        guard format == LicenceKey.prefix else {
            let number = format.dropFirst("collage".count)
            if format.hasPrefix("collage"), !number.isEmpty, number.count <= 4,
                number.allSatisfy({ ("0"..."9").contains($0) })
            {
                throw .newerFormat(format)
            }
            throw .notALicenceKey(start: String(key.prefix(12)) + (key.count > 12 ? "…" : ""))
        }
        switch parts.count {
        case 5: break
        case 4 where LicenceKey.isHex(parts[3], bytes: LicenceKey.checkBytes): throw .missingSignature
        case ..<5: throw .cutShort(length: key.count)
        default: throw .malformed("it has \(parts.count) parts separated by dots, not 5")
        }
        let (keyID, payloadText, check, signatureText) = (parts[1], parts[2], parts[3], parts[4])
        guard LicenceKey.isHex(keyID, bytes: LicenceKey.keyIDBytes) else {
            throw .malformed("its key id \"\(keyID.prefix(16))\" is not \(2 * LicenceKey.keyIDBytes) hex digits")
        }
        guard let payload = LicenceKey.base64URLDecode(payloadText), !payload.isEmpty else {
            throw .malformed("its details are not base64url text")
        }
        guard LicenceKey.isHex(check, bytes: LicenceKey.checkBytes) else {
            throw .malformed("its checksum \"\(check.prefix(16))\" is not \(2 * LicenceKey.checkBytes) hex digits")
        }
        guard signatureText.count >= LicenceKey.signatureCharacters else {
            if signatureText.isEmpty { throw .missingSignature }
            throw .truncated(have: signatureText.count, need: LicenceKey.signatureCharacters)
        }
        guard signatureText.count == LicenceKey.signatureCharacters,
            let signature = LicenceKey.base64URLDecode(signatureText)
        else {
            throw .malformed("its signature is not \(LicenceKey.signatureCharacters) base64url characters")
        }
        guard let trusted = trustedKeys.first(where: { $0.id == keyID }) else { throw .unknownSigningKey(keyID) }
        guard LicenceKey.check(of: payload) == check else { throw .tampered }
        let signed = Array([format, keyID, payloadText, check].joined(separator: ".").utf8)
        guard Ed25519.verify(signature, of: signed, publicKey: trusted.publicKey) else { throw .badSignature }
        let details = try LicenceDetails(json: payload)
        guard details.product == LicenceKey.product else { throw .otherProduct(String(details.product.prefix(60))) }
        self.product = details.product
        self.id = details.id
        self.licensee = details.licensee
        self.issued = details.issued
        self.signingKeyID = keyID
        self.key = key
    }
}

/// What a licence says, before it is signed: the seller fills this in.
public struct LicenceDetails: Hashable, Sendable {
    /// The product it unlocks; ``LicenceKey/product`` for Collage Premium.
    public var product: String
    /// The seller's identifier for the licence.
    public var id: String
    /// Who it is for.
    public var licensee: String
    /// The day of issue, `YYYY-MM-DD`.
    public var issued: String

    /// Details, checked: an id of 1–64 printable characters, a licensee of 1–200, a real date.
    /// - Throws: ``LicenceError/malformed(_:)`` naming the field.
    public init(
        product: String = LicenceKey.product, id: String, licensee: String, issued: String
    ) throws(LicenceError) {
        func printable(_ text: String, _ field: String, limit: Int) throws(LicenceError) -> String {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.count <= limit,
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw .malformed("its \(field) must be 1 to \(limit) printable characters")
            }
            return trimmed
        }
        self.product = try printable(product, "product", limit: 64)
        self.id = try printable(id, "licence id", limit: 64)
        self.licensee = try printable(licensee, "licensee", limit: 200)
        guard LicenceKey.isDay(issued) else {
            throw .malformed("its date of issue \"\(issued.prefix(20))\" is not YYYY-MM-DD")
        }
        self.issued = issued
    }

    init(json: [UInt8]) throws(LicenceError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
            throw .malformed("its details are not a JSON object")
        }
        func field(_ name: String) throws(LicenceError) -> String {
            guard let value = object[name] as? String else { throw .malformed("its details have no \"\(name)\"") }
            return value
        }
        try self.init(
            product: field("product"), id: field("licence"), licensee: field("licensee"), issued: field("issued"))
    }

    /// The details as the compact JSON a key carries, members in a fixed order.
    var json: [UInt8] {
        let object: [String: String] = ["product": product, "licence": id, "licensee": licensee, "issued": issued]
        // Sorted keys make the same details give the same bytes on every machine.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Array(data)
    }
}

/// The text format of a licence key: `collage1.<key id>.<details>.<checksum>.<signature>`, one
/// line of about 250 characters. The details are base64url JSON; the checksum is the first four
/// bytes of their SHA-256 in hex, so an edited or damaged key is told apart from a forged one;
/// the signature is Ed25519 over everything before the last dot.
public enum LicenceKey {
    /// The first part of every key of this format.
    public static let prefix = "collage1"
    /// The product id Collage Premium licences carry.
    public static let product = "collage-premium"
    /// The product's name, as people read it.
    public static let productName = "Collage Premium"

    static let keyIDBytes = 4
    static let checkBytes = 4
    /// A 64-byte signature in unpadded base64url.
    static let signatureCharacters = 86

    /// The key id of a public key: the first four bytes of its SHA-256, in hex.
    static func keyID(of publicKey: [UInt8]) -> String { hex(Ed25519.sha256(publicKey).prefix(keyIDBytes)) }

    static func check(of payload: [UInt8]) -> String { hex(Ed25519.sha256(payload).prefix(checkBytes)) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func isHex(_ text: String, bytes: Int) -> Bool {
        // Scalars, not characters: "1" with a combining mark is one Character that sorts as a digit.
        text.unicodeScalars.count == 2 * bytes
            && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    static func isDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) })
        else { return false }
        return (2000...9999).contains(year) && (1...12).contains(month) && (1...31).contains(day)
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        // One spelling per key: a last character whose unused bits are set decodes to the same
        // bytes, and is refused, so a key has exactly one canonical form.
        guard let bytes = Data(base64Encoded: standard).map(Array.init), base64URLEncode(bytes) == text else {
            return nil
        }
        return bytes
    }
}
