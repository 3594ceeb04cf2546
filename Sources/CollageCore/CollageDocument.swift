import Foundation

/// The versioned JSON form of a collage (`"format": "collage", "version": 1`).
///
/// Reading checks everything at once and reports each problem with its path, e.g.
/// `items[2].frame.width: expected a number > 0, got -5`. Writing sorts keys, so the same
/// collage always gives the same bytes, and reading what was written gives the same collage.
public enum CollageDocument {
    /// The value of the `format` field.
    public static let format = "collage"
    /// The newest format version this build reads and writes. Version 2 added `arrangement`,
    /// version 3 text items and sticker effects, version 4 an item's `look` (flip, opacity, filter, adjustments) and backgrounds other than a colour,
    /// version 5 a photo's shape, border and shadow in its look; older documents read as
    /// before, and a document is written with the oldest version that holds it, so older builds still read what they
    /// can show.
    public static let version = 5
    /// The largest canvas side a document may declare, in points.
    public static let maximumCanvasSide: Double = Limits.canvasSide.upperBound

    /// Reads a collage from JSON text.
    /// - Throws: ``DocumentError`` with a syntax error, or every problem found.
    public static func decode(_ data: Data) throws(DocumentError) -> Collage {
        try decode(try DocumentError.parse(data))
    }

    /// Reads a collage from a parsed JSON value.
    public static func decode(_ value: JSONValue) throws(DocumentError) -> Collage {
        var reader = JSONReader()
        let collage = read(value, with: &reader)
        guard reader.issues.isEmpty, let collage else { throw .invalid(reader.issues) }
        return collage
    }

    /// Every problem that would stop `collage` from reading this collage back, or from rendering
    /// it: the same checks as ``decode(_:)-(Data)``, for collages made in code or read from storage.
    public static func issues(in collage: Collage) -> [DocumentIssue] {
        do {
            _ = try decode(jsonValue(of: collage))
            return []
        } catch {
            return error.issues
        }
    }

    /// Writes a collage as JSON text (sorted keys, two-space indent, trailing newline).
    public static func encode(_ collage: Collage, pretty: Bool = true) -> Data {
        var bytes = jsonValue(of: collage).utf8(pretty: pretty)
        if pretty { bytes.append(UInt8(ascii: "\n")) }
        return Data(bytes)
    }

    /// A collage as a JSON value, for embedding in a larger response.
    public static func jsonValue(of collage: Collage) -> JSONValue {
        var members: [String: JSONValue] = [
            "format": .string(format),
            "version": .number(Double(oldestVersion(holding: collage))),
            "id": .string(collage.id),
            "title": .string(collage.title),
            "created": .string(DateText.format(collage.created)),
            "updated": .string(DateText.format(collage.updated)),
            "canvas": .object(["width": .number(collage.canvas.width), "height": .number(collage.canvas.height)]),
            "style": jsonValue(of: collage.style),
            "items": .array(collage.items.map(jsonValue(of:))),
        ]
        if let templateID = collage.templateID { members["template"] = .string(templateID) }
        if let arrangement = collage.arrangement { members["arrangement"] = jsonValue(of: arrangement) }
        return .object(members)
    }

    /// The oldest format version that holds everything in `collage`.
    public static func oldestVersion(holding collage: Collage) -> Int {
        // A layout with shaped slots is version 5 too: an older build does not know it.
        if collage.items.contains(where: { $0.look.isFramed }) || collage.style.background.photoContent != nil
            || collage.template.map({ !$0.shapes.isEmpty }) == true
        {
            return 5
        }
        if collage.items.contains(where: { !$0.look.isPlain }) || collage.style.background.solidColor == nil {
            return 4
        }
        if collage.items.contains(where: { $0.content.textBlock != nil || $0.stickerStyle?.effect != nil }) { return 3 }
        return collage.arrangement == nil ? 1 : 2
    }

    /// An arrangement as `{"seed", "maximumCrop", "keepsOrder", "hero"?}`.
    public static func jsonValue(of arrangement: Arrangement) -> JSONValue {
        var members: [String: JSONValue] = [
            "seed": .number(Double(arrangement.seed)), "maximumCrop": .number(arrangement.maximumCrop),
            "keepsOrder": .bool(arrangement.keepsOrder),
        ]
        if let hero = arrangement.hero { members["hero"] = .string(hero) }
        return .object(members)
    }

    /// An arrangement read from its JSON value; `nil` when it is not one.
    public static func arrangement(from value: JSONValue) -> Arrangement? {
        var reader = JSONReader()
        let arrangement = readArrangement(value, at: "arrangement", with: &reader)
        return reader.issues.isEmpty ? arrangement : nil
    }

