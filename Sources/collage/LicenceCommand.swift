import CollageCore
import CollageKit
import CollageLicence
import Foundation

/// `collage licence`: add, show or remove the key that unlocks Collage Premium.
enum LicenceCommand: Command {
    static let spec = CommandSpec(
        name: "licence",
        abstract: "Unlock the premium layouts with a licence key, show it, or remove it",
        usage: "add (KEY | - | --file FILE) | show [--json] | remove",
        options: [
            .value("--file", "FILE", "With add: read the key from a file (e.g. the one your receipt came with)"),
            .flag("--json", "With add and show: print JSON"),
        ],
        discussion: """
            Collage Premium is a one-time purchase that unlocks every premium layout (see 'collage
            templates'). Its licence key is one line that starts with "collage1."; it is checked on
            this machine, with no network. 'add -' reads the key from standard input.

            The licence is kept for you, not for one library: in $XDG_CONFIG_HOME/collage/licence.key
            (else ~/.config/collage/licence.key). Copy that file to another computer to unlock it there.
            Without a licence, applying a premium layout exits 77; collages that already follow one
            open, edit and export as always.

            Examples:
              collage licence add collage1.3cfab81e.eyJ…
              collage licence add --file ~/Downloads/collage-licence.txt
              collage licence show --json
            """,
        positionals: 1...2)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let store = LicenceStore.standard()
        let action = arguments.positionals[0]
        let extra = Array(arguments.positionals.dropFirst())
        switch action {
        case "add":
            try add(key(extra, file: arguments.value("--file")), to: store, json: arguments.has("--json"))
        case "show":
            guard extra.isEmpty else { throw .usage("'collage licence show' takes no key") }
            show(store, json: arguments.has("--json"))
        case "remove":
            guard extra.isEmpty else { throw .usage("'collage licence remove' takes no key") }
            do {
                Output.print(
                    try store.remove()
                        ? "Removed the licence from \(store.file.path): premium layouts are locked again."
                        : "No licence to remove (\(store.file.path) does not exist).")
            } catch {
                throw .cannotCreate(error.description)
            }
        default:
            throw .usage("'collage licence' takes add, show or remove, got \"\(action.prefix(40))\"")
        }
    }

    /// The key from the argument, standard input (`-`) or `--file`: exactly one of them.
    private static func key(_ extra: [String], file: String?) throws(Failure) -> String {
        switch (extra.first, file) {
        case (nil, nil): throw .usage("'collage licence add' needs the key, '-' (standard input) or --file FILE")
        case (.some, .some): throw .usage("give the key or --file, not both")
        case ("-", nil):
            // Read to the end (a key pasted over two lines arrives in pieces), at most 64 KiB.
            var data = Data()
            while data.count <= 65_536 {
                let chunk = FileHandle.standardInput.readData(ofLength: 65_536)
                if chunk.isEmpty { break }
                data += chunk
            }
            return String(decoding: data.prefix(65_537), as: UTF8.self)
        case (let key?, nil): return key
        case (nil, let path?):
            let url = URL(fileURLWithPath: path)
            // A licence file is a few hundred bytes; anything large is the wrong file.
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int else {
                throw .noInput("\(path): no such file")
            }
            guard size <= 65_536, let data = FileManager.default.contents(atPath: url.path) else {
                throw .data("\(path) is \(size) bytes: not a licence key file")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    private static func add(_ key: String, to store: LicenceStore, json: Bool) throws(Failure) {
        let licence: Licence
        do {
            licence = try store.add(key)
        } catch {
            let failure = error.failure
            throw failure.kind == .invalidInput
                ? .data(error.description + " (nothing was changed)") : failure
        }
        if json {
            Output.printJSON(record(licence))
        } else {
            Output.print(
                "\(LicenceKey.productName) unlocked for \(licence.licensee) (licence \(licence.id), issued "
                    + "\(licence.issued)): every premium layout is yours, in every library on this computer.")
        }
    }

    private static func show(_ store: LicenceStore, json: Bool) {
        let state = store.current()
        if json {
            var members: [String: JSONValue] = ["unlocked": .bool(false), "file": .string(store.file.path)]
            switch state {
            case .none: break
            case .valid(let licence):
                members["unlocked"] = .bool(true)
                members["licence"] = record(licence)
            case .invalid(let error): members["problem"] = .string(error.description)
            }
            Output.printJSON(.object(members))
            return
        }
        switch state {
        case .none:
            Output.print(
                """
                \(LicenceKey.productName) is not unlocked: the free layouts are \(Template.free.map(\.id).joined(separator: ", ")).
                Unlock every premium layout with 'collage licence add KEY'.
                """)
        case .valid(let licence):
            Output.print(
                """
                \(LicenceKey.productName), unlocked
                  licensed to  \(licence.licensee)
                  licence      \(licence.id)
                  issued       \(licence.issued)
                  kept in      \(store.file.path)
                """)
        case .invalid(let error):
            Output.print(
                """
                \(LicenceKey.productName) is not unlocked: the licence in \(store.file.path) was not accepted:
                \(error.description).
                Add a valid key with 'collage licence add KEY'.
                """)
        }
    }

    private static func record(_ licence: Licence) -> JSONValue {
        .object([
            "product": .string(licence.product), "id": .string(licence.id), "licensee": .string(licence.licensee),
            "issued": .string(licence.issued), "signingKey": .string(licence.signingKeyID),
        ])
    }
}
