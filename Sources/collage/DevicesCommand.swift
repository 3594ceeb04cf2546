import CollageCore
import CollageKit
import Foundation

/// `collage devices`: the phones and tablets paired with the library, and revoking them.
enum DevicesCommand: Command {
    static let spec = CommandSpec(
        name: "devices",
        abstract: "List the phones and tablets paired with 'serve --lan', or revoke one",
        usage: "[--json] [--library DIR] | revoke ID [--library DIR]",
        options: [LibraryAccess.option, .flag("--json", "Print JSON")],
        discussion: """
            A device pairs by opening the one-time link (or scanning the QR code) that
            'collage serve --lan' and the editor's Pair a phone show. Each paired device keeps a
            secret of its own in a cookie; the library keeps only the secret's hash.

            'revoke ID' closes the device's door at once, also for an editor already running: its
            cookie opens nothing from then on. To use it again, pair it again.

            Examples:
              collage devices
              collage devices revoke 3f2a9c01d4e5b6a7
            """,
        positionals: 0...2)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let workspace = try LibraryAccess.open(arguments)
        defer { workspace.close() }
        switch arguments.positionals.first {
        case nil:
            try list(workspace, json: arguments.has("--json"))
        case "revoke":
            guard arguments.positionals.count == 2 else { throw .usage("'collage devices revoke' needs a device's ID") }
            let id = arguments.positionals[1]
            try workspace.revokeDevice(id)
            if arguments.has("--json") {
                Output.printJSON(.object(["revoked": .string(id)]))
            } else {
                Output.print("Revoked \(id): it can no longer open this library's editor.")
            }
        case let other?:
            throw .usage("'collage devices' takes nothing or 'revoke ID', got \"\(other.prefix(40))\"")
        }
    }

    private static func list(_ workspace: Workspace, json: Bool) throws(Failure) {
        let devices = try workspace.devices()
        if json {
            Output.printJSON(.array(devices.map(RecordJSON.device)))
            return
        }
        guard !devices.isEmpty else {
            Output.print("No paired devices. Pair one: 'collage serve --lan', then scan its QR code with the phone.")
            return
        }
        let rows =
            [["ID", "DEVICE", "PAIRED", "LAST SEEN"]]
            + devices.map { device in
                [device.id, device.name, Self.shown(device.pairedAt), Self.shown(device.lastSeen)]
            }
        Output.print(Output.table(rows))
    }

    /// A date as a person reads it in a list: local time to the minute.
    private static func shown(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
