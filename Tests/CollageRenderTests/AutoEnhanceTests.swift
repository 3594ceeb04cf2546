import CollageCore
import CollageRender
import Foundation
import Testing

/// Auto-enhance, measured as the issue asks: the sample photos are given known colour casts and
/// exposure errors (as a camera makes them: gains on the linear channels), auto-enhanced, drawn
/// by the renderer with the adjustments it chose, and compared with the original by CIEDE2000.
@Suite("Auto-enhance: levels and white balance from the photo's own histogram")
struct AutoEnhanceTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples")

    /// Photographs among the samples (not the logo or the horse's silhouette).
    static let photos = ["astronaut.png", "chelsea.png", "coffee.png", "motorcycle_left.png", "rocket.jpg"]

    /// The errors: linear gains on red, green and blue.
    static let errors: [(name: String, gains: [Double])] = [
        ("warm cast", [1.3, 1.0, 0.72]),
        ("cool cast", [0.78, 1.0, 1.3]),
        ("green cast", [0.88, 1.15, 0.88]),
        ("magenta cast", [1.1, 0.85, 1.1]),
        ("a stop under", [0.5, 0.5, 0.5]),
        ("two-thirds of a stop under, warm", [0.76, 0.63, 0.5]),
    ]

    /// The mean CIEDE2000 difference between two pictures of one size, over every other pixel.
    static func meanDifference(_ first: Bitmap, _ second: Bitmap) -> Double {
        var total = 0.0
        var count = 0
        for y in stride(from: 0, to: min(first.height, second.height), by: 2) {
            for x in stride(from: 0, to: min(first.width, second.width), by: 2) {
                let (p, q) = (first[x, y], second[x, y])
                total += LabColor(red: p[0], green: p[1], blue: p[2])
                    .difference(to: LabColor(red: q[0], green: q[1], blue: q[2]))
                count += 1
            }
        }
        return total / Double(max(1, count))
    }

    /// `bitmap` with each channel's linear light multiplied by its gain (clipped at white).
    static func degraded(_ bitmap: Bitmap, gains: [Double]) -> Bitmap {
        func encode(_ linear: Double) -> UInt8 {
            let c = max(0, min(1, linear))
            let v = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055
            return UInt8((v * 255).rounded())
        }
        var pixels = bitmap.pixels
        for index in stride(from: 0, to: pixels.count, by: bitmap.channels) {
            for band in 0..<3 {
                pixels[index + band] = encode(LabColor.linear[Int(pixels[index + band])] * gains[band])
            }
        }
        return Bitmap(width: bitmap.width, height: bitmap.height, channels: bitmap.channels, pixels: pixels) ?? bitmap
    }

    /// The photo in `file` drawn by the renderer with `adjustments`, at its own size.
    static func enhanced(
        _ file: URL, size: (Int, Int), adjustments: Adjustments, fixtures: RenderFixtures
    ) throws -> Bitmap {
        let canvas = Size(width: Double(size.0), height: Double(size.1))
        var collage = try RenderFixtures.collage(template: nil, photos: [], canvas: canvas)
        collage = try collage.applying([
            .addItem(id: "p", content: .photo(file.path), frame: Rect(origin: .zero, size: canvas)),
            .setLook(id: "p", look: ItemLook(adjustments: adjustments)),
        ])
        return try fixtures.render(
            collage, "enhanced-\(file.lastPathComponent).png", options: RenderOptions(size: .scale(1), format: .png))
    }

    @Test func theColourErrorFallsAndAPhotoAsShotIsLeftNearlyAsItWas() throws {
        let found = Self.photos.map { Self.samples.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        guard found.count == Self.photos.count else {
            Issue.record("the sample photos are missing from \(Self.samples.path): scripts/bootstrap fetches them")
            return
        }
        let fixtures = try RenderFixtures()
        let renderer = CollageRenderer()
        var before: [Double] = []
        var after: [Double] = []
        var untouched: [(String, Double)] = []
        var table = ["photo                 error                               ΔE before  ΔE after"]
        for file in found {
            let original = try Bitmap.read(file, maxSide: 320)
            let originalFile = fixtures.url("original-\(file.deletingPathExtension().lastPathComponent).png")
            try original.write(to: originalFile, format: .png)
            // A photo already right: what auto-enhance does to it is its cost.
            let own = try renderer.autoEnhancement(for: originalFile)
            let redrawn = try Self.enhanced(
                originalFile, size: (original.width, original.height), adjustments: own, fixtures: fixtures)
            untouched.append((file.lastPathComponent, Self.meanDifference(original, redrawn)))
            for error in Self.errors {
                let spoilt = Self.degraded(original, gains: error.gains)
                let spoiltFile = fixtures.url("spoilt-\(file.deletingPathExtension().lastPathComponent).png")
                try spoilt.write(to: spoiltFile, format: .png)
                let adjustments = try renderer.autoEnhancement(for: spoiltFile)
                let mended = try Self.enhanced(
                    spoiltFile, size: (original.width, original.height), adjustments: adjustments, fixtures: fixtures)
                before.append(Self.meanDifference(original, spoilt))
                after.append(Self.meanDifference(original, mended))
                table.append(
                    file.lastPathComponent.padding(toLength: 22, withPad: " ", startingAt: 0)
                        + error.name.padding(toLength: 36, withPad: " ", startingAt: 0)
                        + String(format: "%9.2f  %8.2f", before.last ?? 0, after.last ?? 0)
                        + "   exposure \(adjustments.exposure), warmth \(adjustments.warmth), tint \(adjustments.tint)")
            }
        }
        let meanBefore = before.reduce(0, +) / Double(before.count)
        let meanAfter = after.reduce(0, +) / Double(after.count)
        table.append(
            String(
                format: "mean ΔE2000: %.2f before, %.2f after (%.0f %% less)", meanBefore, meanAfter,
                100 * (1 - meanAfter / meanBefore)))
        for (name, difference) in untouched {
            table.append(
                name.padding(toLength: 22, withPad: " ", startingAt: 0)
                    + String(format: "as shot, auto-enhanced: ΔE %.2f", difference))
        }
        print(table.joined(separator: "\n"))
        // The issue asks for half (this build takes out 51 %; docs/BENCHMARKS.md has the table).
        #expect(meanAfter <= meanBefore * 0.5, "the error must fall by at least half: \(meanBefore) → \(meanAfter)")
        // Photos as shot: changed by less than people notice at a glance on average, and the
        // worst (the brown cat, whose fur reads as a cast) by no more than a glance shows.
        let meanUntouched = untouched.reduce(0) { $0 + $1.1 } / Double(untouched.count)
        #expect(meanUntouched < 2, "photos as shot changed by ΔE \(meanUntouched) on average")
        for (name, difference) in untouched {
            #expect(difference < 5, "\(name), as shot, changed by ΔE \(difference)")
        }
    }

    @Test func theDifferenceIsCIEDE2000() {
        // Pairs from Sharma, Wu and Dalal's table of test data.
        let pairs: [(LabColor, LabColor, Double)] = [
            (LabColor(lightness: 50, a: 2.6772, b: -79.7751), LabColor(lightness: 50, a: 0, b: -82.7485), 2.0425),
            (LabColor(lightness: 50, a: -1.3802, b: -84.2814), LabColor(lightness: 50, a: 0, b: -82.7485), 1.0000),
            (LabColor(lightness: 50, a: 2.49, b: -0.001), LabColor(lightness: 50, a: -2.49, b: 0.0009), 7.1792),
            (
                LabColor(lightness: 60.2574, a: -34.0099, b: 36.2677),
                LabColor(lightness: 60.4626, a: -34.1751, b: 39.4387), 1.2644
            ),
            (
                LabColor(lightness: 22.7233, a: 20.0904, b: -46.694),
                LabColor(lightness: 23.0331, a: 14.973, b: -42.5619), 2.0373
            ),
        ]
        for (first, second, expected) in pairs {
            #expect(abs(first.difference(to: second) - expected) < 0.0005, "\(first) \(second)")
        }
        let white = LabColor(red: 255, green: 255, blue: 255)
        #expect(abs(white.lightness - 100) < 0.01 && abs(white.a) < 0.01 && abs(white.b) < 0.01)
    }
}
