import CollageKit

/// What a subcommand accepts, used both to parse its arguments and to print its help.
struct CommandSpec: Sendable {
    /// The word after `collage`.
    let name: String
    /// One line for the command list.
    let abstract: String
    /// The usage line after `collage NAME`, e.g. `[--json] doc.json`.
    let usage: String
    /// Options the command takes; `--help` is always accepted as well.
    let options: [OptionSpec]
    /// Paragraphs after the option list: details, examples, exit codes.
    var discussion: String = ""
    /// How many positional arguments are allowed.
    var positionals: ClosedRange<Int> = 0...0
}

/// One `--name` option: a flag, or an option that takes a value.
struct OptionSpec: Sendable {
    /// The option with its dashes, e.g. `--canvas`.
    let name: String
    /// The placeholder for its value, e.g. `WxH`; `nil` for a flag.
    var valueName: String?
    /// One line of help.
    let help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help)
    }

    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
}

/// The arguments of one command after parsing: flags seen, option values, positionals.
struct ParsedArguments: Sendable {
    private(set) var flags: Set<String> = []
    private(set) var values: [String: String] = [:]
    private(set) var positionals: [String] = []

    /// Whether a flag was given.
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// An option's value, if given.
    func value(_ option: String) -> String? { values[option] }

    /// An option's value parsed by `parse`, or a usage error quoting what was wrong.
    func value<T>(_ option: String, expected: String, _ parse: (String) -> T?) throws(Failure) -> T? {
        guard let text = values[option] else { return nil }
        guard let parsed = parse(text) else {
            throw .usage("\(option) expects \(expected), got \"\(text)\"")
        }
        return parsed
    }

    /// The two spellings of the output option, which name one value.
    private static let outputSpellings = ["-o", "--output"]

    /// Splits `arguments` by `spec`. `--name=value` and `--name value` both work; `--` ends options.
    static func parse(_ arguments: [String], for spec: CommandSpec) throws(Failure) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument == "--help" || argument == "-h" {
                parsed.flags.insert("--help")
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0]
            guard let option = spec.options.first(where: { $0.name == name }) else {
                let guess = closestName(to: name, among: spec.options.map(\.name)).map { " (did you mean \($0)?)" }
                throw .usage("unknown option '\(name)' for 'collage \(spec.name)'\(guess ?? "")")
            }
            if option.valueName == nil {
                guard parts.count == 1 else { throw .usage("\(name) takes no value") }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                guard index < arguments.count else {
                    throw .usage("\(name) needs a value (\(option.valueName ?? "value"))")
                }
                value = arguments[index]
                index += 1
            }
            // A value given twice was the last one silently (`-o a.jpg … -o b.jpg` wrote only b.jpg).
            let spellings = outputSpellings.contains(name) ? outputSpellings : [name]
            if let earlier = spellings.lazy.compactMap({ parsed.values[$0] }).first {
                throw .usage(
                    "\(spellings.joined(separator: " or ")) was given twice (\"\(earlier.prefix(60))\" and "
                        + "\"\(value.prefix(60))\"); give it once")
            }
            parsed.values[name] = value
        }
        if !parsed.has("--help"), !spec.positionals.contains(parsed.positionals.count) {
            let range = spec.positionals
            func arguments(_ count: Int) -> String { "\(count) argument\(count == 1 ? "" : "s")" }
            // Said from the side that was missed: "0 to 100 arguments" for 101 read as a riddle.
            let wanted =
                if range.lowerBound == range.upperBound {
                    arguments(range.lowerBound)
                } else if parsed.positionals.count < range.lowerBound {
                    "at least \(arguments(range.lowerBound))"
                } else {
                    "at most \(arguments(range.upperBound))"
                }
            throw .usage("'collage \(spec.name)' takes \(wanted), got \(parsed.positionals.count)")
        }
        return parsed
    }
}

/// The one of `names` a mistyped `name` most likely meant: at most two letters added, dropped,
/// changed or swapped from it (a third of a short name), the nearest, and only when no other is
/// as near (`stiker` is `sticker`; `--outlin` is `--outline`).
func closestName(to name: String, among names: [String]) -> String? {
    let typed = Array(name.lowercased())
    let allowed = min(2, max(1, typed.count / 3))
    var best: (name: String, distance: Int)?
    var tied = false
    for candidate in names {
        let distance = editDistance(typed, Array(candidate.lowercased()))
        guard distance <= allowed else { continue }
        if let current = best, distance >= current.distance {
            if distance == current.distance { tied = true }
            continue
        }
        (best, tied) = ((candidate, distance), false)
    }
    return tied ? nil : best?.name
}

/// Letters added, dropped, changed or two side by side swapped to make `a` into `b`.
private func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let change = a[i - 1] == b[j - 1] ? 0 : 1
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + change)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
            }
        }
    }
    return table[a.count][b.count]
}
