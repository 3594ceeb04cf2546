import CollageCore
import Testing

/// Numbers as people type them, and what Swift's own parser would take that no person means.
struct DecimalTextTests {
    @Test(arguments: [("12", 12.0), ("-0.5", -0.5), ("+3", 3), (".5", 0.5), ("5.", 5), ("2.5e3", 2500), ("1E-2", 0.01)])
    func decimalsRead(text: String, value: Double) {
        #expect(Double(decimal: text) == value)
    }

    @Test(arguments: [
        "0x12C", "0x10", "nan", "NaN", "inf", "-infinity", "", ".", "1e", "1e+", "12px", " 12", "1,5", "1e999",
    ])
    func otherSpellingsAreRefused(text: String) {
        #expect(Double(decimal: text) == nil, "\(text)")
    }
}
