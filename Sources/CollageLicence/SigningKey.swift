import Foundation

/// A public key whose signatures Collage accepts on licence keys.
public struct TrustedKey: Hashable, Sendable {
    /// The key id licence keys name it by.
    public let id: String
    let publicKey: [UInt8]

    /// A trusted key from its 32-byte public key in base64url; `nil` when that is not one.
    public init?(publicKey text: String) {
        guard let bytes = LicenceKey.base64URLDecode(text), bytes.count == Ed25519.publicKeyBytes else { return nil }
        publicKey = bytes
        id = LicenceKey.keyID(of: bytes)
    }
}

/// The seller's private key, which signs licences. It lives in a file the seller keeps outside
/// any repository; Collage itself never holds one.
public struct SigningKey: Sendable {
    private let seed: [UInt8]
    /// The public half, in base64url: what ``TrustedKey/builtIn`` lists.
    public let publicKey: String
    /// The key id licences signed with it carry.
    public let id: String

    private static let fileTag = "collage-signing-key-1"

    private init?(seed: [UInt8]) {
        guard let publicKey = Ed25519.publicKey(seed: seed) else { return nil }
        self.seed = seed
        self.publicKey = LicenceKey.base64URLEncode(publicKey)
        self.id = LicenceKey.keyID(of: publicKey)
    }

    /// A new random key.
    public static func generate() -> SigningKey? { SigningKey(seed: Ed25519.randomSeed()) }

    /// A key read back from the text of its file (see ``fileContents``); `nil` when the text is
    /// not a signing key file, or its key id does not match its key.
    public init?(fileContents text: String) {
        let line = text.split(whereSeparator: \.isNewline).first { !$0.hasPrefix("#") && !$0.isEmpty }
        let fields = line?.split(separator: " ").map(String.init) ?? []
        guard fields.count == 3, fields[0] == Self.fileTag, let seed = LicenceKey.base64URLDecode(fields[2]),
            let key = SigningKey(seed: seed), key.id == fields[1]
        else { return nil }
        self = key
    }

    /// The text of the key's file: a comment, then one line with the key id and the seed.
    public var fileContents: String {
        """
        # Collage licence signing key \(id). Keep this file secret and out of any repository:
        # whoever holds it can issue licences that every Collage trusting \(id) accepts.
        \(Self.fileTag) \(id) \(LicenceKey.base64URLEncode(seed))

        """
    }

    /// Signs a licence and returns its key, the one line a customer pastes; `nil` only when
    /// libsodium cannot sign (it failed to start).
    public func issue(_ details: LicenceDetails) -> String? {
        let payload = details.json
        let signed = [LicenceKey.prefix, id, LicenceKey.base64URLEncode(payload), LicenceKey.check(of: payload)]
            .joined(separator: ".")
        guard let signature = Ed25519.sign(Array(signed.utf8), seed: seed) else { return nil }
        return signed + "." + LicenceKey.base64URLEncode(signature)
    }
}
