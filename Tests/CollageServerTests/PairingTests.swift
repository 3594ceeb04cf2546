import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageTestSupport
import Foundation
import Synchronization
import Testing

@testable import CollageServer

/// The editor on the home network (`collage serve --lan`): pairing codes, device cookies, who may
/// do what, and the TLS certificate, through the app's own request handling. A request's client
/// address is set as the server sets it from the socket; the browser tests do the same over a
/// real network namespace and TLS.
@Suite("Pairing phones on the home network")
struct PairingTests {
    /// An app serving a fresh library to this computer and, through a pairing desk, to devices.
    final class HomeNetworkApp: Sendable {
        let folder: TemporaryFolder
        let library: Library
        let app: CollageApp
        let desk: PairingDesk
        static let lanHost = "192.168.1.20:8443"
        static let phoneAddress = "192.168.1.50"

        init(codeLifetime: Duration = .seconds(300)) throws {
            folder = try TemporaryFolder("collage-pairing")
            library = try Library(root: folder.file("library"))
            desk = PairingDesk(
                settings: HomeNetworkSettings(address: "192.168.1.20", port: 8443), port: 8443,
                fingerprint: "AB:CD", codeLifetime: codeLifetime)
            app = CollageApp(
                workspace: Workspace(
                    library: library, model: nil, licences: LicenceStore(folder: folder.file("config"))),
                allowedHosts: ["127.0.0.1:8080"], homeNetwork: desk)
        }

        deinit { library.close() }

        /// One request as the server hands it over: from `address`, with `cookie` if given.
        func send(
            _ method: String, _ path: String, from address: String? = phoneAddress, cookie: String? = nil,
            body: String? = nil, headers extra: [String: String] = [:]
        ) -> TestResponse {
            var headers = ["host": address == nil || address == "127.0.0.1" ? "127.0.0.1:8080" : Self.lanHost]
            if let cookie { headers["cookie"] = "theme=dark; \(PairingDesk.cookieName)=\(cookie)" }
            if let body {
                headers["content-type"] = "application/json"
                headers["content-length"] = String(body.utf8.count)
            }
            for (name, value) in extra { headers[name.lowercased()] = value }
            var request = HTTPRequest(method: method, path: path, headers: headers, body: Data((body ?? "").utf8))
            request.clientAddress = address
            request.isSecure = address != nil && address != "127.0.0.1"
            request.arrivedOnHomeNetwork = request.isSecure
            let response = app.admit(request) ?? app.handle(request)
            var names: [String: String] = [:]
            for (name, value) in response.headers { names[name.lowercased()] = value }
            return TestResponse(status: response.status.code, headers: names, body: response.body)
        }

        /// Pairs a phone with a fresh code; the credential its cookie holds.
        func pairPhone(from address: String = phoneAddress) throws -> String {
            let code = desk.newCode().code
            let answer = send(
                "POST", "/api/pair", from: address, body: #"{"code": "\#(code)"}"#,
                headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Safari/604.1"])
            try #require(answer.status == 200, "\(answer.text)")
            let cookie = try #require(answer.headers["set-cookie"])
            return try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last)
                .description
        }
    }

