import CollageCore

/// One field of a JSON body or of a query: its name, its JSON type (with the range from
/// ``CollageCore/Limits`` that CollageKit checks it against), whether it is required, and what it
/// means. A route declares its fields once; the body is checked against them before the handler
/// reads a value, and the OpenAPI document is written from them, so the two cannot drift.
struct Field: Sendable {
    /// The field's JSON type.
    indirect enum Kind: Sendable {
        /// Text; with `choices`, one of them.
        case string(choices: [String]?)
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// `true` or `false`.
        case boolean
        /// A list of values of one kind, at most `maxItems` long.
        case array(Kind, maxItems: Int?)
        /// An object with these fields.
        case object([Field])
        /// A JSON object CollageKit reads itself (a collage document, an edit).
        case anyObject
    }

    /// The member's name (`seed`) or the query parameter's.
    let name: String
    /// Its type.
    let kind: Kind
    /// Whether a request without it is malformed.
    let isRequired: Bool
    /// Whether `null` is a value (`hero: null` takes the hero away).
    let isNullable: Bool
    /// What it means, for the OpenAPI document.
    let summary: String

    init(_ name: String, _ kind: Kind, required: Bool = false, nullable: Bool = false, _ summary: String = "") {
        self.name = name
        self.kind = kind
        self.isRequired = required
        self.isNullable = nullable
        self.summary = summary
    }

    /// Text, or one of `choices`.
    static func string(
        _ name: String, choices: [String]? = nil, required: Bool = false, nullable: Bool = false, _ summary: String = ""
    ) -> Field {
        Field(name, .string(choices: choices), required: required, nullable: nullable, summary)
    }

    /// A whole number in `range`.
    static func integer(
        _ name: String, _ range: ClosedRange<Int>, required: Bool = false, _ summary: String = ""
    )
        -> Field
    {
        Field(name, .integer(range), required: required, summary)
    }

    /// A number in `range`.
    static func number(
        _ name: String, _ range: ClosedRange<Double>, required: Bool = false, nullable: Bool = false,
        _ summary: String = ""
    ) -> Field {
        Field(name, .number(range), required: required, nullable: nullable, summary)
    }

    /// `true` or `false`.
    static func boolean(_ name: String, nullable: Bool = false, _ summary: String = "") -> Field {
        Field(name, .boolean, nullable: nullable, summary)
    }

    /// The field's JSON schema.
    var schema: JSONValue {
        var schema = Self.schema(of: kind)
        if case .object(var members) = schema {
            if isNullable { members["nullable"] = .bool(true) }
            if !summary.isEmpty { members["description"] = .string(summary) }
            schema = .object(members)
        }
        return schema
    }

    static func schema(of kind: Kind) -> JSONValue {
        switch kind {
        case .string(let choices):
            var members: [String: JSONValue] = ["type": "string"]
            if let choices { members["enum"] = .array(choices.map(JSONValue.string)) }
            return .object(members)
        case .integer(let range):
            return .object([
                "type": "integer", "minimum": .number(Double(range.lowerBound)),
                "maximum": .number(Double(range.upperBound)),
            ])
        case .number(let range):
            return .object([
                "type": "number", "minimum": .number(range.lowerBound), "maximum": .number(range.upperBound),
            ])
        case .boolean:
            return .object(["type": "boolean"])
        case .array(let items, let maxItems):
            var members: [String: JSONValue] = ["type": "array", "items": schema(of: items)]
            if let maxItems { members["maxItems"] = .number(Double(maxItems)) }
            return .object(members)
        case .object(let fields):
            return objectSchema(fields)
        case .anyObject:
            return .object(["type": "object"])
        }
    }

