import CollageCore
import Foundation

/// A phone or tablet paired with this library over the home network (`collage serve --lan`).
public struct PairedDevice: Hashable, Sendable {
    /// Its id, shown by `collage devices` and named by `collage devices revoke`.
    public let id: String
    /// What it called itself when it paired, e.g. "iPhone (Safari)".
    public let name: String
    /// When it paired.
    public let pairedAt: Date
    /// When it last made a request (kept to the minute).
    public let lastSeen: Date
}

/// A device just paired, with the secret its cookie carries: shown once, never stored.
public struct NewDevice: Sendable {
    /// The device as stored.
    public let device: PairedDevice
    /// `id.secret`: what the device's cookie holds. Only its hash is in the library.
    public let credential: String
}

extension Library {
    /// The longest name a device keeps.
    public static let maximumDeviceNameLength = 80

    /// Pairs a new device: stores its name and its secret's hash, and returns the credential its
    /// cookie will carry. The credential cannot be read back later.
    public func pairDevice(named name: String) throws(LibraryError) -> NewDevice {
        let id = Secrets.randomHex(bytes: 8)
        let secret = Secrets.randomHex(bytes: 32)
        let shownName = Self.deviceName(name)
        let date = now().roundedToMilliseconds
        try database.write { connection throws(LibraryError) in
            _ = try connection.run(
                "INSERT INTO devices (id, name, secret_hash, paired_at, last_seen) VALUES (?, ?, ?, ?, ?)",
                [id, shownName, Self.secretHash(secret), date.timeIntervalSince1970, date.timeIntervalSince1970])
        }
        return NewDevice(
            device: PairedDevice(id: id, name: shownName, pairedAt: date, lastSeen: date), credential: "\(id).\(secret)"
        )
    }

    /// The paired device a cookie's credential belongs to, or `nil` when it belongs to none
    /// (revoked, made up, from another library, or damaged). The secret's hash is compared in
    /// constant time.
    public func device(withCredential credential: String) throws(LibraryError) -> PairedDevice? {
        let parts = credential.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count <= 64, parts[1].count <= 128 else { return nil }
        let id = String(parts[0])
        let presented = Self.secretHash(String(parts[1]))
        let found = try database.read { connection throws(LibraryError) in
            try connection.query(
                "SELECT id, name, secret_hash, paired_at, last_seen FROM devices WHERE id = ?", [id]
            ) { row throws(LibraryError) -> (PairedDevice, String)? in
                // A damaged row pairs nothing; it is not an error for the request that meets it.
                guard let name = try? row.text("name"), let hash = try? row.text("secret_hash"),
                    let paired = try? row.date("paired_at"), let seen = try? row.date("last_seen")
                else { return nil }
                return (PairedDevice(id: id, name: name, pairedAt: paired, lastSeen: seen), hash)
            }.first ?? nil
        }
        guard let (device, storedHash) = found, Secrets.equal(storedHash, presented) else { return nil }
        return device
    }

    /// Every paired device, most recently seen first.
    public func devices() throws(LibraryError) -> [PairedDevice] {
        try database.read { connection throws(LibraryError) in
            try connection.query("SELECT id, name, paired_at, last_seen FROM devices ORDER BY last_seen DESC, id") {
                row throws(LibraryError) in
                PairedDevice(
                    id: try row.text("id"), name: try row.text("name"), pairedAt: try row.date("paired_at"),
                    lastSeen: try row.date("last_seen"))
            }
        }
    }

    /// Notes that a device was just seen.
    public func deviceSeen(_ id: String) throws(LibraryError) {
        let date = now().roundedToMilliseconds
        try database.write { connection throws(LibraryError) in
            _ = try connection.run("UPDATE devices SET last_seen = ? WHERE id = ?", [date.timeIntervalSince1970, id])
        }
    }

    /// Revokes a device: its cookie opens nothing from now on, in this process and every other.
    /// - Throws: ``LibraryError/unknownDevice(_:)`` when no device has `id`.
    public func revokeDevice(_ id: String) throws(LibraryError) {
        let removed = try database.write { connection throws(LibraryError) in
            try connection.run("DELETE FROM devices WHERE id = ?", [id])
        }
        guard removed > 0 else { throw .unknownDevice(id) }
    }

    /// A device name as kept: printable, one line, at most ``maximumDeviceNameLength`` characters.
    static func deviceName(_ name: String) -> String {
        let printable = String(
            String.UnicodeScalarView(
                name.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }))
        let trimmed = printable.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "A device" : String(trimmed.prefix(maximumDeviceNameLength))
    }

    static func secretHash(_ secret: String) -> String { SHA256.hex(of: Data(secret.utf8)) }
}
