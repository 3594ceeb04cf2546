import CollageCore
import Foundation

/// Reads JSON answers in tests without a chain of optional casts: `box["photos"][0]["id"].string`.
public struct JSONBox: Sendable {
    /// The value here, `nil` when the path led nowhere.
    public let value: JSONValue?

    /// Parses `data`; an unparsable body gives a box that holds nothing.
    public init(_ data: Data) {
        value = try? JSONValue.parse(data)
    }

    /// A box around a value.
    public init(_ value: JSONValue?) {
        self.value = value
    }

    /// A member of an object.
    public subscript(_ key: String) -> JSONBox {
        guard case .object(let members) = value else { return JSONBox(nil) }
        return JSONBox(members[key])
    }

    /// An element of an array.
    public subscript(_ index: Int) -> JSONBox {
        guard case .array(let elements) = value, elements.indices.contains(index) else { return JSONBox(nil) }
        return JSONBox(elements[index])
    }

    /// The text, when this is a string.
    public var string: String? { if case .string(let text) = value { text } else { nil } }
    /// The truth value, when this is one.
    public var bool: Bool? { if case .bool(let flag) = value { flag } else { nil } }
    /// The number, when this is one.
    public var number: Double? { if case .number(let number) = value { number } else { nil } }
    /// Elements of an array or members of an object; 0 otherwise.
    public var count: Int {
        switch value {
        case .array(let elements): elements.count
        case .object(let members): members.count
        default: 0
        }
    }
}
