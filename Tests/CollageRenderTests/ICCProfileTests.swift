import CollageRender
import Foundation
import Testing

/// The profile reader decides whether a photo's colour transform can be skipped: it must say
/// yes to sRGB under any name, no to everything else, and never read outside the bytes it got.
@Suite("ICC profiles")
struct ICCProfileTests {
    /// Real profiles, as libvips embeds them: its built-in sRGB, Display P3 and CMYK.
    static func profiles() throws -> (fixtures: RenderFixtures, srgb: ICCProfile, p3: ICCProfile, cmyk: ICCProfile) {
        let fixtures = try RenderFixtures()
        try Bitmap(width: 16, height: 16, color: [200, 120, 40]).write(to: fixtures.url("plain.png"), format: .png)
        try fixtures.vips("icc_transform", "plain.png", "srgb.png", "srgb")
        try fixtures.vips("icc_transform", "plain.png", "p3.png", "p3")
        try fixtures.vips("icc_transform", "plain.png", "cmyk.jpg", "cmyk")
        let srgb = try #require(ICCProfile(embeddedIn: fixtures.url("srgb.png").path))
        let p3 = try #require(ICCProfile(embeddedIn: fixtures.url("p3.png").path))
        let cmyk = try #require(ICCProfile(embeddedIn: fixtures.url("cmyk.jpg").path))
        return (fixtures, srgb, p3, cmyk)
    }

    @Test func sRGBIsRecognisedAndOthersAreNot() throws {
        let (fixtures, srgb, p3, cmyk) = try Self.profiles()
        #expect(srgb.colorSpace == "RGB " && srgb.connectionSpace == "XYZ ")
        #expect(srgb.isSRGB)
        #expect(p3.colorSpace == "RGB ")
        #expect(!p3.isSRGB, "Display P3 has sRGB's curves but wider primaries")
        #expect(cmyk.colorSpace == "CMYK")
        #expect(!cmyk.isSRGB)
        #expect(ICCProfile(embeddedIn: fixtures.url("plain.png").path) == nil, "no profile")
        #expect(ICCProfile(embeddedIn: fixtures.url("missing.png").path) == nil)
    }

    @Test func aChangedCurveOrPrimaryIsNoLongerSRGB() throws {
        let srgb = try Self.profiles().srgb
        // The red tone curve becomes a plain gamma 1.8 curve (a one-entry `curv`).
        var gamma = srgb.bytes
        let curve = try #require(Self.tagOffset("rTRC", in: gamma))
        gamma.replaceSubrange(curve..<curve + 14, with: Array("curv".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 1, 204])
        #expect(try #require(ICCProfile(gamma)).isSRGB == false)
        // The green primary moves by 0.01 in X.
        var primary = srgb.bytes
        let green = try #require(Self.tagOffset("gXYZ", in: primary))
        primary[green + 10] &+= 3
        #expect(try #require(ICCProfile(primary)).isSRGB == false)
    }

    /// Every prefix of a real profile, and profiles whose tag table points anywhere: never a
    /// crash, never a yes.
    @Test func damagedProfilesAreReadSafely() throws {
        let srgb = try Self.profiles().srgb.bytes
        for length in stride(from: 0, to: srgb.count, by: 7) {
            #expect(ICCProfile(Array(srgb.prefix(length)))?.isSRGB != true, "first \(length) bytes")
        }
        var hugeCount = srgb
        hugeCount.replaceSubrange(128..<132, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try #require(ICCProfile(hugeCount)).isSRGB == false)
        var farTag = srgb
        let entry = try #require(Self.tagEntry("rTRC", in: farTag))
        farTag.replaceSubrange(entry + 4..<entry + 12, with: [0xFF, 0xFF, 0xFF, 0xF0, 0x7F, 0xFF, 0xFF, 0xFF])
        #expect(try #require(ICCProfile(farTag)).isSRGB == false)
        let noise = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        #expect(ICCProfile(noise)?.isSRGB != true)
    }

    /// Where a tag's entry sits in the tag table.
    static func tagEntry(_ signature: String, in bytes: [UInt8]) -> Int? {
        let count = Int(bytes[128]) << 24 | Int(bytes[129]) << 16 | Int(bytes[130]) << 8 | Int(bytes[131])
        return (0..<count).map { 132 + 12 * $0 }.first { Array(bytes[$0..<$0 + 4]) == Array(signature.utf8) }
    }

    /// Where a tag's data starts.
    static func tagOffset(_ signature: String, in bytes: [UInt8]) -> Int? {
        tagEntry(signature, in: bytes).map { entry in
            Int(bytes[entry + 4]) << 24 | Int(bytes[entry + 5]) << 16 | Int(bytes[entry + 6]) << 8
                | Int(bytes[entry + 7])
        }
    }
}
