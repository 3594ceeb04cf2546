import CollageCore
import CollageKit

/// `--seed`, `--hero` and `--max-crop`: how `--layout auto` lays photos out, for `make`, `new`
/// and `layout`.
enum AutoLayoutArguments {
    /// The options, for each command's table.
    static let specs: [OptionSpec] = [
        .value("--seed", "N", "With --layout auto: another N, another good layout (default 0)"),
        .value("--hero", "K", "With --layout auto: photo K (1 = the first) is made clearly the largest"),
        .value(
            "--max-crop", "PCT", "With --layout auto: crop at most PCT % of a photo to fill the canvas (default 10)"),
        .flag("--any-order", "With --layout auto: the photos may go anywhere, not in reading order"),
    ]

    /// The free grids that hold exactly as many photos as their slots, by that count.
    private static let exactFits = [
        2: "sideBySide", 3: "strip", 4: "grid2x2", 6: "grid2x3", 9: "grid3x3", 12: "grid3x4", 16: "grid4x4",
    ]

    /// The `--layout` asked for, or when none is, the free grid with exactly as many slots as
    /// `count` photos, else a layout made for them (`auto`, as it is whenever `--seed`, `--hero`,
    /// `--max-crop` or `--any-order` asks for one). Two photos in a fixed 2 × 2 grid left half of
    /// the collage (and of a print) blank. No photos yet, or more than a layout can be made for,
    /// take the library's default template.
    static func layout(_ arguments: ParsedArguments, photos count: Int) -> String {
        if let named = arguments.value("--layout") { return named }
        let asksForAuto = specs.contains { arguments.value($0.name) != nil || arguments.has($0.name) }
        if let grid = exactFits[count], !asksForAuto { return grid }
        guard asksForAuto || (1...AutoLayout.Options.maximumPhotos).contains(count) else {
            return NewCollageRequest.defaultTemplate
        }
        return NewCollageRequest.automatic
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
