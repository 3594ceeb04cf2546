import CollageCore
import CollageLibrary
import CollageTestSupport
import Foundation
import Testing

/// `collage devices` and `serve --lan`'s options, run as a user would run them.
@Suite("collage devices and serve --lan")
struct DevicesCommandTests {
    @Test func devicesAreListedAndRevokedAndAnUnknownOneIsNamed() throws {
        let folder = try TemporaryFolder("collage-devices-cli")
        let root = folder.file("library")
        let library = try Library(root: root)
        let phone = try library.pairDevice(named: "iPhone (Safari)")
        _ = try library.pairDevice(named: "Android (Chrome)")
        library.close()
        let arguments = ["--library", root.path]

        let listed = try CommandRunner.run(["devices"] + arguments)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("iPhone (Safari)") && listed.stdout.contains(phone.device.id))
        #expect(!listed.stdout.contains(phone.credential), "the secret is never shown again")
        let json = try JSONValue.parse(try CommandRunner.run(["devices", "--json"] + arguments).stdout)
        guard case .array(let devices) = json else {
            Issue.record("devices --json prints an array: \(json)")
            return
        }
        #expect(devices.count == 2)

        let revoked = try CommandRunner.run(["devices", "revoke", phone.device.id] + arguments)
        #expect(revoked.status == 0 && revoked.stdout.contains("Revoked \(phone.device.id)"))
        let reopened = try Library(root: root)
        #expect(try reopened.device(withCredential: phone.credential) == nil)
        #expect(try reopened.devices().map(\.name) == ["Android (Chrome)"])
        reopened.close()

        let unknown = try CommandRunner.run(["devices", "revoke", "nope"] + arguments)
        #expect(unknown.status != 0 && unknown.stderr.contains("no paired device with id \"nope\""))
        let wrong = try CommandRunner.run(["devices", "forget"] + arguments)
        #expect(wrong.status == 64 && wrong.stderr.contains("revoke ID"))
    }

    @Test func serveRefusesAnOpenAddressAndLanOptionsWithoutLan() throws {
        let open = try CommandRunner.run(["serve", "--host", "0.0.0.0", "--port", "0"])
        #expect(open.status == 64 && open.stderr.contains("--lan"), "\(open.stderr)")
        let stray = try CommandRunner.run(["serve", "--lan-port", "9443", "--port", "0"])
        #expect(stray.status == 64 && stray.stderr.contains("--lan-port goes with --lan"))
        let address = try CommandRunner.run(["serve", "--lan", "--lan-address", "not-an-ip", "--port", "0"])
        #expect(address.status == 64 && address.stderr.contains("--lan-address expects"))
        let gone = try CommandRunner.run(["serve", "--allow-remote"])
        #expect(gone.status == 64)
    }

    /// Ctrl-C (or SIGTERM) sent the moment the editor's address shows, as a script does: it
    /// killed the server by the signal's default (exit by signal 2) before its handler was
    /// set, and later was lost while the handler was being registered (the server ran on).
    /// Each of these stops it cleanly, with exit 0.
    @Test(arguments: [SIGINT, SIGTERM])
    func aStopSignalSentAsSoonAsTheAddressShowsStopsTheServerCleanly(signal: Int32) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<8 {
            let process = Process()
            process.executableURL = CommandRunner.executable
            process.arguments = [
                "serve", "--port", "0", "--no-analyse", "--library",
                directory.appendingPathComponent("library \(round)").path,
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            var printed = Data()
            while !printed.contains(UInt8(ascii: "\n")) {
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { break }
                printed.append(more)
            }
            #expect(String(decoding: printed, as: UTF8.self).contains("Collage editor: http://127.0.0.1:"))
            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            let ranOn = process.isRunning
            if ranOn { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(!ranOn, "round \(round): the server ran on after the signal")
            #expect(
                process.terminationReason == .exit && process.terminationStatus == 0,
                "round \(round): \(process.terminationReason == .exit ? "exit" : "signal") \(process.terminationStatus)"
            )
        }
    }
}
