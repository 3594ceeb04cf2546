import CollageLicence
import CollageTestSupport
import Foundation
import Testing

/// Licence keys: what a good key says, and a distinct refusal for each way a key can be wrong.
struct LicenceKeyTests {
    let good = TestLicence.key()

    /// The key's five dot-separated parts.
    func parts(_ key: String) -> [String] {
        key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func aSignedKeyVerifiesAndSaysWhoItIsFor() throws {
        let licence = try Licence(key: good)
        #expect(licence.product == "collage-premium")
        #expect(licence.licensee == "Ada Lovelace <ada@example.com>")
        #expect(licence.id == "CL-TEST-0001")
        #expect(licence.issued == "2026-12-02")
        #expect(licence.signingKeyID == TestLicence.signingKey.id)
        #expect(!good.contains { $0.isWhitespace })
        #expect(good.hasPrefix("collage1."))
    }

    @Test func aKeyWrappedOverLinesOrPaddedWithSpacesStillReads() throws {
        let middle = good.index(good.startIndex, offsetBy: 120)
        let wrapped = "  \n" + good[..<middle] + "\r\n  " + good[middle...] + "\n"
        #expect(try Licence(key: wrapped).key == good)
    }

    @Test func aKeySavedWithAByteOrderMarkStillReads() throws {
        #expect(try Licence(key: "\u{FEFF}" + good + "\r\n").key == good)
    }

    @Test func eachKeyHasExactlyOneSpelling() throws {
        var keyParts = parts(good)
        // A digit carrying a combining mark is not a hex digit.
        var marked = keyParts
        marked[1] = String(marked[1].dropLast()) + "\(marked[1].last ?? "0")\u{0301}"
        #expect(throws: LicenceError.self) { try Licence(key: marked.joined(separator: ".")) }
        // The signature's last character with other unused bits decodes to the same bytes: refused.
        let signature = keyParts[4]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastCharacter = try #require(signature.last)
        let last = try #require(alphabet.firstIndex(of: lastCharacter))
        // 64 bytes in base64 end with 2 spare bits: the three other values of them.
        for spare in 1...3 {
            keyParts[4] = String(signature.dropLast()) + String(alphabet[(last & ~3) | ((last + spare) & 3)])
            #expect(throws: LicenceError.self) { try Licence(key: keyParts.joined(separator: ".")) }
        }
    }

    @Test func nothingAtAllIsRefusedAsEmpty() {
        #expect(throws: LicenceError.empty) { try Licence(key: " \n\t") }
    }

    @Test func textThatIsNoKeyIsRefusedAsSuch() {
        #expect(throws: LicenceError.notALicenceKey(start: "hello")) { try Licence(key: "hello") }
        #expect(throws: LicenceError.notALicenceKey(start: "XXXX-YYYY-ZZ…")) { try Licence(key: "XXXX-YYYY-ZZZZ-WWWW") }
    }

    @Test func aKeyOfANewerFormatSaysToUpdate() {
        let newer = "collage2" + good.dropFirst("collage1".count)
        #expect(throws: LicenceError.newerFormat("collage2")) { try Licence(key: newer) }
    }

    @Test func aKeyCutBeforeItsSignatureIsCutShort() {
        let cut = String(good.prefix(100))
        #expect(throws: LicenceError.cutShort(length: 100)) { try Licence(key: cut) }
    }

    @Test func aKeyCutInItsSignatureSaysHowMuchIsMissing() {
        let cut = String(good.dropLast(30))
        #expect(throws: LicenceError.truncated(have: 56, need: 86)) { try Licence(key: cut) }
    }

    @Test func aKeyWithoutItsSignatureIsMissingOne() {
        let unsigned = parts(good).prefix(4).joined(separator: ".")
        #expect(throws: LicenceError.missingSignature) { try Licence(key: unsigned) }
        #expect(throws: LicenceError.missingSignature) { try Licence(key: unsigned + ".") }
    }

    @Test func aDamagedPartIsNamed() {
        var broken = parts(good)
        broken[2] = "not*base64"
        #expect(throws: LicenceError.malformed("its details are not base64url text")) {
            try Licence(key: broken.joined(separator: "."))
        }
        #expect(throws: LicenceError.malformed("its signature is not 86 base64url characters")) {
            try Licence(key: good + "x")
        }
        // Look-alike digits from other scripts are damage, not another key.
        var fullwidth = parts(good)
        fullwidth[1] = String(fullwidth[1].dropLast()) + "ａ"
        #expect(throws: LicenceError.malformed("its key id \"\(fullwidth[1])\" is not 8 hex digits")) {
            try Licence(key: fullwidth.joined(separator: "."))
        }
        #expect(throws: LicenceError.notALicenceKey(start: "collage½.c1b…")) {
            try Licence(key: "collage½" + good.dropFirst("collage1".count))
        }
    }

    @Test func aKeySignedByAnUntrustedKeyNamesItsKeyID() throws {
        let stranger = try #require(SigningKey.generate())
        let details = try LicenceDetails(id: "CL-1", licensee: "Mallory", issued: "2026-12-02")
        let key = try #require(stranger.issue(details))
        #expect(throws: LicenceError.unknownSigningKey(stranger.id)) { try Licence(key: key) }
    }

    @Test func detailsChangedAfterIssueAreTampered() {
        // Another licence's details under this one's checksum and signature.
        var altered = parts(good)
        altered[2] = parts(TestLicence.key(licensee: "Eve <eve@example.com>"))[2]
        #expect(throws: LicenceError.tampered) { try Licence(key: altered.joined(separator: ".")) }
    }

    @Test func aSignatureFromAnotherLicenceIsNotValid() {
        // Details and checksum agree, but the signature belongs to another licence: a forgery.
        var forged = parts(good)
        forged[4] = parts(TestLicence.key(licensee: "Eve <eve@example.com>"))[4]
        #expect(throws: LicenceError.badSignature) { try Licence(key: forged.joined(separator: ".")) }
    }

    @Test func aGenuineLicenceForAnotherProductIsRefused() {
        let other = TestLicence.key(product: "photo-frames-pro")
        #expect(throws: LicenceError.otherProduct("photo-frames-pro")) { try Licence(key: other) }
    }

    @Test func aDebugBuildTrustsTheTestKeyBesideTheSellers() {
        #expect(TrustedKey.builtIn.contains { $0.id == TestLicence.signingKey.id })
        #expect(TrustedKey.builtIn.count == 2)
    }

    /// What a release build does (it lists the seller's key alone); `scripts/package-test` runs
    /// the shipped binary itself against a test-signed key.
    @Test func aBuildThatDoesNotTrustTheTestKeyRefusesItsLicences() throws {
        let sellerOnly = TrustedKey.builtIn.filter { $0.id != TestLicence.signingKey.id }
        #expect(!sellerOnly.isEmpty)
        #expect(throws: LicenceError.unknownSigningKey(TestLicence.signingKey.id)) {
            try Licence(key: good, trusting: sellerOnly)
        }
    }

    @Test func everyRefusalHasItsOwnMessage() {
        let errors: [LicenceError] = [
            .empty, .notALicenceKey(start: "x"), .newerFormat("collage2"), .malformed("x"), .missingSignature,
            .cutShort(length: 9), .truncated(have: 1, need: 86), .unknownSigningKey("abcd1234"), .tampered,
            .badSignature, .otherProduct("x"),
        ]
        let messages = Set(errors.map { $0.description.prefix(40) })
        #expect(messages.count == errors.count)
    }

    @Test func detailsAreCheckedBeforeSigning() {
        #expect(throws: LicenceError.self) { try LicenceDetails(id: "", licensee: "Ada", issued: "2026-12-02") }
        #expect(throws: LicenceError.self) {
            try LicenceDetails(id: "CL-1", licensee: "A\u{7}da", issued: "2026-12-02")
        }
        #expect(throws: LicenceError.self) { try LicenceDetails(id: "CL-1", licensee: "Ada", issued: "2 December") }
    }

    @Test func aSigningKeyFileReadsBackAsTheSameKey() throws {
        let key = try #require(SigningKey.generate())
        let again = try #require(SigningKey(fileContents: key.fileContents))
        #expect(again.id == key.id)
        #expect(again.publicKey == key.publicKey)
        #expect(SigningKey(fileContents: key.fileContents.replacingOccurrences(of: key.id, with: "00000000")) == nil)
        #expect(SigningKey(fileContents: "hello") == nil)
    }
}
