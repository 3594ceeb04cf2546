/// One problem in a JSON document, at the path of the field that caused it.
public struct DocumentIssue: Hashable, Sendable, CustomStringConvertible {
    /// Where, e.g. `items[2].frame.width`; empty for the document itself.
    public let path: String
    /// What was expected and what was found, e.g. `expected a number > 0, got -5`.
    public let message: String

    /// An issue at `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `items[2].frame.width: expected a number > 0, got -5`.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Reads fields out of a ``JSONValue`` tree, noting every problem with its path and carrying on,
/// so one pass reports everything wrong with a document.
struct JSONReader {
    private(set) var issues: [DocumentIssue] = []

    mutating func fail(_ path: String, _ message: String) {
        issues.append(DocumentIssue(path: path, message: message))
    }

    /// The members of an object, after checking it has no fields outside `known`.
    mutating func object(_ value: JSONValue?, at path: String, known: [String]) -> [String: JSONValue]? {
        guard let value else {
            fail(path, "is required")
            return nil
        }
        guard case .object(let members) = value else {
            fail(path, "expected an object, got \(value.kindDescription)")
            return nil
        }
        for key in members.keys.sorted() where !known.contains(key) {
            fail(join(path, key), "unknown field; expected one of \(known.joined(separator: ", "))")
        }
        return members
    }

    mutating func array(_ value: JSONValue?, at path: String) -> [JSONValue]? {
        guard let value else {
            fail(path, "is required")
            return nil
        }
        guard case .array(let elements) = value else {
            fail(path, "expected an array, got \(value.kindDescription)")
            return nil
        }
        return elements
    }

    mutating func string(
        _ value: JSONValue?, at path: String, nonEmpty: Bool = true, maxLength: Int = 4096
    ) -> String? {
        guard let value else {
            fail(path, "is required")
            return nil
        }
        guard case .string(let text) = value else {
            fail(path, "expected a string, got \(value.kindDescription)")
            return nil
        }
        if nonEmpty, text.isEmpty {
            fail(path, "expected a non-empty string")
            return nil
        }
        guard text.count <= maxLength else {
            fail(path, "expected at most \(maxLength) characters, got \(text.count)")
            return nil
        }
        return text
    }

    /// A number that satisfies `rule`; `wanted` describes it in messages ("a number > 0").
    mutating func number(
        _ value: JSONValue?, at path: String, expected wanted: String = "a number",
        rule: (Double) -> Bool = { _ in true }
    ) -> Double? {
        guard let value else {
            fail(path, "is required")
            return nil
        }
        guard case .number(let number) = value else {
            fail(path, "expected \(wanted), got \(value.kindDescription)")
            return nil
        }
        guard rule(number) else {
            fail(path, "expected \(wanted), got \(JSONValue.format(number))")
            return nil
        }
        return number
    }

    mutating func integer(_ value: JSONValue?, at path: String, in range: ClosedRange<Int>) -> Int? {
        guard
            let number = number(
                value, at: path, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)",
                rule: { $0.wholeNumber(in: range) != nil })
        else { return nil }
        return number.wholeNumber(in: range)
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
}
