import Foundation
import Testing

@testable import CollageRender

/// The editor asks the server for several pictures at once, so libvips pipelines are built
/// and freed on many threads together. With Orc's generated code on, that corrupted the heap
/// (`collage serve` died in liborc during a browser test; a C loop of eight threads building
/// resizes and blurs crashed within a minute, every time).
struct VipsThreadingTests {
    @Test func libvipsRunsItsOwnLoopsNotOrcsGeneratedCode() throws {
        try Vips.start()
        #expect(!Vips.runsGeneratedCode)
    }

    /// Resizes and integer blurs (the operations Orc compiled for) built and freed on eight
    /// threads at once come out as they do on one.
    @Test func pipelinesBuiltOnManyThreadsAtOnceGiveTheSamePixels() async throws {
        try Vips.start()
        let results = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var last: [UInt8] = []
                    for round in 0..<40 { last = try Self.resizedAndBlurred(variant: worker * 40 + round) }
                    return (worker, last)
                }
            }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 8)
        // Each thread's last pipeline is variant 39 (mod 40), so all must match it made alone.
        let reference = try Self.resizedAndBlurred(variant: 39)
        for (worker, pixels) in results.sorted(by: { $0.key < $1.key }) {
            #expect(pixels == reference, "thread \(worker) made different pixels")
        }
    }

    /// A gradient resized by a factor that changes with `variant` (so each build is a new
    /// program), then blurred.
    private static func resizedAndBlurred(variant: Int) throws -> [UInt8] {
        let (width, height) = (96, 72)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                pixels[index] = UInt8(x * 255 / (width - 1))
                pixels[index + 1] = UInt8(y * 255 / (height - 1))
                pixels[index + 2] = UInt8((x + y) % 256)
            }
        }
        let scale = 0.31 + 0.01 * Double(variant % 40)
        return try VipsImage.fromPixels(pixels, width: width, height: height, bands: 3)
            .resize(horizontal: scale, vertical: scale)
            .gaussianBlur(sigma: 1.2)
            .pixels()
    }
}
