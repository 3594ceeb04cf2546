import CollageKit
import CollageServer
import Dispatch
import Foundation

/// `collage serve`: the web editor.
enum ServeCommand: Command {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Start the web editor on this machine",
        usage: "[--port 8080] [--host 127.0.0.1] [--library DIR] [--open] [--allow-remote]",
        options: [
            LibraryAccess.option, .value("--port", "N", "The port (default 8080; 0 picks a free one)"),
            .value("--host", "ADDRESS", "The address to listen on (default 127.0.0.1)"),
            .flag(
                "--allow-remote",
                "Allow a non-loopback --host (the editor has no accounts: anyone who can reach it can edit)"),
            .flag("--open", "Open the editor in the default browser"),
            .value("--model", "PATH", "The subject model for stickers and smart crops"),
            .flag(
                "--no-analyse",
                "Do not find the photos' subjects in the background (lifts then run the model; "
                    + "smart crops wait for a lift or an import)"),
        ],
        discussion: """
            Prints the editor's address, then serves until Ctrl-C, which lets requests in flight
            finish and closes the library. Requests must name this address in their Host header
            (no DNS rebinding), and changes need the page's token.
            """)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let port =
            try arguments.value("--port", expected: "a port number from 0 to 65535") {
                Int($0).flatMap { (0...65535).contains($0) ? $0 : nil }
            } ?? 8080
        let host = arguments.value("--host") ?? "127.0.0.1"
        var workspace = try LibraryAccess.open(arguments)
        do throws(Failure) {
            workspace = workspace.with(model: try Workspace.loadModel(at: SmartCropArguments.modelPath(arguments)))
        } catch {
            Output.printError("collage: note: stickers and smart crops are off: \(error.message)")
        }
        let server: CollageServer
        do throws(ServerError) {
            server = try CollageServer(
                workspace: workspace, host: host, port: port, allowRemote: arguments.has("--allow-remote"),
                analysesPhotos: !arguments.has("--no-analyse"))
        } catch {
            throw error.failure
        }
        if arguments.has("--allow-remote"), !["127.0.0.1", "::1", "localhost"].contains(host) {
            Output.printError("collage: warning: listening on \(host): anyone who can reach it can change your library")
        }
        Output.print("Collage editor: \(server.url.absoluteString)  (library \(workspace.folder.path); Ctrl-C to stop)")
        if arguments.has("--open") { openInBrowser(server.url) }
        waitForSignal(server: server, workspace: workspace)
    }

    /// Serves until SIGINT or SIGTERM, then shuts down cleanly and exits.
    static func waitForSignal(server: CollageServer, workspace: Workspace) -> Never {
        for signalNumber in [SIGINT, SIGTERM] { signal(signalNumber, SIG_IGN) }
        let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
        for source in sources {
            source.setEventHandler {
                Output.printError("collage: stopping…")
                server.stop()
                workspace.close()
                exit(0)
            }
            source.resume()
        }
        withExtendedLifetime(sources) { dispatchMain() }
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

extension ServerError {
    /// The failure of a server that could not start.
    var failure: Failure {
        switch self {
        case .cannotListen: .unavailable(description)
        case .remoteNotAllowed: .usage(description)
        }
    }
}
