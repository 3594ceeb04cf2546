import CollageCore
import CollageKit

/// `--seed`, `--hero` and `--max-crop`: how `--layout auto` lays photos out, for `make`, `new`
/// and `layout`.
enum AutoLayoutArguments {
    /// The options, for each command's table.
    static let specs: [OptionSpec] = [
        .value("--seed", "N", "With --layout auto (the default): another N, another good layout (default 0)"),
        .value(
            "--hero", "K", "With --layout auto (the default): photo K (1 = the first) is made clearly the largest"),
        .value(
            "--max-crop", "PCT",
            "With --layout auto (the default): crop at most PCT % of a photo to fill the canvas (default 10)"),
        .flag("--any-order", "With --layout auto (the default): the photos may go anywhere, not in reading order"),
    ]

    /// The `--layout` asked for, or when none is, the default for `count` photos (see
    /// ``NewCollageRequest/defaultLayout(forPhotos:)``).
    static func layout(_ arguments: ParsedArguments, photos count: Int) -> String {
        arguments.value("--layout") ?? NewCollageRequest.defaultLayout(forPhotos: count)
    }

    /// What was asked: a seed, a hero's number (1 = the first photo) and a crop as a share.
    struct Values {
        var seed: Double?
        var hero: Int?
        var maximumCrop: Double?
        var anyOrder = false
    }

    /// The values when `auto` (the layout is `auto`); otherwise a usage error if any was given.
    static func parse(_ arguments: ParsedArguments, auto: Bool) throws(Failure) -> Values? {
        guard auto else {
            for option in specs where arguments.value(option.name) != nil || arguments.has(option.name) {
                throw .usage("\(option.name) only applies with --layout auto")
            }
            return nil
        }
        var values = Values()
        // `make` lays out without an ArrangeRequest, so the seed is checked here as it checks it.
        values.seed = try arguments.value("--seed", expected: "a whole number from 0 to 2^53") { text in
            Double(decimal: text).flatMap {
                $0 >= 0 && $0 <= Double(Arrangement.maximumSeed) && $0.rounded() == $0 ? $0 : nil
            }
        }
        values.hero = try arguments.value("--hero", expected: "the number of one of the photos (1 is the first)") {
            text in Int(text).flatMap { $0 >= 1 ? $0 : nil }
        }
        values.maximumCrop = try arguments.value("--max-crop", expected: "a percentage of a photo from 0 to 50") {
            text in
            Double(decimal: text.hasSuffix("%") ? String(text.dropLast()) : text).flatMap {
                $0 >= 0 && $0 <= 50 ? $0 / 100 : nil
            }
        }
        values.anyOrder = arguments.has("--any-order")
        return values
    }

    /// The values as CollageKit's request.
    static func request(_ values: Values, version: Int? = nil) throws(Failure) -> ArrangeRequest {
        do {
            return try ArrangeRequest(
                seed: values.seed, hero: values.hero.map { .number($0) }, maximumCrop: values.maximumCrop,
                keepsOrder: values.anyOrder ? false : nil, version: version)
        } catch {
            throw error.spelled(["maximumCrop": "max-crop"])
        }
    }
}
