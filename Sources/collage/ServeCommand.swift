import CollageKit
import CollageServer
import Dispatch
import Foundation
import Synchronization

/// `collage serve`: the web editor.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Start the web editor on this machine, and on your phone with --lan",
        usage: "[--port 8080] [--host 127.0.0.1] [--library DIR] [--open] [--lan [--lan-port 8443] [--lan-address IP]]",
        options: [
            LibraryAccess.option, .value("--port", "N", "The port (default 8080; 0 picks a free one)"),
            .value("--host", "ADDRESS", "The loopback address to listen on (default 127.0.0.1)"),
            .flag(
                "--lan",
                "Also serve the home network over HTTPS, to phones and tablets you pair (shows a QR code)"),
            .value("--lan-port", "N", "With --lan: the home network's port (default 8443; 0 picks a free one)"),
            .value(
                "--lan-address", "IP",
                "With --lan: listen on this address only, and send devices to it (default: every address, "
                    + "and this computer's own in the link)"),
            .flag(
                "--lan-insecure",
                "With --lan: plain HTTP on the network. Anyone on it can read your photos and the device "
                    + "cookies as they pass, and the phone's share sheet and clipboard do not work"),
            .flag("--open", "Open the editor in the default browser"),
            .value("--model", "PATH", "The subject model for stickers and smart crops"),
            .flag(
                "--no-analyse",
                "Do not find the photos' subjects in the background (lifts then run the model; "
                    + "smart crops wait for a lift or an import)"),
        ],
        discussion: """
            Prints the editor's address, then serves until Ctrl-C, which lets requests in flight
            finish (exports and drawings still queued are refused with 503) and closes the
            library. Requests must name this address in their Host header (no DNS rebinding),
            and changes need the page's token.

            On your phone (--lan): the editor also listens on the home network, over HTTPS with a
            certificate made the first time and kept in the library folder (lan-certificate.pem).
            The terminal shows a QR code and a link holding a one-time pairing code (it works once,
            for five minutes; press Enter for a new one, or choose Pair a phone in the editor).
            Scan it with the phone's camera. The phone warns that the certificate is not trusted:
            it is this computer's own, so compare its SHA-256 fingerprint with the one printed
            here, then go on and tap Pair. Only paired devices see or change anything; list them
            with 'collage devices' and revoke one with 'collage devices revoke ID'.

            Example:
              collage serve --lan
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        // Caught from the start: a Ctrl-C sent as soon as the address shows stops the server
        // cleanly (see catchStopSignals).
        catchStopSignals()
        let port =
            try arguments.value("--port", expected: "a port number from 0 to 65535") {
                Int($0).flatMap { (0...65535).contains($0) ? $0 : nil }
            } ?? 8080
        let host = arguments.value("--host") ?? "127.0.0.1"
        let homeNetwork = try homeNetworkSettings(arguments)
        var workspace = try LibraryAccess.open(arguments, creating: true)
        do throws(Failure) {
            workspace = workspace.with(model: try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments)))
        } catch {
            Output.printError("collage: note: stickers and smart crops are off: \(error.message)")
        }
        let server: CollageServer
        do throws(ServerError) {
            server = try CollageServer(
                workspace: workspace, host: host, port: port, homeNetwork: homeNetwork,
                analysesPhotos: !arguments.has("--no-analyse"))
        } catch {
            throw error.failure
        }
        stopOnSignal(server: server, workspace: workspace)
        Output.print("Collage editor: \(server.url.absoluteString)  (library \(workspace.folder.path); Ctrl-C to stop)")
        if homeNetwork != nil {
            if arguments.has("--lan-insecure") {
                Output.printError(
                    "collage: warning: plain HTTP on the home network: anyone on it can read your photos and "
                        + "the paired devices' cookies as they pass")
            }
            showPairing(server)
            watchForEnter(server)
        }
        if arguments.has("--open") { openInBrowser(server.url) }
        dispatchMain()
    }

    /// The home network's settings from `--lan` and its options; `nil` without `--lan`.
    static func homeNetworkSettings(_ arguments: ParsedArguments) throws(Failure) -> HomeNetworkSettings? {
        guard arguments.has("--lan") else {
            for option in ["--lan-port", "--lan-address"] where arguments.value(option) != nil {
                throw .usage("\(option) goes with --lan")
            }
            if arguments.has("--lan-insecure") { throw .usage("--lan-insecure goes with --lan") }
            return nil
        }
        let port =
            try arguments.value("--lan-port", expected: "a port number from 0 to 65535") {
                Int($0).flatMap { (0...65535).contains($0) ? $0 : nil }
            } ?? 8443
        if let chosen = arguments.value("--lan-address") {
            guard HomeNetworkSettings.isAddress(chosen), !["0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(chosen) else {
                throw .usage(
                    "--lan-address expects an IPv4 or IPv6 address of this computer, got \"\(chosen.prefix(60))\"")
            }
            return HomeNetworkSettings(
                listenAddress: chosen, address: chosen, port: port, usesTLS: !arguments.has("--lan-insecure"))
        }
        guard let found = HomeNetworkSettings.localAddress() else {
            throw .unavailable(
                "this computer has no network address other than loopback; connect it to the home network, "
                    + "or name one with --lan-address")
        }
        return HomeNetworkSettings(address: found, port: port, usesTLS: !arguments.has("--lan-insecure"))
    }

    /// Prints a new pairing link, its QR code and the certificate's fingerprint.
    static func showPairing(_ server: CollageServer) {
        guard let (link, qr, _) = server.newPairingLink() else { return }
        var lines = ["", "Pair a phone or tablet on the same Wi-Fi: scan this code with its camera."]
        if let qr { lines += [qr.terminalText(), ""] }
        lines.append("  Or open: \(link)")
        lines.append("  It works once, for five minutes. Press Enter for a new one.")
        if let fingerprint = server.fingerprint {
            lines.append("  The phone will say the connection isn't private: the certificate is this")
            lines.append("  computer's own. In its details, the SHA-256 fingerprint must read:")
            lines += TLSIdentity.lines(of: fingerprint).map { "    \($0)" }
        }
        lines.append("")
        Output.print(lines.joined(separator: "\n"))
    }

    /// Shows a new pairing code each time Enter is pressed; stops at the end of standard input.
    static func watchForEnter(_ server: CollageServer) {
        Thread.detachNewThread {
            while readLine() != nil { showPairing(server) }
        }
    }

    /// From now on SIGINT and SIGTERM, whichever thread they reach, write a byte to a pipe that
    /// a thread reads: before the server is up (a slow start: the library opening, the model
    /// loading) it exits at once (130, as an interrupted command does); once it is, it stops it
    /// cleanly (see ``stopOnSignal(server:workspace:)``); a second signal while it stops is the
    /// default's, so a stop that hangs can still be cut short. (With a dispatch source, one sent
    /// as soon as the address showed was lost while the source was still being registered, and
    /// the server ran on; earlier still, it killed the server.) Without a pipe, the signals
    /// keep their defaults.
    static func catchStopSignals() {
        let ends = stopPipe
        guard ends.read >= 0 else { return }
        for signalNumber in [SIGINT, SIGTERM] {
            // Only what is safe in a signal handler: one write, errno kept for the thread it
            // interrupted.
            signal(signalNumber) { _ in
                let saved = errno
                var byte: UInt8 = 1
                _ = write(stopPipe.write, &byte, 1)
                errno = saved
            }
        }
        Thread.detachNewThread {
            var byte: UInt8 = 0
            var got = 0
            repeat { got = read(ends.read, &byte, 1) } while got < 0 && errno == EINTR
            for signalNumber in [SIGINT, SIGTERM] { signal(signalNumber, SIG_DFL) }
            guard got == 1, let stop = stopAction.withLock({ $0 }) else { exit(130) }
            stop()
        }
    }

    /// Once the server is up, a stop signal shuts it down cleanly and exits (see
    /// ``catchStopSignals()``).
    static func stopOnSignal(server: CollageServer, workspace: Workspace) {
        stopAction.withLock {
            $0 = {
                Output.printError("collage: stopping…")
                server.stop()
                workspace.close()
                exit(0)
            }
        }
    }

    static func openInBrowser(_ url: URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        if (try? process.run()) == nil {
            Output.printError("collage: could not open a browser; open \(url.absoluteString) yourself")
        }
    }
}

/// The ends of the pipe a stop signal's handler writes to (-1 when none could be made),
/// closed on exec so no child holds them, the write end never blocking. A constant, made
/// before the handlers are set: a signal handler reads it and nothing more.
private let stopPipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return (-1, -1) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
    return (ends[0], ends[1])
}()

/// What a stop signal does once the server is up; `nil` before.
private let stopAction = Mutex<(@Sendable () -> Void)?>(nil)

extension ServerError {
    /// The failure of a server that could not start.
    var failure: Failure {
        switch self {
        case .cannotListen: .unavailable(description)
        case .remoteNotAllowed: .usage(description)
        case .certificate: .cannotCreate(description)
        }
    }
}
