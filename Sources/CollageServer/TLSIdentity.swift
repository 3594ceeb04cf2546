import CSecureLAN
import CollageCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The key and self-signed certificate the editor speaks TLS with on the home network: made on
/// first use and kept with the library (one file, readable by its owner only), so a phone that
/// accepted it once sees the same fingerprint after every restart.
public struct TLSIdentity: Sendable {
    /// The private key, PEM.
    let keyPEM: String
    /// The certificate, PEM.
    let certificatePEM: String

    /// The certificate's SHA-256 fingerprint as browsers show it: 32 bytes in upper-case hex,
    /// colon-separated.
    public let fingerprint: String

    /// The fingerprint in four lines of eight bytes, as the terminal, the editor and the
    /// pairing page all show it, so they can be compared line by line.
    public static func lines(of fingerprint: String) -> [String] {
        let bytes = fingerprint.split(separator: ":")
        return stride(from: 0, to: bytes.count, by: 8).map {
            bytes[$0..<min($0 + 8, bytes.count)].joined(separator: ":")
        }
    }

    /// The file it is kept in, inside a library folder.
    public static let fileName = "lan-certificate.pem"
    /// How long a new certificate is valid. Browsers and phones refuse server certificates valid
    /// for longer than 398 days, even ones a person accepted by hand.
    static let validDays = 397

    init(keyPEM: String, certificatePEM: String) throws(ServerError) {
        guard let fingerprint = Self.fingerprint(ofPEM: certificatePEM) else {
            throw .certificate("the certificate is not PEM")
        }
        self.keyPEM = keyPEM
        self.certificatePEM = certificatePEM
        self.fingerprint = fingerprint
    }

    /// The identity kept in `folder`, or a new one (naming `addresses` and `names`) when there is
    /// none, or the one there is damaged, expires within a week, or does not match its key.
    public static func loadOrCreate(
        in folder: URL, addresses: [String], names: [String]
    ) throws(ServerError)
        -> TLSIdentity
    {
        let file = folder.appendingPathComponent(fileName)
        if let text = try? String(contentsOf: file, encoding: .utf8), let kept = split(text),
            collage_certificate_usable(kept.certificate, kept.key, 7 * 24 * 3600) == 1
        {
            return try TLSIdentity(keyPEM: kept.key, certificatePEM: kept.certificate)
        }
        let made = try make(addresses: addresses, names: names)
        try save(made, to: file)
        return made
    }

    /// A new key and certificate.
    static func make(addresses: [String], names: [String]) throws(ServerError) -> TLSIdentity {
        var certificate: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        var error = [CChar](repeating: 0, count: 256)
        let commonName = "Collage on \(names.first ?? addresses.first ?? "this computer")"
        let result = withCStrings(addresses) { addressPointers in
            withCStrings(names) { namePointers in
                collage_make_certificate(
                    commonName, addressPointers, Int32(addresses.count), namePointers, Int32(names.count),
                    Int32(validDays), &certificate, &key, &error, error.count)
            }
        }
        defer {
            free(certificate)
            free(key)
        }
        guard result == 0, let certificate, let key else {
            throw .certificate(
                "GnuTLS could not make it (\(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))))"
            )
        }
        return try TLSIdentity(keyPEM: String(cString: key), certificatePEM: String(cString: certificate))
    }

    /// Writes key and certificate as one file, owner-only, replacing the old one whole.
    private static func save(_ identity: TLSIdentity, to file: URL) throws(ServerError) {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(fileName).\(UUID().uuidString)")
        let text = identity.keyPEM + identity.certificatePEM
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .certificate("cannot write \(file.path) (\(String(cString: strerror(errno))))")
        }
        let written = text.utf8CString.withUnsafeBufferPointer { bytes in
            Glibc.write(descriptor, bytes.baseAddress, bytes.count - 1)
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == text.utf8.count, synced, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw .certificate("cannot write \(file.path) (\(String(cString: strerror(errno))))")
        }
    }

    /// The key and certificate blocks of a kept file.
    private static func split(_ text: String) -> (key: String, certificate: String)? {
        guard let start = text.range(of: "-----BEGIN CERTIFICATE-----") else { return nil }
        let key = String(text[..<start.lowerBound])
        let certificate = String(text[start.lowerBound...])
        guard key.contains("PRIVATE KEY-----") else { return nil }
        return (key, certificate)
    }

    /// The SHA-256 of the first certificate's DER bytes, or `nil` when the text holds none.
    static func fingerprint(ofPEM pem: String) -> String? {
        guard let start = pem.range(of: "-----BEGIN CERTIFICATE-----"),
            let end = pem.range(of: "-----END CERTIFICATE-----", range: start.upperBound..<pem.endIndex)
        else { return nil }
        let base64 = pem[start.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: String(base64)) else { return nil }
        let hex = SHA256.hex(of: der).uppercased()
        return stride(from: 0, to: hex.count, by: 2).map { offset in
            let from = hex.index(hex.startIndex, offsetBy: offset)
            return String(hex[from..<hex.index(from, offsetBy: 2)])
        }.joined(separator: ":")
    }
}

/// Calls `body` with `texts` as an array of C strings that live for the call.
private func withCStrings<Result>(
    _ texts: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> Result
) -> Result {
    let copies = texts.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
