import CParallelPNG
import CollageRender
import Foundation
import Testing

/// The banded PNG writer: whatever the shape, band count and channel count, libvips (libpng)
/// reads back exactly the pixels that were written; bad arguments and unwritable paths are
/// refused with a reason, not a crash or a broken file.
@Suite("Parallel PNG writer")
struct ParallelPNGTests {
    static func write(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int, to path: String, threads: Int = 4, level: Int = 1
    ) -> (status: Int32, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let status = parallel_png_write(
            pixels, Int32(width), Int32(height), Int32(channels), path, Int32(level), Int32(threads), &message,
            message.count)
        return (status, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    @Test(arguments: [(1, 1), (3, 1), (5, 63), (64, 64), (97, 128), (200, 513), (31, 1000)], [1, 2, 3, 4])
    func roundTrips(size: (width: Int, height: Int), channels: Int) throws {
        let fixtures = try RenderFixtures()
        let (width, height) = size
        // A pattern that changes along rows and down columns, so every filter step and band seam shows.
        let pixels = (0..<width * height * channels).map { index -> UInt8 in
            let pixel = index / channels
            return UInt8(truncatingIfNeeded: (pixel % width) * 7 + (pixel / width) * 13 + (index % channels) * 61)
        }
        for threads in [1, 3, 64] {
            let file = fixtures.url("out-\(threads).png")
            let result = Self.write(
                pixels, width: width, height: height, channels: channels, to: file.path, threads: threads)
            #expect(result.status == 0, "\(result.message)")
            // libvips reads the PNG (libpng underneath) and writes its samples as they are: no
            // conversion to RGB, so grey and grey+alpha files are checked byte for byte too.
            let header = try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-a", file.path])
            #expect(header.contains("width: \(width)") && header.contains("height: \(height)"), "\(header)")
            #expect(header.contains("bands: \(channels)"), "\(header)")
            try fixtures.vips("rawsave", file.lastPathComponent, "out-\(threads).raw")
            let read = [UInt8](try Data(contentsOf: fixtures.url("out-\(threads).raw")))
            // A Bool, not the arrays: Swift Testing would diff a million elements on failure.
            let firstDifference = read.indices.first { $0 >= pixels.count || read[$0] != pixels[$0] }
            #expect(
                read.count == pixels.count && firstDifference == nil,
                "\(width) × \(height) × \(channels) on \(threads) threads: first difference at byte \(firstDifference ?? -1)"
            )
        }
    }

    /// Noise cannot be compressed: at levels 1-3 the deflater stores it, and the bands' output
    /// must still fit; level 0 never stores and makes noise a fifth larger, so the output grows.
    /// A large flat image spans many of the deflater's input pieces per band.
    @Test(arguments: [(1_200, 900, 4, true, 1), (1_200, 900, 4, true, 3), (3_000, 2_000, 1, false, 1)])
    func largeNoisyAndFlatImagesRoundTrip(width: Int, height: Int, channels: Int, noisy: Bool, level: Int) throws {
        let fixtures = try RenderFixtures()
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<width * height * channels).map { index -> UInt8 in
            noisy ? UInt8.random(in: 0...255, using: &generator) : UInt8(truncatingIfNeeded: index / (width * 97))
        }
        let file = fixtures.url("large.png")
        let result = Self.write(
            pixels, width: width, height: height, channels: channels, to: file.path, threads: 2, level: level)
        #expect(result.status == 0, "\(result.message)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        if noisy {
            #expect(size < pixels.count + pixels.count / 100 + 4_096, "noise grew to \(size) bytes")
        } else {
            #expect(size < pixels.count / 50, "a flat image took \(size) bytes")
        }
        try fixtures.vips("rawsave", "large.png", "large.raw")
        let read = [UInt8](try Data(contentsOf: fixtures.url("large.raw")))
        let same = read == pixels  // a Bool: Swift Testing would diff millions of elements
        #expect(same, "\(width) × \(height) × \(channels) did not read back")
    }

    @Test func levelZeroGrowsItsOutputForNoise() throws {
        let fixtures = try RenderFixtures()
        var generator = SystemRandomNumberGenerator()
        let pixels = (0..<640 * 480 * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let file = fixtures.url("level0.png")
        let result = Self.write(pixels, width: 640, height: 480, channels: 3, to: file.path, threads: 3, level: 0)
        #expect(result.status == 0, "\(result.message)")
        try fixtures.vips("rawsave", "level0.png", "level0.raw")
        let same = try [UInt8](Data(contentsOf: fixtures.url("level0.raw"))) == pixels
        #expect(same, "level 0 noise did not read back")
    }

    @Test func badArgumentsAndPathsAreRefusedWithAReason() throws {
        let fixtures = try RenderFixtures()
        let pixels = [UInt8](repeating: 9, count: 64)
        let path = fixtures.url("bad.png").path
        for (width, height, channels) in [(0, 4, 4), (4, -1, 4), (4, 4, 0), (4, 4, 5)] {
            let result = Self.write(pixels, width: width, height: height, channels: channels, to: path)
            #expect(result.status == -1 && result.message.contains("cannot write"), "\(result.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let badLevel = Self.write(pixels, width: 4, height: 4, channels: 4, to: path, level: 4)
        #expect(badLevel.status == -1 && badLevel.message.contains("at level 4"), "\(badLevel.message)")
        let missingFolder = fixtures.url("no/such/folder/x.png").path
        let refused = Self.write(pixels, width: 4, height: 4, channels: 4, to: missingFolder)
        #expect(refused.status == -1 && refused.message.contains("No such file"), "\(refused.message)")
    }
}