    /// Reads `{"seed", "maximumCrop"?, "hero"?}`.
    static func readArrangement(_ value: JSONValue?, at path: String, with reader: inout JSONReader) -> Arrangement? {
        guard let members = reader.object(value, at: path, known: ["seed", "maximumCrop", "keepsOrder", "hero"]) else {
            return nil
        }
        let seed = reader.number(
            members["seed"], at: reader.join(path, "seed"), expected: "a whole number from 0 to 2^53",
            rule: { $0 >= 0 && $0 <= Double(Arrangement.maximumSeed) && $0.rounded() == $0 })
        var arrangement = Arrangement()
        if let crop = members["maximumCrop"] {
            guard
                let value = reader.number(
                    crop, at: reader.join(path, "maximumCrop"), expected: "a share of a photo from 0 to 0.5",
                    rule: { (0...0.5).contains($0) })
            else { return nil }
            arrangement.maximumCrop = value
        }
        if let keeps = members["keepsOrder"] {
            guard case .bool(let flag) = keeps else {
                reader.fail(reader.join(path, "keepsOrder"), "expected true or false, got \(keeps.kindDescription)")
                return nil
            }
            arrangement.keepsOrder = flag
        }
        if let hero = members["hero"], hero != .null {
            arrangement.hero = reader.string(hero, at: reader.join(path, "hero"), maxLength: 128)
        }
        guard let seed else { return nil }
        arrangement.seed = UInt64(seed)
        return arrangement
    }