    @Test func aCodeWorksOnceAndItsDeviceGetsAStrictHttpOnlySecureCookieKeptOnlyAsAHash() throws {
        let home = try HomeNetworkApp()
        let code = home.desk.newCode()
        #expect(code.code.count == 32 && code.code.allSatisfy(\.isHexDigit), "128 random bits")
        #expect(code.link == "https://192.168.1.20:8443/pair#\(code.code)")
        let paired = home.send("POST", "/api/pair", body: #"{"code": "\#(code.code)"}"#)
        #expect(paired.status == 200)
        let cookie = try #require(paired.headers["set-cookie"])
        for attribute in ["HttpOnly", "SameSite=Strict", "Secure", "Path=/"] {
            #expect(cookie.contains(attribute), "\(cookie)")
        }
        // Used once: the same code again is refused.
        let again = home.send("POST", "/api/pair", body: #"{"code": "\#(code.code)"}"#)
        #expect(again.status == 401 && again.text.contains("works once"))
        // The library keeps the secret's hash, never the secret.
        let credential = String(cookie.split(separator: ";")[0].dropFirst(PairingDesk.cookieName.count + 1))
        let secret = String(credential.split(separator: ".")[1])
        let database =
            try Data(contentsOf: home.folder.file("library/library.sqlite"))
            + ((try? Data(contentsOf: home.folder.file("library/library.sqlite-wal"))) ?? Data())
        #expect(database.range(of: Data(secret.utf8)) == nil, "the secret is not stored")
        #expect(database.range(of: Data(SHA256.hex(of: Data(secret.utf8)).utf8)) != nil, "its hash is")
    }

    @Test func anExpiredCodeIsRefused() throws {
        let home = try HomeNetworkApp(codeLifetime: .milliseconds(200))
        let code = home.desk.newCode().code
        Thread.sleep(forTimeInterval: 0.4)
        let late = home.send("POST", "/api/pair", body: #"{"code": "\#(code)"}"#)
        #expect(late.status == 401 && late.text.contains("five minutes"))
        #expect(try home.library.devices().isEmpty)
    }

    @Test func guessingIsStoppedPerAddressWhileOthersStillPair() throws {
        let home = try HomeNetworkApp()
        let guesser = "192.168.1.66"
        for guess in 0..<PairingDesk.wrongCodesAllowed {
            let answer = home.send(
                "POST", "/api/pair", from: guesser, body: #"{"code": "\#(String(format: "%032x", guess))"}"#)
            #expect(answer.status == 401)
        }
        // Now even the right code is refused from that address, and it is told how long to wait.
        let right = home.desk.newCode().code
        let stopped = home.send("POST", "/api/pair", from: guesser, body: #"{"code": "\#(right)"}"#)
        #expect(stopped.status == 429)
        #expect(Int(stopped.headers["retry-after"] ?? "") ?? 0 > 0)
        // The code was not spent by the refused try: the phone at another address pairs with it.
        let phone = home.send("POST", "/api/pair", body: #"{"code": "\#(right)"}"#)
        #expect(phone.status == 200)
    }

    @Test func guessesSentTogetherAreCountedTogetherAndManyAddressesShareOneLimit() throws {
        let home = try HomeNetworkApp()
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 40) { guess in
            let outcome: String
            do throws(PairingDesk.Refusal) {
                try home.desk.redeem(String(format: "%032x", guess), from: "192.168.1.66")
                outcome = "paired"
            } catch {
                switch error {
                case .wrongCode: outcome = "wrong"
                case .tooManyTries: outcome = "stopped"
                }
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.filter { $0 == "wrong" }.count == PairingDesk.wrongCodesAllowed, "\(all)")
        #expect(all.filter { $0 == "stopped" }.count == 40 - PairingDesk.wrongCodesAllowed)
        // Many addresses, each under its own limit, together reach the limit for all.
        var address = 0
        var stopped = false
        while !stopped, address < 100 {
            address += 1
            for guess in 0..<PairingDesk.wrongCodesAllowed {
                do throws(PairingDesk.Refusal) {
                    try home.desk.redeem(String(format: "%032x", guess), from: "10.0.0.\(address)")
                } catch {
                    if case .tooManyTries = error { stopped = true }
                }
            }
        }
        #expect(stopped && address <= PairingDesk.wrongCodesAllowedInAll / PairingDesk.wrongCodesAllowed + 2)
    }

    @Test func pairingTakesASmallSameOriginBodyAndAStrangerSendsNothingElse() throws {
        let home = try HomeNetworkApp()
        let code = home.desk.newCode().code
        let crossSite = home.send(
            "POST", "/api/pair", body: #"{"code": "\#(code)"}"#, headers: ["Origin": "https://evil.example"])
        #expect(crossSite.status == 403)
        let huge = home.send("POST", "/api/pair", body: #"{"code": "\#(String(repeating: "a", count: 5000))"}"#)
        #expect(huge.status == 413)
        // A stranger's body is refused before it is read, page load or not.
        let body = home.send(
            "GET", "/", body: String(repeating: "x", count: 5000), headers: ["Accept": "text/html"])
        #expect(body.status == 401 && !body.text.contains("<html"))
        let upload = home.send(
            "POST", "/api/photos",
            headers: ["Content-Type": "multipart/form-data; boundary=x", "Content-Length": "300000000"])
        #expect(upload.status == 401)
        // Neither try spent the code.
        #expect(home.send("POST", "/api/pair", body: #"{"code": "\#(code)"}"#).status == 200)
    }

    @Test func eachListenerAnswersToItsOwnNames() throws {
        let home = try HomeNetworkApp()
        // The home network's name on the loopback listener, and this computer's on the other.
        var request = HTTPRequest(method: "GET", path: "/api/session", headers: ["host": HomeNetworkApp.lanHost])
        request.clientAddress = "127.0.0.1"
        #expect(home.app.admit(request)?.status.code == 421)
        request.headers["host"] = "127.0.0.1:8080"
        request.clientAddress = HomeNetworkApp.phoneAddress
        request.arrivedOnHomeNetwork = true
        let misdirected = home.app.admit(request)
        #expect(misdirected?.status.code == 421)
        let message = String(decoding: misdirected?.body ?? Data(), as: UTF8.self)
        #expect(message.contains("https://192.168.1.20:8443/"), "\(message)")
        // On port 443 a browser names the host without the port.
        let standard = PairingDesk(
            settings: HomeNetworkSettings(address: "192.168.1.20", port: 443), port: 443, fingerprint: nil)
        #expect(standard.origin == "https://192.168.1.20")
        #expect(standard.hosts.isSuperset(of: ["192.168.1.20", "192.168.1.20:443"]))
        #expect(standard.origins.contains("https://192.168.1.20"))
        // Plain HTTP (--lan-insecure): the links say so, and the cookie cannot ask for TLS.
        let plain = PairingDesk(
            settings: HomeNetworkSettings(address: "192.168.1.20", port: 8080, usesTLS: false), port: 8080,
            fingerprint: nil)
        #expect(plain.newCode().link.hasPrefix("http://192.168.1.20:8080/pair#"))
        let library = home.library
        let cookie = plain.cookie(for: try library.pairDevice(named: "Phone"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
    }

    @Test func aPairedDeviceUsesTheLibraryButCannotPairOrRevoke() throws {
        let home = try HomeNetworkApp()
        let credential = try home.pairPhone()
        let session = home.send("GET", "/api/session", cookie: credential)
        #expect(session.status == 200)
        #expect(session.json["device"]["name"].string == "iPhone (Safari)")
        #expect(session.json["canPair"].bool == false)
        let token = try #require(session.json["token"].string)
        let made = home.send(
            "POST", "/api/collages", cookie: credential, body: #"{"title": "From the phone"}"#,
            headers: ["X-Collage-Token": token, "Origin": "https://192.168.1.20:8443", "Sec-Fetch-Site": "same-origin"])
        #expect(made.status == 201, "\(made.text)")
        // A page on another origin cannot use the phone's cookie and token to change the library.
        let crossSite = home.send(
            "POST", "/api/collages", cookie: credential, body: #"{"title": "Evil"}"#,
            headers: ["X-Collage-Token": token, "Origin": "https://evil.example"])
        #expect(crossSite.status == 403)
        for (method, path) in [("POST", "/api/pairing-codes"), ("GET", "/api/devices"), ("DELETE", "/api/devices/x")] {
            let answer = home.send(method, path, cookie: credential, headers: ["X-Collage-Token": token])
            #expect(answer.status == 403, "\(method) \(path): \(answer.text)")
        }
        // The page on this computer may.
        let local = home.send("GET", "/api/devices", from: "127.0.0.1")
        #expect(local.status == 200 && local.json["devices"].count == 1)
    }

    @Test func aRevokedDevicesCookieOpensNothingEvenReplayedFromElsewhere() throws {
        let home = try HomeNetworkApp()
        let credential = try home.pairPhone()
        #expect(home.send("GET", "/api/collages", cookie: credential).status == 200)
        let id = String(credential.split(separator: ".")[0])
        // Revoked by another process on the same library, as `collage devices revoke` does.
        let other = try Library(root: home.folder.file("library"))
        try other.revokeDevice(id)
        other.close()
        #expect(home.send("GET", "/api/collages", cookie: credential).status == 401)
        #expect(home.send("GET", "/api/collages", from: "192.168.1.77", cookie: credential).status == 401)
        #expect(throws: LibraryError.self) { try home.library.revokeDevice(id) }
    }

    @Test func aCookieFromAnotherLibraryOrMadeUpOrDamagedOpensNothing() throws {
        let first = try HomeNetworkApp()
        let second = try HomeNetworkApp()
        let credential = try first.pairPhone()
        #expect(second.send("GET", "/api/collages", cookie: credential).status == 401)
        let id = String(credential.split(separator: ".")[0])
        let secret = String(credential.split(separator: ".")[1])
        let wrongSecret = String(secret.dropLast()) + (secret.hasSuffix("0") ? "1" : "0")
        for forged in [
            "\(id).\(wrongSecret)", id, "\(id).", ".\(secret)", "\(id).\(secret).x",
            String(repeating: "a", count: 100_000),
            "\(id).\(secret)%00", "",
        ] {
            #expect(first.send("GET", "/api/collages", cookie: forged).status == 401, "\(forged.prefix(40))")
        }
        // A damaged row pairs nothing, and the request that meets it is answered, not crashed.
        let damage = Process()
        damage.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        damage.arguments = [
            "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
            first.folder.file("library/library.sqlite").path, "UPDATE devices SET secret_hash = 42, name = x'00ff'",
        ]
        try damage.run()
        damage.waitUntilExit()
        #expect(damage.terminationStatus == 0)
        #expect(first.send("GET", "/api/collages", cookie: credential).status == 401)
    }

    @Test func aDeviceThatIsNotPairedGetsThePairingPageOr401FromEveryRoute() throws {
        let home = try HomeNetworkApp()
        let made = home.send(
            "POST", "/api/collages", from: "127.0.0.1", body: #"{"title": "Secret holiday"}"#,
            headers: ["X-Collage-Token": home.app.token])
        let id = try #require(made.json["collage"]["id"].string)
        let page = home.send("GET", "/", headers: ["Accept": "text/html"])
        #expect(page.status == 401 && page.text.contains("Pair this device") && page.text.contains("AB:CD"))
        guard case .object(let document) = home.app.openAPIDocument, case .object(let paths) = document["paths"]
        else {
            Issue.record("no paths")
            return
        }
        var checked = 0
        for (path, operations) in paths where path != "/api/pair" {
            guard case .object(let methods) = operations else { continue }
            for method in methods.keys {
                let target = path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(
                    of: "{item}", with: "x")
                let answer = home.send(
                    method.uppercased(), target, body: method == "get" ? nil : "{}",
                    headers: ["X-Collage-Token": home.app.token])
                #expect([401, 403].contains(answer.status), "\(method) \(target): \(answer.status)")
                #expect(!answer.text.contains("Secret holiday") && !answer.text.contains(home.app.token))
                checked += 1
            }
        }
        #expect(checked > 30)
        for path in ["/static/app.js", "/index.html", "/static/../index.html", "/api/nothing"] {
            #expect([400, 401].contains(home.send("GET", path).status), "\(path)")
        }
        #expect(home.send("GET", "/pair").status == 200)
        #expect(home.send("GET", "/static/pair.js").status == 200)
        // Without --lan, another address is refused whatever it carries.
        let plain = try AppClient()
        var request = HTTPRequest(method: "GET", path: "/api/collages", headers: ["host": AppClient.host])
        request.clientAddress = "192.168.1.50"
        #expect(plain.app.admit(request)?.status.code == 403)
    }

    @Test func theCertificateIsKeptAcrossRestartsAndMadeAgainWhenDamaged() throws {
        let folder = try TemporaryFolder("collage-tls")
        let first = try TLSIdentity.loadOrCreate(in: folder.url, addresses: ["192.168.1.20"], names: ["desk"])
        let second = try TLSIdentity.loadOrCreate(in: folder.url, addresses: ["192.168.1.20"], names: ["desk"])
        #expect(first.fingerprint == second.fingerprint)
        #expect(first.fingerprint.split(separator: ":").count == 32)
        #expect(TLSIdentity.lines(of: first.fingerprint).count == 4)
        let file = folder.file(TLSIdentity.fileName)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "the key is its owner's alone")
        // The fingerprint is the SHA-256 of the certificate as openssl reads it.
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["x509", "-in", file.path, "-noout", "-fingerprint", "-sha256"]
        let output = Pipe()
        openssl.standardOutput = output
        if (try? openssl.run()) != nil {
            openssl.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(text.contains(first.fingerprint), "\(text)")
        }
        // A damaged file is replaced, not trusted.
        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".utf8).write(to: file)
        let remade = try TLSIdentity.loadOrCreate(in: folder.url, addresses: ["192.168.1.20"], names: ["desk"])
        #expect(remade.fingerprint != first.fingerprint)
    }

    @Test func theQRCodeReadsBackAsTheLink() throws {
        let link = "https://192.168.1.20:8443/pair#0123456789abcdef0123456789abcdef"
        let code = try #require(QRCode(link))
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0, "a QR code's side is 17 + 4 × version modules")
        #expect(code.svg().hasPrefix("<svg") && code.terminalText().contains("▀"))
        #expect(try Self.decode(dark: code.isDark, size: code.size) == link)
        // The terminal's half blocks, read back as modules (a block is light), decode the same.
        let lines = code.terminalText().split(separator: "\n").map { line in
            line.replacingOccurrences(of: "\u{1B}[97;40m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "")
        }
        let drawn = { (row: Int, column: Int) -> Bool in
            // Lines start four modules above and left of the code.
            let line = Array(lines[(row + 4) / 2])
            let character = line[column + 4]
            let top = (row + 4) % 2 == 0
            return !(character == "█" || (top ? character == "▀" : character == "▄"))
        }
        #expect(try Self.decode(dark: drawn, size: code.size) == link)
    }

    /// What a phone's camera reads in a code drawn 8 pixels a module with a white quiet zone:
    /// zbarimg's decoding of it.
    static func decode(dark: (Int, Int) -> Bool, size: Int) throws -> String {
        let scale = 8
        let side = (size + 8) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for row in 0..<size {
            for column in 0..<size where dark(row, column) {
                for y in 0..<scale {
                    for x in 0..<scale { pixels[((row + 4) * scale + y) * side + (column + 4) * scale + x] = 0 }
                }
            }
        }
        let folder = try TemporaryFolder("collage-qr")
        let image = folder.file("qr.pgm")
        try (Data("P5\n\(side) \(side)\n255\n".utf8) + Data(pixels)).write(to: image)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else {
            Issue.record("zbarimg is missing: run scripts/bootstrap")
            return ""
        }
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", image.path]
        let output = Pipe()
        zbar.standardOutput = output
        try zbar.run()
        zbar.waitUntilExit()
        let read = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return read.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func devicesAreNamedFromTheirBrowser() {
        let names = [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Mobile Safari/604.1":
                "iPhone (Safari)",
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36":
                "Android (Chrome)",
            "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) CriOS/126.0 Mobile Safari/604.1": "iPad (Chrome)",
            "Mozilla/5.0 (Android 14; Mobile; rv:127.0) Gecko/127.0 Firefox/127.0": "Android (Firefox)",
            "": "A device",
        ]
        for (agent, name) in names { #expect(PairingDesk.deviceName(userAgent: agent) == name) }
    }

    @Test func aDevicesNameIsKeptPrintableAndShort() throws {
        let home = try HomeNetworkApp()
        #expect(try home.library.pairDevice(named: "  \u{7}\u{1B}[31mPhone\n  ").device.name == "[31mPhone")
        #expect(try home.library.pairDevice(named: String(repeating: "é", count: 500)).device.name.count == 80)
        #expect(try home.library.pairDevice(named: "\u{0}").device.name == "A device")
    }
}
