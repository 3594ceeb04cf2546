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

    /// Whole numbers are written digit by digit: every length, both signs and the largest that
    /// stays an integer read back as the number they were, and agree with `Int64`'s own text.
    @Test func wholeNumbersOfEveryLengthAndEscapesRoundTrip() throws {
        var numbers: [Double] = [0, -0.0, 9, 10, 99, 100, 0x1p63.nextDown, -0x1p63.nextDown, -0x1p63]
        var power = 1.0
        for _ in 0..<19 {
            numbers += [power - 1, power, power + 1, -power]
            power *= 10
        }
        for number in numbers {
            let text = JSONValue.number(number).serialized()
            if abs(number) < 0x1p63 {
                #expect(text == String(Int64(number)), "\(number)")
            }
            #expect(try JSONValue.parse(text) == .number(number == 0 ? 0 : number), "\(text)")
        }
        let tricky = "tab\t, cr\r, nl\n, \u{0}\u{1F}\u{7F}, é, 😀, \u{2028}, \"quoted\" \\ end"
        let value = JSONValue.object(["k\u{1}é": .string(tricky), "pretty": .array([.null, .bool(true)])])
        #expect(value.serialized(pretty: false).contains(#"\u0000\u001f"#))
        #expect(try JSONValue.parse(value.serialized(pretty: false)) == value)
        #expect(try JSONValue.parse(value.serialized(pretty: true)) == value)
        #expect(value.utf8(pretty: true) == Array(value.serialized(pretty: true).utf8))
        #expect(
            JSONValue.object(["a": .array([.number(1), .object([:])])]).serialized(pretty: true)
                == "{\n  \"a\": [\n    1,\n    {}\n  ]\n}")
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
