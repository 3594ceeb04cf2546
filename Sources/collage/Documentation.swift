import CollageKit
import Foundation

/// Man pages and shell completions, written from the same command table as `--help`, so they
/// cannot drift from what the commands accept.
enum Documentation {
    /// `collage.1`: the overview, the command list and the exit codes.
    static func rootManPage() -> String {
        var page = header(name: "collage", summary: "photo collages with subject-lifted stickers")
        page += ".SH SYNOPSIS\n.B collage\n.I command\n[\\fIoptions\\fR]\n.br\n.B collage help\n.I command\n"
        page += ".SH DESCRIPTION\n"
        page += roff(
            "Collage makes photo collages on your own machine: pick photos and a layout, arrange them, lift "
                + "subjects out of photos as stickers, keep collages in a local library and export print-quality "
                + "images. Each command has its own page, e.g. collage-make(1).")
        page += "\n.SH COMMANDS\n"
        for command in RootCommand.commands {
            page +=
                ".TP\n.B \(command.spec.name)\n\(roff(command.spec.abstract)) See\n.BR collage-\(command.spec.name) (1).\n"
        }
        page += ".SH EXIT STATUS\n.nf\n\(roff(ExitCode.summary))\n.fi\n"
        page +=
            ".SH ENVIRONMENT\n.TP\n.B COLLAGE_LIBRARY\nThe library folder (default \\fI$XDG_DATA_HOME/collage\\fR).\n"
        page += ".TP\n.B COLLAGE_MODEL\nThe subject model file.\n"
        page +=
            ".TP\n.B COLLAGE_CONVOLUTION\n\\fBopencv\\fR runs the subject model with OpenCV's own convolutions, "
            + "\\fBavx2\\fR with Collage's without AVX-512: slower, for comparing (Collage's own, with the widest "
            + "vectors the processor has, are the default).\n"
        return page
    }

    /// Every page by file name: `collage.1` and `collage-NAME.1` for each command. (Not inside a
    /// typed-throws function: mapping existential metatypes there crashes Swift 6.3's SILGen.)
    static func allManPages() -> [(name: String, text: String)] {
        var pages = [(name: "collage.1", text: rootManPage())]
        for command in RootCommand.commands {
            pages.append((name: "collage-\(command.spec.name).1", text: manPage(for: command.spec)))
        }
        return pages
    }

    /// `collage-NAME.1` for one command.
    static func manPage(for spec: CommandSpec) -> String {
        var page = header(name: "collage-\(spec.name)", summary: spec.abstract)
        page += ".SH SYNOPSIS\n.B collage \(spec.name)\n\(roff(spec.usage))\n"
        page += ".SH DESCRIPTION\n\(roff(spec.abstract)).\n"
        if !spec.discussion.isEmpty { page += ".PP\n.nf\n\(roff(spec.discussion))\n.fi\n" }
        page += ".SH OPTIONS\n"
        for option in spec.options {
            page += ".TP\n.B \(roff(option.name))"
            if let value = option.valueName { page += " \\fI\(roff(value))\\fR" }
            page += "\n\(roff(option.help))\n"
        }
        page += ".TP\n.B \\-h, \\-\\-help\nShow the command's help.\n"
        page += ".SH SEE ALSO\n.BR collage (1)\n"
        return page
    }