    /// The schema of an object with `fields`.
    static func objectSchema(_ fields: [Field]) -> JSONValue {
        var members: [String: JSONValue] = [
            "type": "object",
            "properties": .object(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.schema) })),
        ]
        let required = fields.filter(\.isRequired).map(\.name)
        if !required.isEmpty { members["required"] = .array(required.map(JSONValue.string)) }
        return .object(members)
    }

    /// The field as an OpenAPI query parameter.
    var queryParameter: JSONValue {
        .object([
            "name": .string(name), "in": "query", "required": .bool(isRequired), "schema": Self.schema(of: kind),
            "description": .string(summary),
        ])
    }

    /// Whether `value` has this field's JSON type: what a body is checked for before its handler
    /// reads it. Ranges, whole numbers and choices are CollageKit's to check, in the words both
    /// faces share; the schema states them from the same ``CollageCore/Limits``.
    /// - Returns: what was expected, when it does not.
    func typeProblem(of value: JSONValue, at path: String) -> String? {
        if value == .null { return isNullable ? nil : "\(path): expected \(Self.expectation(of: kind)), got null" }
        return Self.typeProblem(of: value, kind: kind, at: path)
    }

    private static func typeProblem(of value: JSONValue, kind: Kind, at path: String) -> String? {
        let fits: Bool
        switch (kind, value) {
        // A value out of range, a fraction where a whole number belongs, a name not among the
        // choices: CollageKit's to refuse (422, in the words the command line uses). Only the
        // JSON type is checked here.
        case (.string, .string), (.number, .number), (.integer, .number), (.boolean, .bool), (.anyObject, .object):
            fits = true
        case (.array(let items, let maxItems), .array(let values)):
            if let maxItems, values.count > maxItems {
                return "\(path): expected at most \(maxItems) items, got \(values.count)"
            }
            for (index, element) in values.enumerated() {
                if let problem = typeProblem(of: element, kind: items, at: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.object(let fields), .object):
            return CheckedBody.problem(in: value, fields: fields, at: path + ".")
        default: fits = false
        }
        return fits ? nil : "\(path): expected \(expectation(of: kind)), got \(describe(value))"
    }

    private static func expectation(of kind: Kind) -> String {
        switch kind {
        case .string: "a string"
        case .integer: "a number"
        case .number: "a number"
        case .boolean: "true or false"
        case .array(let items, _): "a list of " + plural(of: items)
        case .object(let fields): "an object with " + fields.map(\.name).joined(separator: ", ")
        case .anyObject: "an object"
        }
    }

    private static func plural(of kind: Kind) -> String {
        switch kind {
        case .string: "strings"
        case .integer, .number: "numbers"
        case .boolean: "true or false values"
        case .array: "lists"
        case .object, .anyObject: "objects"
        }
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text.prefix(40))\""
        case .number(let number): JSONValue.format(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// A JSON body checked against its route's fields: it is an object, every required field is
/// there, and every declared field present has its type. Handlers read values from here; a
/// field the route did not declare reads as absent, so what a handler reads is what the
/// OpenAPI document says.
struct CheckedBody: Sendable {
    private let members: [String: JSONValue]
    private let declared: Set<String>

    /// Checks `value` against `fields`.
    /// - Throws: ``HTTPError`` 400 for a body that is not an object; `status` (400 unless the
    ///   route says otherwise) naming the field and what it expected.
    init(_ value: JSONValue, fields: [Field], status: HTTPStatus = .badRequest) throws(HTTPError) {
        guard case .object(let members) = value else {
            throw HTTPError(.badRequest, "expected a JSON object with " + fields.map(\.name).joined(separator: ", "))
        }
        if let problem = Self.problem(in: value, fields: fields, at: "") { throw HTTPError(status, problem) }
        self.members = members
        self.declared = Set(fields.map(\.name))
    }

    private init(members: [String: JSONValue], declared: Set<String>) {
        self.members = members
        self.declared = declared
    }

    /// A body with no fields.
    static let empty = CheckedBody(members: [:], declared: [])

    static func problem(in value: JSONValue, fields: [Field], at prefix: String) -> String? {
        guard case .object(let members) = value else { return "\(prefix.dropLast()): expected an object" }
        for field in fields {
            guard let member = members[field.name] else {
                if field.isRequired { return "\(prefix)\(field.name): is required" }
                continue
            }
            if let problem = field.typeProblem(of: member, at: prefix + field.name) { return problem }
        }
        return nil
    }

    /// The member, when declared and present (`null` included).
    func value(_ name: String) -> JSONValue? { declared.contains(name) ? members[name] : nil }

    /// Whether the member is present (as `null` too).
    func has(_ name: String) -> Bool { value(name) != nil }

    /// A string member.
    func string(_ name: String) -> String? {
        if case .string(let text)? = value(name) { text } else { nil }
    }

    /// A number member (whole numbers too).
    func number(_ name: String) -> Double? {
        if case .number(let number)? = value(name) { number } else { nil }
    }

    /// A boolean member.
    func bool(_ name: String) -> Bool? {
        if case .bool(let flag)? = value(name) { flag } else { nil }
    }

    /// A list of strings.
    func strings(_ name: String) -> [String]? {
        guard case .array(let values)? = value(name) else { return nil }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
}

extension HTTPRequest {
    /// The body as its route's fields checked it; empty for a route that declares none.
    var fields: CheckedBody { checkedBody ?? CheckedBody.empty }
}
