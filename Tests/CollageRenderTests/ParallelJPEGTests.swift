import CParallelJPEG
import CollageRender
import Foundation
import Testing

/// The banded JPEG writer: joined with restart markers, its file decodes to exactly the pixels of
/// libvips' own one-thread encoding at the same settings, whatever the shape, chroma, channel
/// and thread count; bad arguments and unwritable paths are refused with a reason.
@Suite("Parallel JPEG writer")
struct ParallelJPEGTests {
    static func write(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int, quality: Int = 90, dpi: Double = 0,
        threads: Int = 4, to path: String
    ) -> (status: Int32, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let status = parallel_jpeg_write(
            pixels, Int32(width), Int32(height), Int32(channels), Int32(quality), quality >= 90 ? 1 : 0, dpi,
            Int32(threads), path, &message, message.count)
        return (status, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// A pattern that changes along rows and down columns, with sharp steps, so every band seam
    /// and every MCU edge would show a wrong join.
    static func pattern(width: Int, height: Int, channels: Int) -> [UInt8] {
        (0..<width * height * channels).map { index -> UInt8 in
            let pixel = index / channels
            let (x, y) = (pixel % width, pixel / width)
            return UInt8(truncatingIfNeeded: x * 7 + y * 13 + (index % channels) * 61 + ((x / 5 + y / 3) % 2) * 90)
        }
    }

    @Test(arguments: [(1, 1), (7, 9), (17, 33), (300, 1_001), (129, 400)], [(3, 90), (3, 75), (1, 90)])
    func decodesAsLibvipsOwnEncoding(size: (width: Int, height: Int), kind: (channels: Int, quality: Int)) throws {
        let fixtures = try RenderFixtures()
        let (width, height) = size
        let pixels = Self.pattern(width: width, height: height, channels: kind.channels)
        try Data(pixels).write(to: fixtures.url("in.raw"))
        try fixtures.vips("rawload", "in.raw", "in.v", "\(width)", "\(height)", "\(kind.channels)")
        try fixtures.vips(
            "jpegsave", "in.v", "reference.jpg", "--Q", "\(kind.quality)", "--subsample-mode",
            kind.quality >= 90 ? "off" : "on")
        try fixtures.vips("rawsave", "reference.jpg", "reference.raw")
        let reference = [UInt8](try Data(contentsOf: fixtures.url("reference.raw")))
        for threads in [1, 2, 5, 16] {
            let file = fixtures.url("out-\(threads).jpg")
            let result = Self.write(
                pixels, width: width, height: height, channels: kind.channels, quality: kind.quality,
                threads: threads, to: file.path)
            #expect(result.status == 0, "\(result.message)")
            try fixtures.vips("rawsave", file.lastPathComponent, "out-\(threads).raw")
            let read = [UInt8](try Data(contentsOf: fixtures.url("out-\(threads).raw")))
            let firstDifference = read.indices.first { $0 >= reference.count || read[$0] != reference[$0] }
            #expect(
                read.count == reference.count && firstDifference == nil,
                "\(width) × \(height) × \(kind.channels) at Q\(kind.quality) on \(threads) threads: first difference at byte \(firstDifference ?? -1)"
            )
        }
    }

    /// A tall image is split into bands: the file says so (a restart interval), is still one
    /// baseline frame of the whole height, and carries the print resolution.
    @Test func aTallImageIsJoinedFromBandsAndKeepsItsResolution() throws {
        let fixtures = try RenderFixtures()
        let (width, height) = (640, 2_000)
        let file = fixtures.url("tall.jpg")
        let result = Self.write(
            Self.pattern(width: width, height: height, channels: 3), width: width, height: height, channels: 3,
            dpi: 300, threads: 2, to: file.path)
        #expect(result.status == 0, "\(result.message)")
        let bytes = [UInt8](try Data(contentsOf: file))
        let markers = zip(bytes, bytes.dropFirst()).filter { $0.0 == 0xFF && (0xD0...0xD7).contains($0.1) }.count
        #expect(bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2) == [0xFF, 0xD9])
        #expect(zip(bytes, bytes.dropFirst()).contains { $0 == (0xFF, 0xDD) }, "a restart interval")
        #expect(markers >= 7, "one restart marker between each pair of the eight bands, got \(markers)")
        let header = try RenderFixtures.output(of: "/usr/bin/vipsheader", ["-a", file.path])
        #expect(header.contains("width: 640") && header.contains("height: 2000"), "\(header)")
        #expect(header.contains("xres: 11.81"), "300 DPI is 11.81 px/mm: \(header)")
        #expect(header.contains("jpeg-chroma-subsample: 4:4:4") && header.contains("jpeg-multiscan: 0"))
    }

    @Test func badArgumentsAndUnwritablePathsAreRefusedWithAReason() throws {
        let fixtures = try RenderFixtures()
        let path = fixtures.url("bad.jpg").path
        let pixels = [UInt8](repeating: 128, count: 48)
        for (width, height, channels, quality, reason) in [
            (0, 4, 3, 90, "1 to 65,535 pixels"), (4, 70_000, 3, 90, "1 to 65,535 pixels"), (4, 4, 2, 90, "grey or RGB"),
            (4, 4, 3, 0, "quality"), (4, 4, 3, 101, "quality"),
        ] {
            let result = Self.write(
                pixels, width: width, height: height, channels: channels, quality: quality, to: path)
            #expect(result.status == -1 && result.message.contains(reason), "\(result.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing written")
        let unwritable = Self.write(
            pixels, width: 4, height: 4, channels: 3, to: fixtures.url("missing/folder/out.jpg").path)
        #expect(
            unwritable.status == -1 && unwritable.message.contains("cannot create the file"), "\(unwritable.message)")
    }
}
