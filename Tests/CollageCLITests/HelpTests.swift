import CollageKit
import Testing

@Suite("collage: help, version and usage errors")
struct HelpTests {
    @Test func helpListsCommandsAndExitCodes() throws {
        let result = try CommandRunner.run(["--help"])
        #expect(result.status == 0)
        for word in ["templates", "validate", "Exit codes", "64"] { #expect(result.stdout.contains(word)) }
        #expect(result.stderr.isEmpty)
    }

    @Test func theHelpsExitCodesAreTheFailureTablesCodes() throws {
        // `collage` exits with Kit's one table; its help must list every code a failure can end with.
        let help = try CommandRunner.run(["--help"]).stdout
        let listed = help.split(separator: "\n").compactMap { line -> Int32? in
            let words = line.split(separator: " ")
            return words.count > 1 ? Int32(words[0]) : nil
        }
        for kind in Failure.Kind.allCases {
            let code = Failure(kind, "x").exitCode
            #expect(listed.contains(code), "exit \(code) (\(kind)) is not in collage --help")
        }
    }

    @Test func noArgumentsPrintsHelp() throws {
        let result = try CommandRunner.run([])
        #expect(result.status == 0 && result.stdout.contains("Usage: collage <command>"))
    }

    @Test func helpForACommand() throws {
        let viaHelp = try CommandRunner.run(["help", "templates"])
        let viaFlag = try CommandRunner.run(["templates", "--help"])
        #expect(viaHelp.status == 0 && viaHelp.stdout.contains("--canvas WxH"))
        #expect(viaHelp.stdout == viaFlag.stdout)
    }

    @Test func version() throws {
        let result = try CommandRunner.run(["--version"])
        #expect(result.status == 0 && result.stdout.hasPrefix("collage "))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"), (["--frob"], "unknown option '--frob'"),
        (["templates", "--nope"], "unknown option '--nope' for 'collage templates'"),
        (["templates", "--canvas"], "--canvas needs a value"), (["templates", "extra"], "takes 0 arguments, got 1"),
        (["templates", "--canvas", "wide"], "--canvas expects WxH"), (["validate"], "takes 1 argument, got 0"),
        (["help", "nothing"], "unknown command 'nothing'"), (["templates", "--json=yes"], "--json takes no value"),
        (["templates", "--spacing", "4"], "--spacing and --padding only apply with --canvas"),
        // A typo gets the name it most likely meant; a name near none gets no guess.
        (["stiker", "a.jpg"], "unknown command 'stiker' (did you mean 'sticker'?)"),
        (["sheets"], "unknown command 'sheets' (did you mean 'sheet'?)"),
        (
            ["make", "--tittle", "Trip", "a.jpg"],
            "unknown option '--tittle' for 'collage make' (did you mean --title?)"
        ),
        (["frobnicate"], "unknown command 'frobnicate'; commands:"),
    ])
    func usageErrorsExit64WithAMessageOnStderr(arguments: [String], message: String) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "stderr was: \(result.stderr)")
        // The command's own help where one was named, whose options were wrong; else the list.
        let commands: Set<String> = ["templates", "validate", "make", "sticker", "render"]
        let help = arguments.first.flatMap { commands.contains($0) ? "collage \($0) --help" : nil } ?? "collage --help"
        #expect(result.stderr.contains(help), "\(result.stderr)")
    }
}
