import CollageCore
import Testing

@Suite("JSON")
struct JSONValueTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue.parse(#"{"a": [1, -2.5e2, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}}"#)
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-250), .bool(true), .bool(false), .null, .string("xé😀\n")]),
                    "b": .object([:]),
                ]))
    }

    @Test func serialisesWithSortedKeysAndEscapes() {
        let value = JSONValue.object(["b": .number(1.5), "a": .string("q\"\\\u{1}")])
        #expect(value.serialized(pretty: false) == #"{"a":"q\"\\\u0001","b":1.5}"#)
    }

    @Test func largeWholeNumbersAreWrittenAsIntegers() throws {
        let highestVersion = Double(1 << 53)
        #expect(JSONValue.number(highestVersion).serialized() == "9007199254740992")
        #expect(JSONValue.number(-highestVersion * 4).serialized() == "-36028797018963968")
        #expect(try JSONValue.parse(JSONValue.number(highestVersion).serialized()) == .number(highestVersion))
        #expect(JSONValue.number(1e300).serialized() == "1e+300")
    }

    @Test(arguments: [
        ("", "the document is empty"), ("[1,]", "unexpected ']', expected a value"),
        ("{\"a\":1,}", "expected a member name in double quotes, found '}'"),
        ("[1 2]", "expected ',' or ']' after an array element, found '2'"), ("\"abc", "unterminated string"),
        ("01", "a number must not start with 0"), ("[1] x", "unexpected 'x' after the JSON value"),
        ("{\"a\":1,\"a\":2}", "duplicate member \"a\""),
        ("tru", "unexpected 't', expected a value"), ("\"\\x\"", "invalid escape '\\'x''"),
        ("1e999", "the number is out of range"),
    ])
    func malformedInputIsNamed(text: String, reason: String) {
        do {
            _ = try JSONValue.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let text = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(text) }
    }
}
