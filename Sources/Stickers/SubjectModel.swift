import CSegmentInterface
import CollageCore
import CollageRender
import Foundation
import Synchronization

/// The U²-Net-p saliency model, loaded once and shared: it finds the subjects of a photo.
///
/// Safe to use from several threads (inference is serialised inside; everything around it runs
/// in parallel).
public final class SubjectModel: @unchecked Sendable {
    // @unchecked: the OpenCV handle is a C pointer, used only through the shim, which locks
    // around inference; nothing else here changes after init.
    private let handle: OpaquePointer
    let library: SegmentLibrary
    /// The model file.
    public let path: URL
    /// The file's SHA-256, which keys cached masks.
    public let sha256: String
    private let runs = Atomic<Int>(0)

    /// How many times this model has run inference, so caching can be checked.
    package var inferenceCount: Int { runs.load(ordering: .relaxed) }

    /// The SHA-256 of the model Collage is built for (u2netp.onnx, 4,574,861 bytes).
    public static let expectedSHA256 = "309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8"
    /// The side of the square map the model works at.
    public static let mapSide = Int(CSEGMENT_MAP_SIDE)

    /// `$COLLAGE_MODEL`, else `$XDG_CACHE_HOME/collage/models/u2netp.onnx`, else under `~/.cache`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["COLLAGE_MODEL"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        return cacheFolder(environment: environment).appendingPathComponent("models/u2netp.onnx")
    }

    /// The command that fetches the model: the `fetch-model` installed beside `collage` (by `make
    /// install` and the Debian package), else the source tree's `scripts/fetch-model`. An
    /// installed Collage named the source tree's script, which it does not have.
    public static var fetchCommand: String {
        let beside = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("fetch-model")
        if let beside, FileManager.default.isExecutableFile(atPath: beside.path) { return beside.path }
        return "scripts/fetch-model"
    }

    /// Collage's folder in the user's cache: `$XDG_CACHE_HOME/collage`, else `~/.cache/collage`.
    static func cacheFolder(environment: [String: String]) -> URL {
        let cache =
            environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".cache")
        return cache.appendingPathComponent("collage")
    }

    /// Whose convolutions the model runs: nine tenths of an inference is convolution.
    package enum Kernels: Sendable {
        /// Collage's own with AVX-512, else with AVX2 and FMA (OpenCV's where neither is there,
        /// off x86, or with an OpenCV other than 4.6).
        case own
        /// Collage's own with AVX2 and FMA even where AVX-512 is there, to test that path.
        case ownWithoutAVX512
        /// OpenCV's, for comparison.
        case opencv

        /// `COLLAGE_CONVOLUTION=opencv` asks for OpenCV's and `=avx2` for Collage's without
        /// AVX-512, to compare them (as `bench/sticker` does).
        /// Why `COLLAGE_CONVOLUTION` is not understood (an unknown value, such as `OpenCV` or
        /// `avx512`), or `nil` when it is unset or one of `own`, `avx2` and `opencv`.
        public static func settingProblem(
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> String? {
            guard let value = environment["COLLAGE_CONVOLUTION"], !["own", "avx2", "opencv", ""].contains(value) else {
                return nil
            }
            let shown = String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(40))
            return "COLLAGE_CONVOLUTION=\"\(shown)\" is not one of own, avx2 or opencv; Collage's own kernels run"
        }

        static func chosen(environment: [String: String] = ProcessInfo.processInfo.environment) -> Kernels {
            switch environment["COLLAGE_CONVOLUTION"] {
            case "opencv": .opencv
            case "avx2": .ownWithoutAVX512
            default: .own
            }
        }

        var code: Int32 {
            switch self {
            case .own: Int32(CSEGMENT_KERNELS_OWN)
            case .ownWithoutAVX512: Int32(CSEGMENT_KERNELS_OWN_AVX2)
            case .opencv: Int32(CSEGMENT_KERNELS_OPENCV)
            }
        }

        init(code: Int32) {
            switch code {
            case Int32(CSEGMENT_KERNELS_OWN): self = .own
            case Int32(CSEGMENT_KERNELS_OWN_AVX2): self = .ownWithoutAVX512
            default: self = .opencv
            }
        }
    }

    /// Loads the model after checking the file is the expected one.
    /// - Throws: ``StickerError/modelMissing(path:)`` or ``StickerError/modelInvalid(path:reason:)``,
    ///   whose messages name the path, the expected hash and the command that fixes it.
    public convenience init(path: URL = SubjectModel.defaultPath()) throws(StickerError) {
        try self.init(path: path, kernels: .chosen())
    }

    /// Loads the model, its convolutions run by `kernels`.
    package init(path: URL, kernels: Kernels) throws(StickerError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path.path) else { throw .modelMissing(path: path.path) }
        do {
            sha256 = try SHA256.hex(ofFile: path)
        } catch {
            throw .modelInvalid(path: path.path, reason: "it cannot be read: \(error.localizedDescription)")
        }
        guard sha256 == Self.expectedSHA256 else {
            throw .modelInvalid(path: path.path, reason: "its SHA-256 is \(sha256)")
        }
        library = try SegmentLibrary.get()
        var message = [CChar](repeating: 0, count: 512)
        var used = Int32(CSEGMENT_KERNELS_OPENCV)
        guard let handle = library.load(path.path, kernels.code, &used, &message, message.count) else {
            throw .modelInvalid(path: path.path, reason: cMessage(message))
        }
        self.handle = handle
        kernelsUsed = Kernels(code: used)
    }

    /// Whose convolutions the model got: what was asked, or OpenCV's where Collage's cannot run.
    package let kernelsUsed: Kernels

    deinit { library.free(handle) }

    /// The graph output the maps come from (pinned at load: the first unconnected output).
    public var outputName: String { library.outputName(handle).map { String(cString: $0) } ?? "" }

    /// The 320 × 320 saliency map of RGB pixels, 0…1, and whether it has any contrast at all.
    package func predict(_ image: Bitmap) throws(StickerError) -> (map: [Float], contrast: Float) {
        let rgb = image.channels == 3 ? image.pixels : Self.dropAlpha(image)
        var map = [Float](repeating: 0, count: Self.mapSide * Self.mapSide)
        var low: Float = 0
        var high: Float = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = rgb.withUnsafeBufferPointer { pixels in
            map.withUnsafeMutableBufferPointer { output in
                library.predict(
                    handle, pixels.baseAddress, Int32(image.width), Int32(image.height), output.baseAddress, &low,
                    &high, &message, message.count)
            }
        }
        guard status == 0 else { throw .inference(cMessage(message)) }
        runs.add(1, ordering: .relaxed)
        return (map, high - low)
    }

    /// The photo's RGB as a person sees it: a photo with transparency over a plain ground, so
    /// what its clear pixels hide (the rest of a photo a cut-out was made from) plays no part.
    /// The ground is white under a dark picture and black under a light one: a white mug on
    /// white would be nothing to find.
    static func dropAlpha(_ image: Bitmap) -> [UInt8] {
        var rgb = [UInt8]()
        rgb.reserveCapacity(image.width * image.height * 3)
        let pixels = image.pixels
        let hasAlpha = image.channels == 4
        let ground = hasAlpha && Self.isLight(image) ? 0 : 255
        for index in stride(from: 0, to: pixels.count, by: image.channels) {
            let opacity = hasAlpha ? Int(pixels[index + 3]) : 255
            for channel in 0..<3 {
                let value = Int(pixels[index + min(channel, image.channels - 1)])
                rgb.append(UInt8((value * opacity + ground * (255 - opacity) + 127) / 255))
            }
        }
        return rgb
    }

    /// Whether the opaque part of an RGBA picture is light on the whole (its mean lightness,
    /// over a grid of at most 65,536 pixels, past the middle).
    static func isLight(_ image: Bitmap) -> Bool {
        let step = image.sampleStep
        var (total, count) = (0, 0)
        for y in stride(from: 0, to: image.height, by: step) {
            for x in stride(from: 0, to: image.width, by: step) {
                let index = (y * image.width + x) * 4
                guard image.pixels[index + 3] >= 128 else { continue }
                total +=
                    (Int(image.pixels[index]) * 299 + Int(image.pixels[index + 1]) * 587
                        + Int(image.pixels[index + 2]) * 114) / 1000
                count += 1
            }
        }
        return count > 0 && total > 140 * count
    }
}

/// The text of a NUL-terminated message buffer the shim filled.
func cMessage(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension SubjectModel.Kernels {
    /// Runs one convolution layer of random weights and input (`kernel` 1 or 3, stride 1,
    /// same-size output, with or without a ReLU after it) through these kernels and OpenCV's
    /// own, and returns the largest difference between their outputs and whose kernels ran: a
    /// check of the kernels on shapes U²-Net-p does not have.
    package func largestDifferenceFromOpenCV(
        inputChannels: Int, outputChannels: Int, kernel: Int, dilation: Int, height: Int, width: Int, relu: Bool
    ) throws(StickerError) -> (difference: Double, used: Self) {
        let library = try SegmentLibrary.get()
        var difference = 0.0
        var used = Int32(CSEGMENT_KERNELS_OPENCV)
        var message = [CChar](repeating: 0, count: 512)
        let status = library.checkConvolution(
            Int32(inputChannels), Int32(outputChannels), Int32(kernel), Int32(dilation), Int32(height), Int32(width),
            relu ? 1 : 0, code, &difference, &used, &message, message.count)
        guard status == 0 else { throw .inference(cMessage(message)) }
        return (difference, Self(code: used))
    }
}
