import CSodium

/// Ed25519 signatures and SHA-256 from libsodium: the only code in Collage that touches it.
enum Ed25519 {
    /// Bytes in a public key, a seed and a signature.
    static let publicKeyBytes = Int(crypto_sign_PUBLICKEYBYTES)
    static let seedBytes = Int(crypto_sign_SEEDBYTES)
    static let signatureBytes = Int(crypto_sign_BYTES)

    /// `sodium_init` is safe to call from several threads and more than once; it is needed once.
    private static let ready: Bool = sodium_init() >= 0

    /// A fresh random seed, from the system's secure generator.
    static func randomSeed() -> [UInt8] {
        _ = ready
        var seed = [UInt8](repeating: 0, count: seedBytes)
        seed.withUnsafeMutableBytes { buffer in
            if let start = buffer.baseAddress { randombytes_buf(start, buffer.count) }
        }
        return seed
    }

    /// The public key that belongs to a seed.
    static func publicKey(seed: [UInt8]) -> [UInt8]? {
        withSecretKey(seed: seed) { publicKey, _ in publicKey }
    }

    /// The detached signature of `message` by the key made from `seed`.
    static func sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8]? {
        withSecretKey(seed: seed) { _, secretKey in
            var signature = [UInt8](repeating: 0, count: signatureBytes)
            var length: UInt64 = 0
            let status = crypto_sign_detached(&signature, &length, message, UInt64(message.count), secretKey)
            return status == 0 ? signature : nil
        }
    }

    /// Whether `signature` is `publicKey`'s signature of `message`.
    static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard ready, signature.count == signatureBytes, publicKey.count == publicKeyBytes else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        _ = ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }

    /// Expands a seed into the key pair and lends both out; the secret key is wiped afterwards,
    /// so it never outlives the call in memory.
    private static func withSecretKey<T>(seed: [UInt8], _ body: ([UInt8], [UInt8]) -> T?) -> T? {
        guard ready, seed.count == seedBytes else { return nil }
        var publicKey = [UInt8](repeating: 0, count: publicKeyBytes)
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        defer {
            secretKey.withUnsafeMutableBytes { buffer in
                if let start = buffer.baseAddress { sodium_memzero(start, buffer.count) }
            }
        }
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else { return nil }
        return body(publicKey, secretKey)
    }
}