    /// An item as a JSON value.
    public static func jsonValue(of item: CollageItem) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(item.id),
            "content": jsonValue(of: item.content),
            "frame": jsonValue(of: item.frame),
            "rotation": .number(item.rotation.degrees),
        ]
        if let crop = item.crop { members["crop"] = jsonValue(of: crop) }
        if let slot = item.slot { members["slot"] = .number(Double(slot)) }
        if let style = item.stickerStyle { members["stickerStyle"] = jsonValue(of: style) }
        if !item.look.isPlain { members["look"] = jsonValue(of: item.look) }
        return .object(members)
    }

    /// A look as `{"flipHorizontal"?, "flipVertical"?, "opacity"?, "filter"?, "adjustments"?,
    /// "shape"?, "border"?, "shadow"?}`, with only what differs from plain.
    public static func jsonValue(of look: ItemLook) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if look.flipsHorizontally { members["flipHorizontal"] = .bool(true) }
        if look.flipsVertically { members["flipVertical"] = .bool(true) }
        if look.opacity != 1 { members["opacity"] = .number(look.opacity) }
        if !look.adjustments.isAsShot { members["adjustments"] = jsonValue(of: look.adjustments) }
        if let filter = look.filter {
            members["filter"] = .object(["id": .string(filter.id), "strength": .number(filter.strength)])
        }
        if look.shape != .rectangle { members["shape"] = .string(look.shape.rawValue) }
        if let border = look.border {
            members["border"] = .object([
                "style": .string(border.style.rawValue), "width": .number(border.width),
                "color": .string(border.color.hexString),
            ])
        }
        if let shadow = look.shadow { members["shadow"] = jsonValue(of: shadow) }
        return .object(members)
    }

    /// Adjustments as an object of the changed ones only, by name: `{"exposure": 20, "warmth": -15}`.
    public static func jsonValue(of adjustments: Adjustments) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for field in Adjustments.fields where adjustments[keyPath: field.keyPath] != 0 {
            members[field.name] = .number(adjustments[keyPath: field.keyPath])
        }
        return .object(members)
    }

    /// A look read from its JSON value; `nil` when it is not one (the library's column, say, damaged).
    public static func look(from value: JSONValue) -> ItemLook? {
        var reader = JSONReader()
        let look = readLook(value, at: "look", with: &reader)
        return reader.issues.isEmpty ? look : nil
    }

    /// Reads `{"flipHorizontal"?, "flipVertical"?, "opacity"?, "filter"?, "adjustments"?}`; what is
    /// left out is as plain.
    static func readLook(_ value: JSONValue?, at path: String, with reader: inout JSONReader) -> ItemLook? {
        guard
            let members = reader.object(
                value, at: path,
                known: [
                    "flipHorizontal", "flipVertical", "opacity", "adjustments", "filter", "shape", "border", "shadow",
                ])
        else { return nil }
        var look = ItemLook()
        let issuesBefore = reader.issues.count
        for (key, keyPath) in [("flipHorizontal", \ItemLook.flipsHorizontally), ("flipVertical", \.flipsVertically)] {
            guard let field = members[key] else { continue }
            guard case .bool(let flag) = field else {
                reader.fail(reader.join(path, key), "expected true or false, got \(field.kindDescription)")
                continue
            }
            look[keyPath: keyPath] = flag
        }
        if let field = members["opacity"],
            let opacity = reader.number(
                field, at: reader.join(path, "opacity"),
                expected: "a number \(Limits.describe(Limits.itemOpacity)) (0 is invisible)",
                rule: { Limits.itemOpacity.contains($0) })
        {
            look.opacity = opacity
        }
        if let field = members["adjustments"], field != .null,
            let adjustments = reader.object(
                field, at: reader.join(path, "adjustments"), known: Adjustments.fields.map(\.name))
        {
            for entry in Adjustments.fields {
                guard let value = adjustments[entry.name] else { continue }
                if let number = reader.number(
                    value, at: reader.join(reader.join(path, "adjustments"), entry.name),
                    expected: "a number \(Limits.describe(entry.range))", rule: { entry.range.contains($0) })
                {
                    look.adjustments[keyPath: entry.keyPath] = number
                }
            }
        }
        if let field = members["filter"], field != .null {
            let filterPath = reader.join(path, "filter")
            if let filter = reader.object(field, at: filterPath, known: ["id", "strength"]),
                let id = reader.string(filter["id"], at: reader.join(filterPath, "id"), maxLength: 64)
            {
                var choice = FilterChoice(id: id)
                if let strength = filter["strength"] {
                    choice.strength =
                        reader.number(
                            strength, at: reader.join(filterPath, "strength"), expected: "a number from 0 to 1",
                            rule: { (0...1).contains($0) }) ?? 1
                }
                if Filter.named(id) == nil, let problem = choice.problem {
                    reader.fail(reader.join(filterPath, "id"), problem)
                }
                look.filter = choice
            }
        }
        if let field = members["shape"], field != .null,
            let id = reader.string(field, at: reader.join(path, "shape"), maxLength: 64)
        {
            if let shape = PhotoShape.named(id) {
                look.shape = shape
            } else {
                reader.fail(
                    reader.join(path, "shape"), "no shape named \"\(id)\"; expected one of \(PhotoShape.idList)")
            }
        }
        if let field = members["border"], field != .null {
            let borderPath = reader.join(path, "border")
            if let border = reader.object(field, at: borderPath, known: ["style", "width", "color"]) {
                var read = PhotoBorder()
                if let style = border["style"].flatMap({ reader.string($0, at: reader.join(borderPath, "style")) }) {
                    if let known = PhotoBorder.Style(rawValue: style) {
                        read.style = known
                    } else {
                        reader.fail(
                            reader.join(borderPath, "style"), "expected line or polaroid, got \"\(style.prefix(60))\"")
                    }
                }
                if let width = border["width"] {
                    read.width =
                        reader.number(
                            width, at: reader.join(borderPath, "width"),
                            expected: "a width in points \(Limits.describe(Limits.photoBorder))",
                            rule: { Limits.photoBorder.contains($0) }) ?? read.width
                }
                if let color = border["color"] {
                    read.color = readColor(color, at: reader.join(borderPath, "color"), with: &reader) ?? read.color
                }
                look.border = read
            }
        }
        if let field = members["shadow"], field != .null {
            look.shadow = readShadow(field, at: reader.join(path, "shadow"), with: &reader)
        }
        return reader.issues.count == issuesBefore ? look : nil
    }

    /// A date as documents write it: UTC ISO 8601 with milliseconds.
    public static func jsonDate(_ date: Date) -> String { DateText.format(date) }

    /// A style as `{"background", "spacing", "padding", "cornerRadius"}`.
    public static func jsonValue(of style: Style) -> JSONValue {
        .object([
            "background": .string(style.background.description), "spacing": .number(style.spacing),
            "padding": .number(style.padding), "cornerRadius": .number(style.cornerRadius),
        ])
    }

    /// A crop as `{"focus": {"x", "y"}, "zoom"}`.
    public static func jsonValue(of crop: Crop) -> JSONValue {
        .object([
            "focus": .object(["x": .number(crop.focus.x), "y": .number(crop.focus.y)]), "zoom": .number(crop.zoom),
        ])
    }

    /// A sticker style as `{"outline", "shadow", "effect"?}`.
    public static func jsonValue(of style: StickerStyle) -> JSONValue {
        var members: [String: JSONValue] = ["outline": .number(style.outlineWidth), "shadow": .bool(style.shadow)]
        if let effect = style.effect { members["effect"] = .string(effect.rawValue) }
        return .object(members)
    }

    /// Content as `{"type": "photo" | "sticker", "ref"}`, or `{"type": "text", "text", "font", …}`.
    public static func jsonValue(of content: ItemContent) -> JSONValue {
        switch content {
        case .photo(let reference), .sticker(let reference):
            return .object(["type": .string(content.kind), "ref": .string(reference)])
        case .text(let block):
            guard case .object(var members) = jsonValue(of: block) else { return .null }
            members["type"] = .string(content.kind)
            return .object(members)
        }
    }

    /// A text block's fields, as a text item's content holds them beside `"type": "text"`.
    public static func jsonValue(of block: TextBlock) -> JSONValue {
        var members: [String: JSONValue] = [
            "text": .string(block.text), "font": .string(block.font), "weight": .number(Double(block.weight)),
            "italic": .bool(block.italic), "size": .number(block.size), "color": .string(block.color.hexString),
            "align": .string(block.alignment.rawValue), "lineSpacing": .number(block.lineSpacing),
            "letterSpacing": .number(block.letterSpacing),
        ]
        if let background = block.background {
            members["background"] = .object([
                "color": .string(background.color.hexString), "opacity": .number(background.opacity),
                "cornerRadius": .number(background.cornerRadius), "padding": .number(background.padding),
            ])
        }
        if let outline = block.outline {
            members["outline"] = .object(["color": .string(outline.color.hexString), "width": .number(outline.width)])
        }
        if let shadow = block.shadow {
            members["shadow"] = jsonValue(of: shadow)
        }
        return .object(members)
    }

    /// A text block read from the JSON of a text item's content (with or without its `type`).
    /// - Throws: ``DocumentError`` naming every problem with its field.
    public static func textBlock(from value: JSONValue) throws(DocumentError) -> TextBlock {
        var reader = JSONReader()
        var fields = value
        if case .object(var members) = value {
            members["type"] = nil
            fields = .object(members)
        }
        let block = readTextBlock(fields, at: "", with: &reader)
        guard reader.issues.isEmpty, let block else { throw .invalid(reader.issues) }
        return block
    }

    /// A rectangle as `{"x", "y", "width", "height"}`.
    public static func jsonValue(of rect: Rect) -> JSONValue {
        .object([
            "x": .number(rect.x), "y": .number(rect.y), "width": .number(rect.width), "height": .number(rect.height),
        ])
    }

    /// Dates are written as UTC ISO 8601 with exactly three fraction digits. The milliseconds are
    /// handled here rather than by the formatter, whose fraction truncates binary fractions
    /// (.123 can come back as .122) and would break exact round trips.
    enum DateText {
        /// Seconds from 1970 to 0001-01-01T00:00:00Z and to 9999-12-31T23:59:59Z: the years
        /// ISO 8601 writes with four digits.
        static let earliestSecond: Int64 = -62_135_596_800
        static let latestSecond: Int64 = 253_402_300_799
        /// 1583-01-01T00:00:00Z. Before it Foundation counts in the Julian calendar (the
        /// Gregorian one began in October 1582), and dates that old (only ever from a damaged
        /// library) are left to it, so they read and write as they always have.
        static let firstGregorianSecond: Int64 = -12_212_553_600

        // Written by hand rather than with `Date.ISO8601FormatStyle`: every edit writes and reads
        // its collage's two dates several times (the check, the history step, the answer), and
        // the formatter was a tenth of an edit's time.
        static func format(_ date: Date) -> String {
            // A date read from a damaged library can be anything; years 0001–9999 are what ISO 8601 writes.
            let raw = (date.timeIntervalSince1970 * 1000).rounded()
            let lowest = Double(earliestSecond * 1000)
            let highest = Double(latestSecond * 1000)
            let milliseconds = Int64(raw.isFinite ? min(highest, max(lowest, raw)) : 0)
            let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let (wholeSeconds, positiveFraction) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(24)
            if wholeSeconds < firstGregorianSecond {
                // Foundation's "…:SSZ", its "Z" left for after the fraction.
                bytes += Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(wholeSeconds))).utf8
                    .dropLast()
            } else {
                let (days, secondOfDay) = floorDivision(wholeSeconds, by: 86_400)
                let (year, month, day) = civilDate(daysSince1970: days)
                append(year, digits: 4, to: &bytes)
                bytes.append(UInt8(ascii: "-"))
                append(month, digits: 2, to: &bytes)
                bytes.append(UInt8(ascii: "-"))
                append(day, digits: 2, to: &bytes)
                bytes.append(UInt8(ascii: "T"))
                append(secondOfDay / 3600, digits: 2, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                append(secondOfDay / 60 % 60, digits: 2, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                append(secondOfDay % 60, digits: 2, to: &bytes)
            }
            bytes.append(UInt8(ascii: "."))
            append(positiveFraction, digits: 3, to: &bytes)
            bytes.append(UInt8(ascii: "Z"))
            return String(decoding: bytes, as: UTF8.self)
        }

        static func parse(_ text: String) -> Date? {
            var whole = text
            var milliseconds = 0.0
            if let dot = text.firstIndex(of: "."), text.hasSuffix("Z") {
                let digits = text[text.index(after: dot)..<text.index(before: text.endIndex)]
                guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                    let value = Double("0." + digits)
                else { return nil }
                milliseconds = (value * 1000).rounded()
                whole = String(text[..<dot]) + "Z"
            }
            // What documents write is read by hand; anything else is left to Foundation, which
            // decides as it always has.
            guard let seconds = plainSeconds(whole) ?? foundationSeconds(whole) else { return nil }
            return Date(timeIntervalSince1970: seconds + milliseconds / 1000)
        }

        private static func foundationSeconds(_ text: String) -> Double? {
            (try? Date.ISO8601FormatStyle().parse(text))?.timeIntervalSince1970
        }

        /// `YYYY-MM-DDTHH:MM:SSZ` from 1583 on with every field in range, as seconds since 1970;
        /// `nil` for any other text.
        static func plainSeconds(_ text: String) -> Double? {
            let bytes = Array(text.utf8)
            guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                bytes[19] == UInt8(ascii: "Z"),
                let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
                let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
                year >= 1583, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24,
                minute < 60, second < 60
            else { return nil }
            let days = daysSince1970(year: year, month: month, day: day)
            return Double(days * 86_400 + hour * 3600 + minute * 60 + second)
        }

        private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }

        private static func append(_ value: Int64, digits: Int, to bytes: inout [UInt8]) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }

        private static func floorDivision(_ value: Int64, by divisor: Int64) -> (Int64, Int64) {
            let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
            return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
        }

        private static func daysIn(month: Int64, year: Int64) -> Int64 {
            switch month {
            case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
            case 4, 6, 9, 11: return 30
            default: return 31
            }
        }

        // The proleptic Gregorian calendar counted in 400-year eras of 146,097 days, each
        // starting on 1 March so that the leap day falls at the end of its year.
        private static let daysPerEra: Int64 = 146_097
        /// 1970-01-01 counted from 0000-03-01.
        private static let epochShift: Int64 = 719_468

        static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
            let marchYear = month <= 2 ? year - 1 : year
            let (era, yearOfEra) = floorDivision(marchYear, by: 400)
            let monthFromMarch = (month + 9) % 12
            let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * daysPerEra + dayOfEra - epochShift
        }

        static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
            let (era, dayOfEra) = floorDivision(days + epochShift, by: daysPerEra)
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / (daysPerEra - 1)) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthFromMarch = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
            let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
            return (era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day)
        }
    }

    private static func read(_ value: JSONValue, with reader: inout JSONReader) -> Collage? {
        let fields = [
            "format", "version", "id", "title", "created", "updated", "canvas", "style", "template", "items",
            "arrangement",
        ]
        guard let root = reader.object(value, at: "", known: fields) else { return nil }
        if let format = reader.string(root["format"], at: "format"), format != self.format {
            reader.fail("format", "expected \"\(self.format)\", got \"\(format)\"")
        }
        if let version = reader.integer(root["version"], at: "version", in: 1...Int(Int32.max)),
            version > self.version
        {
            reader.fail(
                "version",
                "version \(version) is newer than this Collage reads (up to \(self.version)); update Collage")
        }
        let id = reader.string(root["id"], at: "id", maxLength: 128)
        let title = reader.string(
            root["title"], at: "title", nonEmpty: false, maxLength: EditRules.maximumTitleLength)
        let created = readDate(root["created"], at: "created", with: &reader)
        let updated = readDate(root["updated"], at: "updated", with: &reader)
        let canvas = readCanvas(root["canvas"], with: &reader)
        let style = root["style"].map { readStyle($0, with: &reader) } ?? Style()
        var template: Template?
        if let templateValue = root["template"], templateValue != .null,
            let templateID = reader.string(templateValue, at: "template")
        {
            template = Template.named(templateID)
            if template == nil {
                reader.fail(
                    "template",
                    "no template named \"\(templateID)\"; expected one of "
                        + Template.catalog.map(\.id).joined(separator: ", "))
            }
        }
        var items: [CollageItem] = []
        if let elements = reader.array(root["items"], at: "items") {
            for (index, element) in elements.enumerated() {
                if let item = readItem(element, at: "items[\(index)]", template: template, with: &reader) {
                    items.append(item)
                }
            }
            checkUnique(items, with: &reader)
            if elements.count > Limits.maximumItems {
                reader.fail("items", "a collage holds at most \(Limits.maximumItems) items, got \(elements.count)")
            }
        }
        var arrangement: Arrangement?
        if let value = root["arrangement"], value != .null {
            arrangement = readArrangement(value, at: "arrangement", with: &reader)
            if let hero = arrangement?.hero, !items.contains(where: { $0.id == hero }) {
                reader.fail("arrangement.hero", "no item has the id \"\(hero.prefix(40))\"")
            }
        }
        guard let id, let title, let created, let updated, let canvas, let style else { return nil }
        for (index, item) in items.enumerated() {
            checkFrame(item.frame, on: canvas, at: "items[\(index)].frame", with: &reader)
            if let problem = item.content.textBlock?.problem(inWidth: item.frame.width, canvasHeight: canvas.height) {
                reader.fail("items[\(index)].content.text", problem)
            }
        }
        return Collage(
            id: id, title: title, created: created, updated: updated, canvas: canvas, style: style,
            templateID: template?.id, items: items, arrangement: arrangement)
    }

    /// A frame may reach ``Limits/canvasMultiple`` canvases in size and distance, no further: the
    /// same bound edits keep, and what keeps every item's pixels countable at any output size.
    private static func checkFrame(_ frame: Rect, on canvas: Size, at path: String, with reader: inout JSONReader) {
        let multiple = Limits.canvasMultiple
        let times = "\(JSONValue.format(multiple)) times the canvas"
        if frame.width > canvas.width * multiple {
            reader.fail("\(path).width", "expected at most \(times), got \(JSONValue.format(frame.width))")
        }
        if frame.height > canvas.height * multiple {
            reader.fail("\(path).height", "expected at most \(times), got \(JSONValue.format(frame.height))")
        }
        if abs(frame.x) > canvas.width * multiple {
            reader.fail("\(path).x", "expected within \(times) of the canvas, got \(JSONValue.format(frame.x))")
        }
        if abs(frame.y) > canvas.height * multiple {
            reader.fail("\(path).y", "expected within \(times) of the canvas, got \(JSONValue.format(frame.y))")
        }
    }

    private static func checkUnique(_ items: [CollageItem], with reader: inout JSONReader) {
        var seenIDs: [String: Int] = [:]
        var seenSlots: [Int: Int] = [:]
        for (index, item) in items.enumerated() {
            if let first = seenIDs[item.id] {
                reader.fail("items[\(index)].id", "\"\(item.id)\" is already the id of items[\(first)]")
            } else {
                seenIDs[item.id] = index
            }
            guard let slot = item.slot else { continue }
            if let first = seenSlots[slot] {
                reader.fail("items[\(index)].slot", "slot \(slot) is already filled by items[\(first)]")
            } else {
                seenSlots[slot] = index
            }
        }
    }

    private static func readDate(_ value: JSONValue?, at path: String, with reader: inout JSONReader) -> Date? {
        guard let text = reader.string(value, at: path) else { return nil }
        if let date = DateText.parse(text) { return date.roundedToMilliseconds }
        reader.fail(path, "expected an ISO 8601 date such as \"2026-01-31T09:30:00.000Z\", got \"\(text)\"")
        return nil
    }

    private static func readCanvas(_ value: JSONValue?, with reader: inout JSONReader) -> Size? {
        guard let members = reader.object(value, at: "canvas", known: ["width", "height"]) else { return nil }
        let limit = "a number of points \(Limits.describe(Limits.canvasSide))"
        let width = reader.number(
            members["width"], at: "canvas.width", expected: limit, rule: { Limits.canvasSide.contains($0) })
        let height = reader.number(
            members["height"], at: "canvas.height", expected: limit, rule: { Limits.canvasSide.contains($0) })
        guard let width, let height else { return nil }
        return Size(width: width, height: height)
    }

    static func readStyle(_ value: JSONValue, at path: String = "style", with reader: inout JSONReader) -> Style? {
        guard
            let members = reader.object(
                value, at: path, known: ["background", "spacing", "padding", "cornerRadius"])
        else { return nil }
        var style = Style()
        if let text = members["background"].flatMap({ reader.string($0, at: "\(path).background") }) {
            do {
                style.background = try Background(parsing: text)
            } catch {
                reader.fail("\(path).background", error.description)
            }
        }
        let range = "a number from 0 to \(JSONValue.format(Style.maximumLength))"
        let inRange: (Double) -> Bool = { $0 >= 0 && $0 <= Style.maximumLength }
        for (key, keyPath) in [
            ("spacing", \Style.spacing), ("padding", \Style.padding), ("cornerRadius", \Style.cornerRadius),
        ] {
            guard let field = members[key] else { continue }
            if let number = reader.number(field, at: "\(path).\(key)", expected: range, rule: inRange) {
                style[keyPath: keyPath] = number
            }
        }
        return style
    }

    private static func readItem(
        _ value: JSONValue, at path: String, template: Template?, with reader: inout JSONReader
    ) -> CollageItem? {
        guard
            let members = reader.object(
                value, at: path, known: ["id", "content", "frame", "rotation", "crop", "slot", "stickerStyle", "look"])
        else { return nil }
        let id = reader.string(members["id"], at: "\(path).id", maxLength: 128)
        let content = readContent(members["content"], at: "\(path).content", with: &reader)
        let frame = readFrame(members["frame"], at: "\(path).frame", with: &reader)
        var rotation = Angle.zero
        if let field = members["rotation"],
            let degrees = reader.number(
                field, at: "\(path).rotation", expected: "a number of degrees", rule: { $0.isFinite })
        {
            rotation = Angle(degrees: degrees)
        }
        var crop: Crop?
        if let field = members["crop"], field != .null {
            crop = readCrop(field, at: "\(path).crop", with: &reader)
            if crop != nil, let content, content.kind != "photo" {
                reader.fail("\(path).crop", "only photos are cropped; this item is a \(content.kind)")
            }
        }
        var slot: Int?
        if let field = members["slot"], field != .null {
            if let template {
                slot = reader.integer(field, at: "\(path).slot", in: 0...(template.slotCount - 1))
            } else {
                reader.fail("\(path).slot", "the document has no template, so items cannot fill slots")
            }
        }
        var stickerStyle: StickerStyle?
        if let field = members["stickerStyle"], field != .null {
            stickerStyle = readStickerStyle(field, at: "\(path).stickerStyle", with: &reader)
            if stickerStyle != nil, let content, content.kind != "sticker" {
                reader.fail(
                    "\(path).stickerStyle", "only stickers have this outline and shadow; this item is a \(content.kind)"
                )
            }
        }
        var look = ItemLook.plain
        if let field = members["look"], field != .null,
            let read = readLook(field, at: "\(path).look", with: &reader)
        {
            look = read
            if let content, let problem = read.problem(for: content) { reader.fail("\(path).look", problem) }
        }
        guard let id, let content, let frame else { return nil }
        return CollageItem(
            id: id, content: content, frame: frame, rotation: rotation, crop: crop, slot: slot,
            stickerStyle: stickerStyle, look: look)
    }

    static func readContent(
        _ value: JSONValue?, at path: String, with reader: inout JSONReader
    )
        -> ItemContent?
    {
        if case .object(let members) = value, members["type"] == .string("text") {
            var fields = members
            fields["type"] = nil
            return readTextBlock(.object(fields), at: path, with: &reader).map(ItemContent.text)
        }
        guard let members = reader.object(value, at: path, known: ["type", "ref"]) else { return nil }
        let type = reader.string(members["type"], at: "\(path).type")
        let reference = reader.string(members["ref"], at: "\(path).ref")
        guard let type, let reference else { return nil }
        switch type {
        case "photo": return .photo(reference)
        case "sticker": return .sticker(reference)
        default:
            reader.fail("\(path).type", "expected \"photo\", \"sticker\" or \"text\", got \"\(type.prefix(40))\"")
            return nil
        }
    }

    static let textFields = [
        "text", "font", "weight", "italic", "size", "color", "align", "lineSpacing", "letterSpacing", "background",
        "outline", "shadow",
    ]

    /// Reads a text block's fields; every field but `text` is optional, taking ``TextBlock``'s default.
    static func readTextBlock(_ value: JSONValue, at path: String, with reader: inout JSONReader) -> TextBlock? {
        guard let members = reader.object(value, at: path, known: ["type"] + textFields) else { return nil }
        let issuesBefore = reader.issues.count
        func field(_ name: String) -> String { reader.join(path, name) }
        func color(_ value: JSONValue?, at name: String) -> Color? {
            guard let value else { return nil }
            return readColor(value, at: field(name), with: &reader)
        }
        func flag(_ value: JSONValue?, at name: String) -> Bool? {
            guard let value else { return nil }
            guard case .bool(let flag) = value else {
                reader.fail(field(name), "expected true or false, got \(value.kindDescription)")
                return nil
            }
            return flag
        }
        func object(_ name: String, known: [String]) -> [String: JSONValue]? {
            guard let value = members[name], value != .null else { return nil }
            return reader.object(value, at: field(name), known: known)
        }
        // Ranges are checked once, by TextBlock.problems, so edits and documents say the same.
        func number(_ value: JSONValue?, at name: String) -> Double? {
            guard let value else { return nil }
            return reader.number(value, at: field(name), rule: { $0.isFinite })
        }
        let text = reader.string(members["text"], at: field("text"), nonEmpty: false, maxLength: Int.max)
        var block = TextBlock(text: text ?? "")
        if let font = members["font"].flatMap({ reader.string($0, at: field("font"), maxLength: 200) }) {
            block.font = TextFont.named(font)?.family ?? font
        }
        if let weight = members["weight"] {
            block.weight = reader.integer(weight, at: field("weight"), in: Limits.textWeight) ?? block.weight
        }
        block.italic = flag(members["italic"], at: "italic") ?? block.italic
        block.size = number(members["size"], at: "size") ?? block.size
        block.color = color(members["color"], at: "color") ?? block.color
        if let align = members["align"].flatMap({ reader.string($0, at: field("align"), maxLength: 32) }) {
            if let alignment = TextAlignment(rawValue: align) {
                block.alignment = alignment
            } else {
                reader.fail(field("align"), "expected \"left\", \"center\" or \"right\", got \"\(align)\"")
            }
        }
        block.lineSpacing = number(members["lineSpacing"], at: "lineSpacing") ?? block.lineSpacing
        block.letterSpacing = number(members["letterSpacing"], at: "letterSpacing") ?? block.letterSpacing
        if let background = object("background", known: ["color", "opacity", "cornerRadius", "padding"]) {
            var box = TextBackground()
            box.color = color(background["color"], at: "background.color") ?? box.color
            box.opacity = number(background["opacity"], at: "background.opacity") ?? box.opacity
            box.cornerRadius = number(background["cornerRadius"], at: "background.cornerRadius") ?? box.cornerRadius
            box.padding = number(background["padding"], at: "background.padding") ?? box.padding
            block.background = box
        }
        if let outline = object("outline", known: ["color", "width"]) {
            var line = TextOutline()
            line.color = color(outline["color"], at: "outline.color") ?? line.color
            line.width = number(outline["width"], at: "outline.width") ?? line.width
            block.outline = line
        }
        if let shadow = members["shadow"], shadow != .null {
            block.shadow = readShadow(shadow, at: field("shadow"), with: &reader)
        }
        guard text != nil, reader.issues.count == issuesBefore else { return nil }
        for problem in block.problems { reader.fail(field(problem.field), problem.message) }
        return reader.issues.count == issuesBefore ? block : nil
    }

    /// A polygon as one flat array `[x0, y0, x1, y1, …]`: the compact form the editor reads outlines in.
    public static func flatJSONValue(of points: [Point]) -> JSONValue {
        .array(points.flatMap { [JSONValue.number($0.x), .number($0.y)] })
    }

    /// A shadow as `{"color", "blur", "x", "y"}`.
    public static func jsonValue(of shadow: DropShadow) -> JSONValue {
        .object([
            "color": .string(shadow.color.hexString), "blur": .number(shadow.blur), "x": .number(shadow.offset.x),
            "y": .number(shadow.offset.y),
        ])
    }

    /// Reads `{"color"?, "blur"?, "x"?, "y"?}`; what is left out takes ``DropShadow``'s default, and
    /// the ranges are checked where the shadow is used (a text's or a photo's rules).
    static func readShadow(_ value: JSONValue, at path: String, with reader: inout JSONReader) -> DropShadow? {
        guard let members = reader.object(value, at: path, known: ["color", "blur", "x", "y"]) else { return nil }
        var cast = DropShadow()
        if let color = members["color"] {
            cast.color = readColor(color, at: reader.join(path, "color"), with: &reader) ?? cast.color
        }
        for (name, keyPath) in [("blur", \DropShadow.blur), ("x", \.offset.x), ("y", \.offset.y)] {
            if let number = members[name].flatMap({
                reader.number($0, at: reader.join(path, name), rule: { $0.isFinite })
            }) {
                cast[keyPath: keyPath] = number
            }
        }
        return cast
    }

    /// A colour written as `#rrggbb` or `#rrggbbaa` (see ``Color/init(parsing:)``).
    static func readColor(_ value: JSONValue, at path: String, with reader: inout JSONReader) -> Color? {
        guard let text = reader.string(value, at: path, maxLength: 32) else { return nil }
        guard let color = Color(parsing: text) else {
            reader.fail(path, "expected a colour such as \"#1f1f1f\", got \"\(text)\"")
            return nil
        }
        return color
    }

    static func readFrame(_ value: JSONValue?, at path: String, with reader: inout JSONReader) -> Rect? {
        guard let members = reader.object(value, at: path, known: ["x", "y", "width", "height"]) else { return nil }
        let x = reader.number(members["x"], at: "\(path).x", rule: { $0.isFinite })
        let y = reader.number(members["y"], at: "\(path).y", rule: { $0.isFinite })
        let width = reader.number(members["width"], at: "\(path).width", expected: "a number > 0", rule: { $0 > 0 })
        let height = reader.number(
            members["height"], at: "\(path).height", expected: "a number > 0", rule: { $0 > 0 })
        guard let x, let y, let width, let height else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
    }

    static func readStickerStyle(
        _ value: JSONValue, at path: String, with reader: inout JSONReader
    )
        -> StickerStyle?
    {
        guard let members = reader.object(value, at: path, known: ["outline", "shadow", "effect"]) else { return nil }
        var style = StickerStyle(outlineWidth: 0, shadow: false)
        if let field = members["outline"],
            let width = reader.number(
                field, at: "\(path).outline",
                expected: "a number from 0 to \(JSONValue.format(StickerStyle.maximumOutlineWidth))",
                rule: { (0...StickerStyle.maximumOutlineWidth).contains($0) })
        {
            style.outlineWidth = width
        }
        if let field = members["shadow"] {
            if case .bool(let shadow) = field {
                style.shadow = shadow
            } else {
                reader.fail("\(path).shadow", "expected true or false, got \(field.kindDescription)")
            }
        }
        if let field = members["effect"], field != .null,
            let name = reader.string(field, at: "\(path).effect", maxLength: 40)
        {
            if let effect = StickerEffect(rawValue: name) {
                style.effect = effect
            } else {
                reader.fail(
                    "\(path).effect",
                    "expected one of \(StickerEffect.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), "
                        + "got \"\(name)\"")
            }
        }
        return style
    }

    static func readCrop(_ value: JSONValue, at path: String, with reader: inout JSONReader) -> Crop? {
        guard let members = reader.object(value, at: path, known: ["focus", "zoom"]) else { return nil }
        var crop = Crop()
        if let focusValue = members["focus"],
            let focus = reader.object(focusValue, at: "\(path).focus", known: ["x", "y"])
        {
            let unit: (Double) -> Bool = { (0...1).contains($0) }
            let x = reader.number(focus["x"], at: "\(path).focus.x", expected: "a number from 0 to 1", rule: unit)
            let y = reader.number(focus["y"], at: "\(path).focus.y", expected: "a number from 0 to 1", rule: unit)
            if let x, let y { crop.focus = Point(x: x, y: y) }
        }
        if let zoomValue = members["zoom"],
            let zoom = reader.number(
                zoomValue, at: "\(path).zoom",
                expected: "a number from \(JSONValue.format(Crop.zoomRange.lowerBound)) to "
                    + JSONValue.format(Crop.zoomRange.upperBound),
                rule: { Crop.zoomRange.contains($0) })
        {
            crop.zoom = zoom
        }
        return crop
    }
}

/// Why a JSON document could not be read.
public enum DocumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The text is not JSON.
    case syntax(JSONSyntaxError)
    /// The JSON does not describe a valid document; every problem, each with its path.
    case invalid([DocumentIssue])

    /// Every problem, one per line.
    public var issues: [DocumentIssue] {
        switch self {
        case .syntax(let error): [DocumentIssue(path: "", message: error.description)]
        case .invalid(let issues): issues
        }
    }

    /// Every problem, one per line.
    public var description: String { issues.map(\.description).joined(separator: "\n") }

    /// Parses JSON text, a syntax error becoming this error type.
    static func parse(_ data: Data) throws(DocumentError) -> JSONValue {
        do {
            return try JSONValue.parse(data)
        } catch {
            throw .syntax(error)
        }
    }
}
