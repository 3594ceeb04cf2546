import Foundation

/// A JSON value, parsed or about to be written.
///
/// Collage reads documents through this tree rather than `Decodable` so that every problem
/// in a document can be reported at once, each with the path of the field that caused it.
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any JSON number.
    case number(Double)
    /// A string.
    case string(String)
    /// An ordered list of values.
    case array([JSONValue])
    /// An object; key order is not significant, and writing sorts keys.
    case object([String: JSONValue])

    /// Parses UTF-8 JSON text.
    /// - Throws: ``JSONSyntaxError`` naming the line, column and what was expected.
    public static func parse(_ data: Data) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        return try parser.parseDocument()
    }

    /// Parses JSON text from a string.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// The value as JSON text with sorted keys, so equal values always serialise identically.
    /// - Parameter pretty: indent nested values by two spaces, one member per line.
    public func serialized(pretty: Bool = true) -> String {
        String(decoding: utf8(pretty: pretty), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``serialized(pretty:)``: what a response body or a file holds, made
    /// without a `String` in between (every edit's answer is written this way).
    public func utf8(pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4_096)
        write(to: &out, indent: pretty ? 0 : nil)
        return out
    }

    /// A short description of the value's kind, used in error messages ("got a string").
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(let value): JSONValue.format(value)
        case .string(let value): "\"\(value.count > 40 ? String(value.prefix(40)) + "…" : value)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    private func write(to out: inout [UInt8], indent: Int?) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): JSONValue.writeNumber(value, to: &out)
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            writeContainer(values, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), to: &out, indent: indent) {
                value, out, indent in
                value.write(to: &out, indent: indent)
            }
        case .object(let members):
            let sorted = members.sorted { $0.key < $1.key }
            writeContainer(sorted, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), to: &out, indent: indent) {
                member, out, indent in
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                member.value.write(to: &out, indent: indent)
            }
        }
    }

    private func writeContainer<Element>(
        _ elements: [Element], open: UInt8, close: UInt8, to out: inout [UInt8], indent: Int?,
        writeElement: (Element, inout [UInt8], Int?) -> Void
    ) {
        out.append(open)
        guard !elements.isEmpty else {
            out.append(close)
            return
        }
        let inner = indent.map { $0 + 2 }
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if let inner {
                out.append(UInt8(ascii: "\n"))
                out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: inner))
            }
            writeElement(element, &out, inner)
        }
        if let indent {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent))
        }
        out.append(close)
    }

    /// ``format(_:)``'s text; whole numbers (most numbers in a document) are written digit by
    /// digit, without a `String` of their own.
    private static func writeNumber(_ value: Double, to out: inout [UInt8]) {
        guard let whole = wholeNumber(value) else {
            out.append(contentsOf: format(value).utf8)
            return
        }
        if whole < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude of any Int64 above -2⁶³ fits a UInt64, and 2⁶³ itself is excluded above.
        var magnitude = whole.magnitude
        var count = 1
        var power: UInt64 = 10
        while count < 19, magnitude >= power {
            count += 1
            power *= 10
        }
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        for index in stride(from: start + count - 1, through: start, by: -1) {
            out[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }

    /// Integers print without a fraction; other numbers use Swift's shortest round-tripping form.
    package static func format(_ value: Double) -> String {
        if let whole = wholeNumber(value) { return String(whole) }
        return value.isFinite ? "\(value)" : "null"
    }

    /// The value as an integer when it is written as one: every whole double below 2⁶³ in
    /// magnitude, so a version or seed of 2⁵³ reads back as the same number and never as
    /// `9007199254740992.0`.
    private static func wholeNumber(_ value: Double) -> Int64? {
        value.isFinite && value == value.rounded() && abs(value) < 0x1p63 ? Int64(value) : nil
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (ids, names, colours) need no escaping: they are copied whole, which is
        // what every edit's answer and every stored document spends most of its writing on.
        let utf8 = value.utf8
        if utf8.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out.append(contentsOf: utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            // Bytes of other scalars, multi-byte ones included, are copied as they are.
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// JSON text that could not be parsed.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line of the problem.
    public let line: Int
    /// 1-based column (in bytes) of the problem.
    public let column: Int
    /// What was wrong, e.g. "expected ',' or '}' after an object member".
    public let reason: String

    /// "line 3, column 7: expected …".
    public var description: String { "invalid JSON at line \(line), column \(column): \(reason)" }
}

/// A recursive-descent parser over UTF-8 bytes; deep nesting is bounded so hostile input cannot
/// exhaust the stack.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maximumDepth = 256

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw error("the document is empty") }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describeCurrent()) after the JSON value") }
        return value
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(describeCurrent())")
            }
            let key = try parseString()
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else {
                throw error("expected ':' after member name \"\(key)\", found \(describeCurrent())")
            }
            skipWhitespace()
            if members[key] != nil { throw error("duplicate member \"\(key)\"") }
            members[key] = try parseValue()
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "}")) { return .object(members) }
            throw error("expected ',' or '}' after an object member, found \(describeCurrent())")
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(values) }
        while true {
            skipWhitespace()
            values.append(try parseValue())
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            if consume(UInt8(ascii: "]")) { return .array(values) }
            throw error("expected ',' or ']' after an array element, found \(describeCurrent())")
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, upTo end: Int, into scalars: inout String.UnicodeScalarView) -> Bool {
            guard runStart < end else { return true }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard flush(self, upTo: index, into: &scalars) else { throw error("a string is not valid UTF-8") }
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("a control character must be escaped inside a string") }
            if byte == UInt8(ascii: "\\") {
                guard flush(self, upTo: index, into: &scalars) else { throw error("a string is not valid UTF-8") }
                index += 1
                scalars.append(try parseEscape())
                runStart = index
                continue
            }
            index += 1
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        guard index < bytes.count else { throw error("unterminated escape sequence") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")) else {
                    throw error("a high surrogate must be followed by a \\u low surrogate")
                }
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw error("invalid surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("a lone surrogate is not a character") }
            return scalar
        default:
            index -= 1
            throw error("invalid escape '\\\(describeCurrent())'")
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count,
            let text = String(validating: bytes[index..<index + 4], as: UTF8.self),
            let value = UInt32(text, radix: 16)
        else { throw error("expected four hex digits after \\u") }
        index += 4
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        let integerStart = index
        guard consumeDigits() else { throw error("expected a digit in a number") }
        if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 {
            index = integerStart
            throw error("a number must not start with 0")
        }
        if consume(UInt8(ascii: ".")) {
            guard consumeDigits() else { throw error("expected a digit after the decimal point") }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard consumeDigits() else { throw error("expected a digit in the exponent") }
        }
        guard let text = String(validating: bytes[start..<index], as: UTF8.self), let value = Double(text),
            value.isFinite
        else { throw error("the number is out of range") }
        return .number(value)
    }

    private mutating func consumeDigits() -> Bool {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index > start
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("unexpected \(describeCurrent()), expected a value")
        }
        index += expected.count
        return value
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        return (0x21..<0x7F).contains(byte)
            ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(index, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(line: line, column: index - lineStart + 1, reason: reason)
    }
}
