import CollageCore
import CollageKit
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where other devices on the home network reach the editor (`collage serve --lan`).
public struct HomeNetworkSettings: Sendable {
    /// The address listened on for them: `0.0.0.0` is every IPv4 address of this computer.
    public var listenAddress: String
    /// The address they are sent to: the link and the QR code name it.
    public var address: String
    /// The port (0 picks a free one).
    public var port: Int
    /// Whether it speaks TLS: `false` only with `--lan-insecure`.
    public var usesTLS: Bool

    /// Settings for the home network.
    public init(listenAddress: String = "0.0.0.0", address: String, port: Int = 8443, usesTLS: Bool = true) {
        self.listenAddress = listenAddress
        self.address = address
        self.port = port
        self.usesTLS = usesTLS
    }

    /// This computer's address on the home network, as a phone there would reach it: the first
    /// IPv4 address of an interface that is up and not loopback, private ranges first, and
    /// Wi-Fi and Ethernet before virtual machines' bridges, containers' and VPNs' tunnels.
    public static func localAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var found: [(address: String, isVirtual: Bool)] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(current.pointee.ifa_flags)
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == UInt16(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var internet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &internet, &text, socklen_t(text.count)) != nil else { continue }
            let name = current.pointee.ifa_name.map { String(cString: $0) } ?? ""
            let virtualPrefixes = [
                "virbr", "docker", "br-", "veth", "tun", "tap", "wg", "tailscale", "zt", "lxc", "vbox",
            ]
            found.append(
                (
                    String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                    virtualPrefixes.contains { name.hasPrefix($0) }
                ))
        }
        let isPrivate = { (address: String) in
            address.hasPrefix("192.168.") || address.hasPrefix("10.")
                || (16...31).contains(Int(address.split(separator: ".").dropFirst().first ?? "") ?? 0)
                    && address.hasPrefix("172.")
        }
        let ordered = found.filter { !$0.isVirtual } + found.filter(\.isVirtual)
        return (ordered.first { isPrivate($0.address) } ?? ordered.first)?.address
    }

    /// Whether `text` is an IPv4 or IPv6 address, written as numbers.
    public static func isAddress(_ text: String) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &bytes) == 1 || inet_pton(AF_INET6, text, &bytes) == 1
    }

    /// This computer's host name, as the certificate and the accepted Host headers name it.
    static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return nil }
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text.lowercased()
    }
}

/// Who may reach the editor from the home network, and how a device comes to: one-time pairing
/// codes, the rate limit on wrong ones, and the paired devices' cookies.
///
/// A code is 128 random bits, works once, for five minutes, and is compared in constant time.
/// A device that pairs gets a secret of its own in a cookie; the library keeps only its hash, so
/// a copy of the library opens no door, and revoking a device (here or with `collage devices
/// revoke`) closes its door at once.
public final class PairingDesk: Sendable {
    /// `https://192.168.1.20:8443`: where devices are sent.
    let origin: String
    /// Every `Host` value that names the home network side, e.g. `192.168.1.20:8443`.
    let hosts: Set<String>
    /// The certificate's SHA-256, when it speaks TLS.
    let fingerprint: String?
    /// Whether it speaks TLS (the cookie is then `Secure`).
    let usesTLS: Bool

    /// How long a code works: five minutes, unless a test says otherwise.
    let codeLifetime: Duration
    /// Wrong codes one address may try in a window before it must wait.
    static let wrongCodesAllowed = 10
    /// The window over which wrong codes are counted.
    static let wrongCodeWindow: Duration = .seconds(600)
    /// Codes waiting to be used at once: asking for more drops the oldest.
    static let openCodesLimit = 16
    /// The cookie that carries a device's credential.
    static let cookieName = "collage_device"
    /// A device's last-seen time is written at most this often.
    static let seenInterval: Duration = .seconds(60)

    /// Wrong codes from every address together in a window before everyone must wait: an
    /// attacker with many addresses gets no more tries than that.
    static let wrongCodesAllowedInAll = 200

    private struct OpenCode {
        let code: String
        let expires: ContinuousClock.Instant
    }

    /// The codes and the wrong tries, under one lock: a try is checked, compared and counted at
    /// once, so tries sent together cannot slip past the limit.
    private struct Counter {
        var codes: [OpenCode] = []
        /// Each address's wrong tries in the window, from its first.
        var wrongByAddress: [String: (count: Int, since: ContinuousClock.Instant)] = [:]
        /// When each wrong try in the window came, from every address.
        var wrongTimes: [ContinuousClock.Instant] = []

        /// Forgets what is older than the window, so the tables never outgrow it.
        mutating func forget(before start: ContinuousClock.Instant) {
            wrongByAddress = wrongByAddress.filter { $0.value.since >= start }
            wrongTimes.removeAll { $0 < start }
        }
    }

    private let counter = Mutex(Counter())
    private let lastWritten = Mutex<[String: ContinuousClock.Instant]>([:])

    /// The desk for the home network side described by `settings`, listening on `port`, with the
    /// TLS certificate whose fingerprint is `fingerprint` (`nil` without TLS). A code works for
    /// `codeLifetime`.
    public init(
        settings: HomeNetworkSettings, port: Int, fingerprint: String?, codeLifetime: Duration = .seconds(300)
    ) {
        self.codeLifetime = codeLifetime
        let scheme = settings.usesTLS ? "https" : "http"
        let shownAddress = settings.address.contains(":") ? "[\(settings.address)]" : settings.address
        // A browser leaves the scheme's own port out of Host and Origin.
        let defaultPort = port == (settings.usesTLS ? 443 : 80)
        origin = defaultPort ? "\(scheme)://\(shownAddress)" : "\(scheme)://\(shownAddress):\(port)"
        var names = [shownAddress.lowercased()]
        if let name = HomeNetworkSettings.hostName() {
            names.append(name)
            if !name.hasSuffix(".local") { names.append("\(name).local") }
        }
        self.hosts = Set(names.flatMap { name in defaultPort ? [name, "\(name):\(port)"] : ["\(name):\(port)"] })
        self.fingerprint = fingerprint
        self.usesTLS = settings.usesTLS
    }

