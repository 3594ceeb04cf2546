import CollageKit

/// A subcommand of `collage`.
protocol Command: Sendable {
    /// Its name, options and help.
    static var spec: CommandSpec { get }
    /// Does the work. Throwing a ``CollageKit/Failure`` prints its message and exits with its code.
    static func run(_ arguments: ParsedArguments) throws(Failure)
}

/// The root command: dispatches to subcommands and owns help, version and error reporting.
enum RootCommand {
    static let version = "0.1.0"

    /// Every subcommand, in the order `--help` lists them.
    static let commands: [any Command.Type] = [
        TemplatesCommand.self,
        FiltersCommand.self,
        ShapesCommand.self,
        ValidateCommand.self,
        MakeCommand.self,
        RenderCommand.self,
        ImportCommand.self,
        NewCommand.self,
        ListCommand.self,
        ShowCommand.self,
        RenameCommand.self,
        DuplicateCommand.self,
        RemoveCommand.self,
        LayoutCommand.self,
        EditCommand.self,
        UndoCommand.self,
        RedoCommand.self,
        ExportCommand.self,
        PhotosCommand.self,
        StickersCommand.self,
        CleanUpCommand.self,
        DoctorCommand.self,
        StickerCommand.self,
        SheetCommand.self,
        PackCommand.self,
        LicenceCommand.self,
        ServeCommand.self,
        DevicesCommand.self,
        CompletionCommand.self,
        ManCommand.self,
    ]

    static let overview = """
        collage — photo collages with subject-lifted stickers, on your own machine.

        Usage: collage <command> [options]
               collage help <command>
               collage --version
        """

    /// Runs the command line and returns the process exit code.
    static func main(_ arguments: [String]) -> Int32 {
        do {
            try dispatch(arguments)
            return ExitCode.success
        } catch {
            Output.printError("collage: \(error.commandLineText)")
            if error.kind == .malformed || error.kind == .invalidOption {
                // The command's own help, where one was named: the root's lists commands, not
                // the options that were wrong.
                let named = arguments.first.flatMap { name in commands.first { $0.spec.name == name } }
                Output.printError("Run 'collage \(named.map { "\($0.spec.name) " } ?? "")--help' for usage.")
            }
            return error.exitCode
        }
    }

    private static func dispatch(_ arguments: [String]) throws(Failure) {
        guard let first = arguments.first else {
            Output.print(rootHelp)
            return
        }
        switch first {
        case "--help", "-h":
            Output.print(rootHelp)
        case "--version", "-V":
            Output.print("collage \(version)")
        case "help":
            guard arguments.count <= 2 else { throw .usage("'collage help' takes at most one command name") }
            guard let name = arguments.dropFirst().first else {
                Output.print(rootHelp)
                return
            }
            Output.print(help(for: try command(named: name).spec))
        default:
            let command = try command(named: first)
            let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), for: command.spec)
            if parsed.has("--help") {
                Output.print(help(for: command.spec))
            } else {
                try command.run(parsed)
            }
        }
    }

    private static func command(named name: String) throws(Failure) -> any Command.Type {
        // A plain loop: `first(where:)` over metatypes in a typed-throws function crashes Swift 6.3's SILGen.
        for command in commands where command.spec.name == name {
            return command
        }
        if name.hasPrefix("-") { throw Failure.usage("unknown option '\(name)'") }
        let names = commands.map { $0.spec.name }
        let guess = closestName(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        throw Failure.usage("unknown command '\(name)'\(guess); commands: \(names.joined(separator: ", "))")
    }

    static var rootHelp: String {
        let rows = commands.map { ["  \($0.spec.name)", $0.spec.abstract] }
        return """
            \(overview)

            Commands:
            \(Output.table(rows))

            Options:
              -h, --help     Show help (also after a command: collage templates --help)
              -V, --version  Show the version

            \(ExitCode.summary)
            """
    }

    static func help(for spec: CommandSpec) -> String {
        var text = "\(spec.abstract)\n\nUsage: collage \(spec.name) \(spec.usage)"
        let rows =
            spec.options.map { option in
                ["  " + option.name + (option.valueName.map { " \($0)" } ?? ""), option.help]
            } + [["  -h, --help", "Show this help"]]
        text += "\n\nOptions:\n" + Output.table(rows)
        if !spec.discussion.isEmpty { text += "\n\n" + spec.discussion }
        return text
    }
}
