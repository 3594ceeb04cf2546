import Foundation
import Testing

@testable import CollageCore

/// Documents' dates are written and read by hand (for speed); Foundation's ISO 8601 style is
/// the reference they must agree with.
@Suite("Document dates")
struct DateTextTests {
    static func foundationText(_ milliseconds: Int64) -> String {
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (whole, positive) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
        let base = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: Double(whole)))
        return base.dropLast() + "." + String(format: "%03d", Int(positive)) + "Z"
    }

    /// Days and times that trip date arithmetic: the ends of the range, the change from the
    /// Julian calendar, leap days of the centuries, the epoch and the instants around it, and
    /// many chosen at random.
    static var instants: [Int64] {
        var generator = SystemRandomNumberGenerator()
        let ends: [Int64] = [
            CollageDocument.DateText.earliestSecond * 1000, CollageDocument.DateText.latestSecond * 1000, 0, -1,
            1, 999, -999, -1000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, -2_203_891_200_000,
            -11_676_096_000_000, 1_798_761_599_999, 1_798_761_600_000,
            CollageDocument.DateText.firstGregorianSecond * 1000,
            CollageDocument.DateText.firstGregorianSecond * 1000 - 1,
        ]
        let random = (0..<3000).map { _ in
            Int64.random(
                in: CollageDocument.DateText.earliestSecond * 1000...CollageDocument.DateText.latestSecond * 1000,
                using: &generator)
        }
        return ends + random
    }

    @Test func writesWhatFoundationWrites() {
        for milliseconds in Self.instants {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            #expect(CollageDocument.jsonDate(date) == Self.foundationText(milliseconds), "\(milliseconds)")
        }
    }

    @Test func readsWhatItWritesToTheMillisecond() {
        for milliseconds in Self.instants {
            let text = Self.foundationText(milliseconds)
            let read = CollageDocument.DateText.parse(text)
            #expect(read.map { ($0.timeIntervalSince1970 * 1000).rounded() } == Double(milliseconds), "\(text)")
            let whole = String(text.prefix(19)) + "Z"
            let reference = try? Date.ISO8601FormatStyle().parse(whole)
            let plain = CollageDocument.DateText.plainSeconds(whole)
            if milliseconds >= CollageDocument.DateText.firstGregorianSecond * 1000 {
                #expect(plain == reference?.timeIntervalSince1970, "\(whole)")
            } else {
                #expect(plain == nil, "\(whole)")
            }
        }
    }

    @Test func leavesEveryOtherSpellingToFoundation() {
        // Out of range, or not the plain form: the hand-written reader declines, and what the
        // document reader then does is Foundation's call, as before.
        for text in [
            "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
            "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "0000-01-01T00:00:00Z",
            "2026-01-01 00:00:00Z", "2026-01-01T00:00:00+01:00", "2026-1-01T00:00:00Z", "२०२६-01-01T00:00:00Z",
            "2026-01-01T00:00:00z", "", "+2026-01-01T00:00:0Z", "1582-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
        ] {
            #expect(CollageDocument.DateText.plainSeconds(text) == nil, "\(text)")
            let reference = try? Date.ISO8601FormatStyle().parse(text)
            #expect(
                CollageDocument.DateText.parse(text)?.timeIntervalSince1970 == reference?.timeIntervalSince1970,
                "\(text)")
        }
        #expect(CollageDocument.DateText.plainSeconds("2024-02-29T12:34:56Z") == 1_709_210_096)
    }
}