    /// A completion script for `shell` (`bash`, `zsh` or `fish`), or `nil` for another shell.
    static func completion(for shell: String) -> String? {
        var commands: [CommandSpec] = []
        // A loop: a key path over existential metatypes crashes Swift 6.3's SILGen.
        for command in RootCommand.commands { commands.append(command.spec) }
        switch shell {
        case "bash":
            var script = "# bash completion for collage, written by 'collage completion bash'\n_collage() {\n"
            script += "    local current=${COMP_WORDS[COMP_CWORD]}\n"
            script += "    if [[ $COMP_CWORD -eq 1 ]]; then\n"
            script +=
                "        COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " ")) help --help --version\" -- \"$current\"))\n"
            script += "        return\n    fi\n    case ${COMP_WORDS[1]} in\n"
            for spec in commands {
                let options = (spec.options.map(\.name) + ["--help"]).joined(separator: " ")
                script += "        \(spec.name)) COMPREPLY=($(compgen -W \"\(options)\" -- \"$current\")) ;;\n"
            }
            script +=
                "        help) COMPREPLY=($(compgen -W \"\(commands.map(\.name).joined(separator: " "))\" -- \"$current\")) ;;\n"
            script += "    esac\n    [[ $current == -* ]] || COMPREPLY+=($(compgen -f -- \"$current\"))\n}\n"
            script += "complete -o filenames -F _collage collage\n"
            return script
        case "zsh":
            var script = "#compdef collage\n# zsh completion for collage, written by 'collage completion zsh'\n"
            script += "_collage() {\n    local -a commands\n    commands=(\n"
            for spec in commands { script += "        '\(spec.name):\(zshQuoted(spec.abstract))'\n" }
            script +=
                "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n"
            script += "    case $words[2] in\n"
            for spec in commands {
                let options = spec.options.map { option in
                    "'\(option.name)[\(zshQuoted(option.help))]\(option.valueName.map { ":\(zshQuoted($0)):_files" } ?? "")'"
                }
                script += "        \(spec.name)) _arguments \(options.joined(separator: " ")) '*:file:_files' ;;\n"
            }
            script += "    esac\n}\n_collage \"$@\"\n"
            return script
        case "fish":
            var script = "# fish completion for collage, written by 'collage completion fish'\n"
            for spec in commands {
                script +=
                    "complete -c collage -n __fish_use_subcommand -a \(spec.name) -d '\(fishQuoted(spec.abstract))'\n"
            }
            for spec in commands {
                for option in spec.options where option.name.hasPrefix("--") {
                    script += "complete -c collage -n '__fish_seen_subcommand_from \(spec.name)' -l "
                    script += String(option.name.dropFirst(2))
                    if option.valueName != nil { script += " -r" }
                    script += " -d '\(fishQuoted(option.help))'\n"
                }
            }
            return script
        default:
            return nil
        }
    }

    private static func header(name: String, summary: String) -> String {
        ".TH \(name.uppercased()) 1 \"\" \"collage \(RootCommand.version)\" \"User Commands\"\n"
            + ".SH NAME\n\(roff(name)) \\- \(roff(summary))\n"
    }

    /// Text safe in roff: backslashes and hyphens escaped, characters beyond ASCII as `\[uXXXX]`,
    /// no line starting with a control character.
    static func roff(_ text: String) -> String {
        let escaped = text.unicodeScalars.map { scalar -> String in
            switch scalar {
            case "\\": return "\\e"
            case "-": return "\\-"
            case _ where scalar.isASCII: return String(scalar)
            default: return "\\[u" + String(format: "%04X", scalar.value) + "]"
            }
        }.joined()
        return
            escaped
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line) }
            .joined(separator: "\n")
    }

    private static func zshQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: ":", with: "\\:")
            .replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
    }

    private static func fishQuoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
}

/// `collage completion SHELL`.
enum CompletionCommand: Command {
    static let spec = CommandSpec(
        name: "completion", abstract: "Print a shell completion script (bash, zsh or fish)", usage: "bash|zsh|fish",
        options: [],
        discussion: """
            Try it in the running shell with 'source <(collage completion bash)'; 'make install' installs all three.
            """,
        positionals: 1...1)

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        let shell = arguments.positionals.first ?? ""
        guard let script = Documentation.completion(for: shell) else {
            throw .usage("'collage completion' knows bash, zsh and fish, got \"\(shell)\"")
        }
        FileHandle.standardOutput.write(Data(script.utf8))
    }
}

/// `collage man`.
enum ManCommand: Command {
    static let spec = CommandSpec(
        name: "man", abstract: "Write the manual pages (collage.1 and one per command) into a folder",
        usage: "--output DIR", options: [.value("--output", "DIR", "The folder to write the pages into (required)")])

    static func run(_ arguments: ParsedArguments) throws(Failure) {
        guard let path = arguments.value("--output") else { throw .usage("--output DIR is required") }
        let folder = URL(fileURLWithPath: path)
        let pages = Documentation.allManPages()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, page) in pages {
                try Data(page.utf8).write(to: folder.appendingPathComponent(name), options: .atomic)
            }
        } catch {
            throw .cannotCreate("\(path): cannot write the manual pages (\(error.localizedDescription))")
        }
        Output.print("Wrote \(pages.count) manual pages to \(path)")
    }
}