    /// The origins the home network side's pages have.
    var origins: Set<String> { Set(hosts.map { "\(usesTLS ? "https" : "http")://\($0)" }) }

    /// A new one-time code, and the link that carries it (in the fragment, which a browser never
    /// sends to a server or puts in a Referer).
    func newCode() -> (code: String, link: String, expires: Date) {
        let code = Secrets.randomHex(bytes: 16)
        let now = ContinuousClock.now
        let lifetime = codeLifetime
        counter.withLock { counter in
            counter.codes.removeAll { $0.expires < now }
            if counter.codes.count >= Self.openCodesLimit {
                counter.codes.removeFirst(counter.codes.count - Self.openCodesLimit + 1)
            }
            counter.codes.append(OpenCode(code: code, expires: now + lifetime))
        }
        return (code, "\(origin)/pair#\(code)", Date().addingTimeInterval(codeLifetime.inSeconds))
    }

    /// Why a code was refused.
    enum Refusal: Error {
        /// Not a code that is open: wrong, used, or expired.
        case wrongCode
        /// Too many wrong codes from this address (or from everywhere) lately.
        case tooManyTries(retryAfterSeconds: Int)
    }

    /// Uses `code` up, when it is open; counts it against `address` when it is not.
    func redeem(_ code: String, from address: String) throws(Refusal) {
        let now = ContinuousClock.now
        let window = Self.wrongCodeWindow
        // Only a code's own shape is compared: 32 lowercase hex digits.
        let wellFormed =
            code.utf8.count == 32 && code.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
        let waitSeconds = { (since: ContinuousClock.Instant) in
            max(1, Int((window - (now - since)).components.seconds) + 1)
        }
        try counter.withLock { counter throws(Refusal) in
            counter.forget(before: now - window)
            if let entry = counter.wrongByAddress[address], entry.count >= Self.wrongCodesAllowed {
                throw .tooManyTries(retryAfterSeconds: waitSeconds(entry.since))
            }
            if counter.wrongTimes.count >= Self.wrongCodesAllowedInAll, let oldest = counter.wrongTimes.first {
                throw .tooManyTries(retryAfterSeconds: waitSeconds(oldest))
            }
            counter.codes.removeAll { $0.expires < now }
            // Every open code is compared, each in constant time, so the answer's timing says
            // nothing of how close a guess came, or of which code it was near.
            var matchedIndex: Int?
            if wellFormed {
                for (index, open) in counter.codes.enumerated() where Secrets.equal(open.code, code) {
                    matchedIndex = index
                }
            }
            guard let matchedIndex else {
                let entry = counter.wrongByAddress[address] ?? (0, now)
                counter.wrongByAddress[address] = (entry.count + 1, entry.since)
                counter.wrongTimes.append(now)
                throw .wrongCode
            }
            counter.codes.remove(at: matchedIndex)
        }
    }

    /// The paired device whose cookie `request` carries, if any. Its last-seen time is written
    /// at most once a minute.
    func device(for request: HTTPRequest, in workspace: Workspace) -> PairedDevice? {
        guard let credential = Self.cookie(Self.cookieName, in: request.headers["cookie"] ?? ""),
            let device = try? workspace.device(withCredential: credential)
        else { return nil }
        let now = ContinuousClock.now
        let due = lastWritten.withLock { written -> Bool in
            if let last = written[device.id], now - last < Self.seenInterval { return false }
            written[device.id] = now
            return true
        }
        if due { try? workspace.deviceSeen(device.id) }
        return device
    }

    /// The `Set-Cookie` value that hands a newly paired device its credential: script can't
    /// read it, other sites' requests don't carry it, and over TLS it never travels in clear.
    func cookie(for device: NewDevice) -> String {
        // 400 days: the longest a browser keeps a cookie.
        var cookie = "\(Self.cookieName)=\(device.credential); Path=/; Max-Age=34560000; HttpOnly; SameSite=Strict"
        if usesTLS { cookie += "; Secure" }
        return cookie
    }

    /// The value of the cookie `name` in a `Cookie` header.
    static func cookie(_ name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
            return parts[1].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Whether `address` is this computer's own (loopback).
    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// A device name from its browser's User-Agent: "iPhone (Safari)", "Android (Chrome)".
    static func deviceName(userAgent: String) -> String {
        let agent = userAgent.lowercased()
        // In order: an iPhone's agent names Mac OS too, and Chrome's and Edge's name Safari.
        let devices = [
            ("iphone", "iPhone"), ("ipad", "iPad"), ("android", "Android"), ("macintosh", "Mac"),
            ("windows", "Windows"), ("cros", "Chromebook"), ("linux", "Linux"),
        ]
        let browsers = [
            ("edg/", "Edge"), ("firefox/", "Firefox"), ("fxios/", "Firefox"), ("chrome/", "Chrome"),
            ("crios/", "Chrome"), ("safari/", "Safari"),
        ]
        let device = devices.first { agent.contains($0.0) }?.1 ?? "A device"
        return browsers.first { agent.contains($0.0) }.map { "\(device) (\($0.1))" } ?? device
    }
}
