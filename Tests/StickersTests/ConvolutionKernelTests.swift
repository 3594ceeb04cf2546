import CollageCore
import CollageRender
import Foundation
import Testing

@testable import Stickers

/// Collage's own convolution kernels (AVX-512, and AVX2 with FMA) must give the maps OpenCV's
/// give: the same sums in another order, so they may differ only by rounding.
@Suite("Convolution kernels", .serialized)
struct ConvolutionKernelTests {
    static let models: Result<[SubjectModel.Kernels: SubjectModel], StickerError> = Result {
        () throws(StickerError) in
        var models: [SubjectModel.Kernels: SubjectModel] = [:]
        for kernels in [SubjectModel.Kernels.own, .ownWithoutAVX512, .opencv] {
            models[kernels] = try SubjectModel(path: SubjectModel.defaultPath(), kernels: kernels)
        }
        return models
    }

    /// A generated scene, and the sample photo of a cat when bootstrap has fetched it.
    static func photos() throws -> [(name: String, image: Bitmap)] {
        var photos: [(String, Bitmap)] = [
            (
                "generated",
                StickerFixtures.scene(
                    width: 640, height: 400, textured: true,
                    shapes: [(200, 200, 90, 120, [200, 40, 40]), (460, 210, 120, 90, [30, 90, 200])]
                ).image
            )
        ]
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples/chelsea.png")
        if FileManager.default.fileExists(atPath: sample.path) { photos.append(("chelsea", try Bitmap.read(sample))) }
        return photos
    }

    /// Whose kernels a request should get on this processor: Collage's wherever AVX2 and FMA
    /// are there (this is Debian 12's OpenCV 4.6), with AVX-512 when asked and present.
    static func expected(_ kernels: SubjectModel.Kernels) -> SubjectModel.Kernels {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(
            (cpu.split(separator: "\n").first { $0.hasPrefix("flags") } ?? "").split(separator: " ").map(String.init))
        guard kernels != .opencv, flags.contains("avx2"), flags.contains("fma") else { return .opencv }
        return kernels == .own && flags.contains("avx512f") ? .own : .ownWithoutAVX512
    }

    @Test(arguments: [SubjectModel.Kernels.own, .ownWithoutAVX512])
    func ownKernelsGiveOpenCVsMap(kernels: SubjectModel.Kernels) throws {
        let models = try Self.models.get()
        let (own, reference) = (try #require(models[kernels]), try #require(models[.opencv]))
        #expect(own.kernelsUsed == Self.expected(kernels))
        #expect(reference.kernelsUsed == .opencv)
        for (name, photo) in try Self.photos() {
            let (ownMap, ownContrast) = try own.predict(photo)
            let (referenceMap, referenceContrast) = try reference.predict(photo)
            var largest: Float = 0
            var flipped = 0
            for index in ownMap.indices {
                largest = max(largest, abs(ownMap[index] - referenceMap[index]))
                if (ownMap[index] >= 0.5) != (referenceMap[index] >= 0.5) { flipped += 1 }
            }
            print("\(own.kernelsUsed) on \(name): largest difference \(largest), \(flipped) mask pixels flipped")
            #expect(largest < 1e-3, "\(name): maps differ by \(largest)")
            #expect(flipped <= 2, "\(name): \(flipped) of \(ownMap.count) pixels changed side")
            #expect(abs(ownContrast - referenceContrast) < 1e-3)
        }
    }

    /// Shapes the model does not have: channel counts that are no multiple of 8 (blocks of 4, 2
    /// and 1), rows that are no multiple of a vector, one-pixel images, dilations reaching past
    /// every edge, 1 × 1 kernels, and a layer with no ReLU after it. The 3 × 3 layers of 8 input
    /// channels or more and 4 or 8 output channels a block go through Winograd's kernels: odd
    /// heights and widths (a last tile partly outside), one row, rows of several tasks each.
    @Test(arguments: [
        (3, 64, 3, 1, 37, 45, true), (16, 6, 3, 2, 20, 33, false), (5, 2, 3, 8, 10, 10, true),
        (7, 1, 3, 1, 3, 70, false), (6, 1, 1, 1, 320, 17, true), (64, 12, 1, 1, 9, 130, false),
        (1, 4, 3, 4, 1, 1, true), (24, 20, 3, 1, 64, 200, false), (32, 16, 3, 1, 37, 45, true),
        (128, 64, 3, 1, 6, 320, true), (8, 8, 3, 1, 1, 33, false), (16, 24, 3, 1, 7, 1001, true),
        (9, 12, 3, 1, 31, 17, false),
    ])
    func ownKernelsMatchOpenCVOnOtherShapes(
        shape: (inputs: Int, outputs: Int, kernel: Int, dilation: Int, height: Int, width: Int, relu: Bool)
    ) throws {
        for kernels in [SubjectModel.Kernels.own, .ownWithoutAVX512] {
            let (difference, used) = try kernels.largestDifferenceFromOpenCV(
                inputChannels: shape.inputs, outputChannels: shape.outputs, kernel: shape.kernel,
                dilation: shape.dilation, height: shape.height, width: shape.width, relu: shape.relu)
            #expect(used == Self.expected(kernels))
            // Sums of up to 1,152 products of numbers below 1, most of them by Winograd's F(4 × 4),
            // whose larger coefficients round about twenty times as much as the direct sums:
            // rounding alone differs by up to about 5e-4. A wrong tap or tile is off by tenths.
            #expect(difference < 1e-3, "\(kernels) on \(shape): \(difference)")
        }
    }

    @Test func aSmallLayerAfterALargeOneReadsNothingLeftOver() throws {
        // Each thread keeps its band of input rows from layer to layer: a small layer must see
        // zeros past its edges, not what a larger one left there.
        // (Dilated, so the large layers take the direct sums too, not Winograd's.)
        for shape in [(64, 16, 2, 180, 300), (3, 5, 8, 7, 9), (64, 16, 2, 180, 300), (2, 3, 2, 5, 200)] {
            let (difference, _) = try SubjectModel.Kernels.own.largestDifferenceFromOpenCV(
                inputChannels: shape.0, outputChannels: shape.1, kernel: 3, dilation: shape.2, height: shape.3,
                width: shape.4, relu: false)
            #expect(difference < 1e-4, "\(shape): \(difference)")
        }
    }

    @Test func sizesOutOfRangeAreRefusedWithAMessage() throws {
        #expect(throws: StickerError.self) {
            try SubjectModel.Kernels.own.largestDifferenceFromOpenCV(
                inputChannels: 1, outputChannels: 1, kernel: 3, dilation: 64, height: 1, width: 100_000_000,
                relu: false)
        }
    }
}
