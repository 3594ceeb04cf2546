import CSegmentInterface
import CollageRender
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension SubjectModel {
    /// Prepares a command-line process for inference, before OpenCV is loaded: unless
    /// `OPENCV_CPU_DISABLE` is already set (to anything, even empty), OpenCV is asked to use its
    /// AVX2 kernels rather than its AVX-512 ones. That matters where OpenCV's own convolutions
    /// run (`COLLAGE_CONVOLUTION=opencv`, or a layer Collage's kernels do not take): measured on
    /// an AMD EPYC, U²-Net-p took 330–340 ms with OpenCV's AVX-512 kernels and 272–283 ms, more
    /// steadily, with its AVX2 ones. Collage's own kernels choose by what the processor has,
    /// whatever this says. Call it first in `main`, while the process has a single thread (it
    /// sets an environment variable).
    /// On a processor without AVX-512 there is nothing to turn off (and OpenCV would print a
    /// warning about it on every lift), so the variable is left alone there.
    public static func prepareCommandLineProcess() {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        guard let flags = cpu.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return }
        let has = Set(flags.split(separator: " ").map(String.init))
        // OpenCV's AVX512-SKX group is these five; without any one of them there is nothing to turn off.
        guard ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(has.contains) else { return }
        setenv("OPENCV_CPU_DISABLE", "AVX512-SKX", 0)
    }
}

/// The subject-lifting shared object (OpenCV DNN behind `csegment.h`), opened the first time a
/// model is loaded. Keeping OpenCV out of the executable's own links means that commands which
/// never lift a subject (rendering, the library, the editor without a model) do not load it.
struct SegmentLibrary: @unchecked Sendable {
    // @unchecked: plain C function pointers into a library that is never unloaded.
    let load: csegment_load_model_fn
    let free: csegment_free_fn
    let outputName: csegment_output_name_fn
    let predict: csegment_predict_fn
    let upsample: csegment_upsample_fn
    let components: csegment_components_fn
    let matte: csegment_matte_fn
    let checkConvolution: csegment_check_convolution_fn

    private static let opened = Mutex<SegmentLibrary?>(nil)

    /// The library, opened on first use; a failure is not kept, so a library installed since
    /// (or a binary replaced under a running server by an upgrade) is found on the next try.
    /// - Throws: ``StickerError/engineMissing(_:)`` naming where it was looked for.
    static func get() throws(StickerError) -> SegmentLibrary {
        try opened.withLock { (library: inout SegmentLibrary?) throws(StickerError) -> SegmentLibrary in
            if let library { return library }
            let loaded = try open().get()
            library = loaded
            return loaded
        }
    }

    /// Where to look: `$COLLAGE_SEGMENT_LIBRARY`, else next to the running executable (where
    /// SwiftPM builds it, for the `collage` binary and the test runner alike).
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let explicit = environment["COLLAGE_SEGMENT_LIBRARY"], !explicit.isEmpty { return [explicit] }
        return [ExecutableFolder.current().appendingPathComponent(CSEGMENT_LIBRARY_NAME).path]
    }

    private static func open() -> Result<SegmentLibrary, StickerError> {
        OnDemandLibrary.open(candidates()) { library -> SegmentLibrary? in
            guard let load = library.function("csegment_load_model", as: csegment_load_model_fn.self),
                let free = library.function("csegment_free", as: csegment_free_fn.self),
                let outputName = library.function("csegment_output_name", as: csegment_output_name_fn.self),
                let predict = library.function("csegment_predict", as: csegment_predict_fn.self),
                let upsample = library.function("csegment_upsample", as: csegment_upsample_fn.self),
                let components = library.function("csegment_components", as: csegment_components_fn.self),
                let matte = library.function("csegment_matte", as: csegment_matte_fn.self),
                let checkConvolution = library.function(
                    "csegment_check_convolution", as: csegment_check_convolution_fn.self)
            else { return nil }
            return SegmentLibrary(
                load: load, free: free, outputName: outputName, predict: predict, upsample: upsample,
                components: components, matte: matte, checkConvolution: checkConvolution)
        }
        .mapError { problems -> StickerError in .engineMissing(problems.description) }
    }
}
