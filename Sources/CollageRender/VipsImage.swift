import CParallelPNG
import CVips
import Foundation

/// A libvips image. Owns its handle and releases it on deinit; libvips images are immutable and
/// safe to share between threads, which is why this is `@unchecked Sendable`.
final class VipsImage: @unchecked Sendable {
    let handle: OpaquePointer

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { cvips_unref(handle) }

    var width: Int { Int(cvips_width(handle)) }
    var height: Int { Int(cvips_height(handle)) }
    var bands: Int { Int(cvips_bands(handle)) }

    /// Runs one shim call that produces an image; a failure carries libvips' own message.
    static func make(
        _ operation: String, _ body: (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    ) throws(VipsError) -> VipsImage {
        try Vips.start()
        var output: OpaquePointer?
        let status = body(&output)
        guard status == 0, let output else {
            if let output { cvips_unref(output) }
            throw VipsError(operation: operation, message: Vips.takeError())
        }
        return VipsImage(handle: output)
    }

    func map(
        _ operation: String, _ body: (OpaquePointer, UnsafeMutablePointer<OpaquePointer?>) -> Int32
    )
        throws(VipsError) -> VipsImage
    {
        try VipsImage.make(operation) { body(handle, $0) }
    }

    // One method per libvips operation the renderer uses.

    static func openHeader(_ path: String) throws(VipsError) -> VipsImage {
        try make("open") { cvips_open_header(path, $0) }
    }

    /// Decodes `path` shrunk on load to about `width` × `height`, upright; `convertProfile`
    /// converts through an embedded ICC profile to sRGB.
    static func thumbnail(
        _ path: String, width: Int, height: Int, convertProfile: Bool
    ) throws(VipsError)
        -> VipsImage
    {
        try make("thumbnail") { cvips_thumbnail(path, Int32(width), Int32(height), convertProfile ? 1 : 0, $0) }
    }

    /// Opens `path` for one top-to-bottom read, as stored (no orientation, no profile applied);
    /// a JPEG decodes at 1/`shrink` of its size.
    static func openSequential(_ path: String, loader: String, shrink: Int) throws(VipsError) -> VipsImage {
        try make("load") { cvips_load_sequential(path, loader, Int32(shrink), $0) }
    }

    /// The rectangle `x`, `y`, `width` × `height` of the JPEG at `path` decoded at 1/`shrink`
    /// (coordinates in that shrunk image), with only its columns transformed and no row below
    /// it read; the same pixels as ``openSequential(_:loader:shrink:)`` then ``extractArea(x:y:width:height:)``.
    /// `nil` for a file it does not handle (CMYK, 12-bit, a rectangle too big to keep): open
    /// that one with ``openSequential(_:loader:shrink:)``. With `size`, the rectangle comes
    /// shrunk to it with a Lanczos-3 kernel once decoded (each side at most
    /// ``reducesAtMost`` times smaller, none larger), within a level of an exact Lanczos-3 and a few
    /// from libvips' resize.
    static func jpegRegion(
        _ path: String, shrink: Int, x: Int, y: Int, width: Int, height: Int,
        shrunkTo size: (width: Int, height: Int)? = nil
    ) throws(VipsError) -> VipsImage? {
        try Vips.start()
        var output: OpaquePointer?
        let (outWidth, outHeight) = size ?? (width, height)
        let status = cvips_jpeg_region(
            path, Int32(shrink), Int32(x), Int32(y), Int32(width), Int32(height), Int32(outWidth), Int32(outHeight),
            &output)
        if status == 1 { return nil }
        guard status == 0, let output else {
            if let output { cvips_unref(output) }
            throw VipsError(operation: "load", message: Vips.takeError())
        }
        return VipsImage(handle: output)
    }

    /// How many times smaller ``jpegRegion(_:shrink:x:y:width:height:shrunkTo:)`` may make each side.
    static let reducesAtMost = Int(CVIPS_REDUCE_MAX_SHRINK)

    /// How many ``jpegRegion(_:shrink:x:y:width:height:shrunkTo:)`` images have begun decoding in this
    /// process.
    static var jpegRegionsStarted: Int { Int(cvips_jpeg_regions_started()) }

    static func solid(width: Int, height: Int, values: [Double]) throws(VipsError) -> VipsImage {
        try make("solid") { cvips_solid(Int32(width), Int32(height), values, Int32(values.count), $0) }
    }

    /// An image over `pixels` without copying them; it must not outlive the buffer.
    static func borrowing(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int
    ) throws(VipsError) -> VipsImage {
        try make("from memory") { out in
            cvips_borrow_memory(pixels.baseAddress, pixels.count, Int32(width), Int32(height), Int32(bands), out)
        }
    }

    static func fromPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws(VipsError) -> VipsImage {
        try make("from memory") { out in
            pixels.withUnsafeBytes {
                cvips_from_memory($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), out)
            }
        }
    }

    var orientation: Int { Int(cvips_orientation(handle)) }
    var hasProfile: Bool { cvips_has_icc(handle) != 0 }
    /// Whether the embedded profile is sRGB itself, so converting through it changes nothing.
    var profileIsSRGB: Bool { profile?.isSRGB ?? false }

    /// The embedded ICC profile, when there is one.
    var profile: ICCProfile? {
        var size = 0
        guard let data = cvips_icc_profile(handle, &size), size > 0 else { return nil }
        return ICCProfile(Array(UnsafeRawBufferPointer(start: data, count: size)))
    }
    var loader: String { String(cString: cvips_loader(handle)) }

    func convertingProfileToSRGB() throws(VipsError) -> VipsImage {
        try map("icc transform") { cvips_icc_to_srgb($0, $1) }
    }

    /// The stored pixels turned upright for an EXIF orientation; reads its input out of order.
    func oriented(_ orientation: Int) throws(VipsError) -> VipsImage {
        try map("autorotate") { cvips_orient($0, Int32(orientation), $1) }
    }

    func copyToMemory() throws(VipsError) -> VipsImage { try map("copy to memory") { cvips_copy_memory($0, $1) } }

    /// An image of this one's size whose pixels another thread provides later (see
    /// ``PendingPixels``): a region asked of it waits until they are given.
    func pending() throws(VipsError) -> (image: VipsImage, pixels: PendingPixels) {
        var handle: OpaquePointer?
        let image = try map("pending layer") { cvips_pending_new($0, &handle, $1) }
        guard let handle else { throw VipsError(operation: "pending layer", message: "no handle was made") }
        return (image, PendingPixels(handle: handle))
    }

    func extractArea(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImage {
        try map("extract area") { cvips_extract_area($0, Int32(x), Int32(y), Int32(width), Int32(height), $1) }
    }

    func extractBands(_ first: Int, count: Int) throws(VipsError) -> VipsImage {
        try map("extract bands") { cvips_extract_bands($0, Int32(first), Int32(count), $1) }
    }

    func resize(horizontal: Double, vertical: Double) throws(VipsError) -> VipsImage {
        try map("resize") { cvips_resize($0, horizontal, vertical, $1) }
    }

    /// The image on a `width` × `height` canvas at the top-left, its last row and column repeated.
    func extendingEdges(width: Int, height: Int) throws(VipsError) -> VipsImage {
        try map("extend edges") { cvips_extend_edges($0, Int32(width), Int32(height), $1) }
    }

    /// Places the image at (x, y) on a transparent (zero) canvas of the given size.
    func embed(x: Int, y: Int, width: Int, height: Int) throws(VipsError) -> VipsImage {
        try map("embed") { cvips_embed($0, Int32(x), Int32(y), Int32(width), Int32(height), $1) }
    }

    func rotate(degrees: Double) throws(VipsError) -> VipsImage { try map("rotate") { cvips_rotate($0, degrees, $1) } }
    /// The image mirrored left to right, or top to bottom; top to bottom reads its input out of order.
    func flipped(vertically: Bool) throws(VipsError) -> VipsImage {
        try map("flip") { cvips_flip($0, vertically ? 1 : 0, $1) }
    }
    func premultiply() throws(VipsError) -> VipsImage { try map("premultiply") { cvips_premultiply($0, $1) } }
    func unpremultiply() throws(VipsError) -> VipsImage { try map("unpremultiply") { cvips_unpremultiply($0, $1) } }
    func castToUInt8() throws(VipsError) -> VipsImage { try map("cast") { cvips_cast_uchar($0, $1) } }
    func toSRGB() throws(VipsError) -> VipsImage { try map("colourspace") { cvips_to_srgb($0, $1) } }

    func joining(_ other: VipsImage) throws(VipsError) -> VipsImage {
        try map("bandjoin") { cvips_bandjoin2($0, other.handle, $1) }
    }

    func appendingBand(value: Double) throws(VipsError) -> VipsImage {
        try map("bandjoin const") { cvips_bandjoin_const($0, value, $1) }
    }

    /// `self * multiply + add`, as float; cast back to 8 bits to clamp into 0…255.
    func linear(multiply: Double, add: Double) throws(VipsError) -> VipsImage {
        try map("linear") { input, out in
            var a = multiply
            var b = add
            return cvips_linear(input, &a, &b, 1, out)
        }
    }

    func multiplied(by other: VipsImage) throws(VipsError) -> VipsImage {
        try map("multiply") { cvips_multiply($0, other.handle, $1) }
    }

    func gaussianBlur(sigma: Double) throws(VipsError) -> VipsImage {
        try map("gaussblur") { cvips_gaussblur($0, sigma, $1) }
    }

    /// Pastes `image` at (x, y) over this one, replacing the pixels beneath: right for opaque layers.
    func inserting(_ image: VipsImage, x: Int, y: Int) throws(VipsError) -> VipsImage {
        try map("insert") { cvips_insert($0, image.handle, Int32(clamping: x), Int32(clamping: y), $1) }
    }

    func compositing(_ layers: [(image: VipsImage, x: Int, y: Int)]) throws(VipsError) -> VipsImage {
        var handles: [OpaquePointer?] = layers.map { $0.image.handle }
        let xs = layers.map { Int32(clamping: $0.x) }
        let ys = layers.map { Int32(clamping: $0.y) }
        return try withExtendedLifetime(layers) { () throws(VipsError) -> VipsImage in
            try map("composite") { base, out in
                handles.withUnsafeMutableBufferPointer {
                    cvips_composite(base, $0.baseAddress, xs, ys, Int32(layers.count), out)
                }
            }
        }
    }

    /// The same pixels, computed in full-width strips by several threads at once.
    func inStrips() throws(VipsError) -> VipsImage { try map("line cache") { cvips_strips($0, $1) } }

    func settingOrientation(_ orientation: Int) throws(VipsError) -> VipsImage {
        try map("set orientation") { cvips_set_orientation($0, Int32(orientation), $1) }
    }

    /// Blends away alpha onto opaque white.
    func flattenedOnWhite() throws(VipsError) -> VipsImage {
        try map("flatten") { cvips_flatten($0, 255, 255, 255, $1) }
    }

    /// Pango markup drawn as RGBA, wrapped at `width` pixels (see `cvips_text`).
    static func text(markup: String, font: String, width: Int, align: Int) throws(VipsError) -> VipsImage {
        try make("draw text") { cvips_text(markup, font, Int32(clamping: width), Int32(align), $0) }
    }

    /// A copy as a new picture is written: none of its inputs' metadata (EXIF with its GPS
    /// place, XMP, IPTC, their profiles), so it tells nobody where its photos were taken, and
    /// tagged with the sRGB profile its pixels are in, so print labs and colour-managed tools
    /// need not guess.
    func asNewSRGBPicture() throws(VipsError) -> VipsImage {
        try map("make a new sRGB picture") { cvips_as_new_srgb_picture($0, $1) }
    }

    func settingDPI(_ dpi: Double) throws(VipsError) -> VipsImage { try map("set dpi") { cvips_set_dpi($0, dpi, $1) } }

    /// Every pixel as interleaved 8-bit samples (the image must be 8-bit).
    func pixels() throws(VipsError) -> [UInt8] {
        let count = width * height * bands
        var status: Int32 = 0
        // Uninitialised: libvips writes every byte, and zero-filling 36 MB first costs time.
        let buffer = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            status = cvips_to_memory(handle, storage.baseAddress, count)
            initialized = status == 0 ? count : 0
        }
        guard status == 0 else { throw VipsError(operation: "read pixels", message: Vips.takeError()) }
        return buffer
    }

    /// Encodes to `path`; `progressive` applies to JPEG only.
    func save(to path: String, format: OutputFormat, quality: Int, progressive: Bool = false) throws(VipsError) {
        let status: Int32 =
            switch format {
            case .jpeg: cvips_jpegsave(handle, path, Int32(quality), progressive ? 1 : 0, quality >= 90 ? 1 : 0)
            // Measured on 12 MP photos: zlib level 1 with the "up" filter writes in about half the
            // time of level 3 unfiltered, and the file is about 30 % smaller; level 6 gains ~10 %
            // in size for 4× the time.
            case .png: cvips_pngsave(handle, path, 1)
            case .webp: cvips_webpsave(handle, path, Int32(quality), 0)
            case .heic: cvips_heifsave(handle, path, Int32(quality), 0)
            case .avif: cvips_heifsave(handle, path, Int32(quality), 1)
            }
        guard status == 0 else { throw VipsError(operation: "\(format.rawValue) save", message: Vips.takeError()) }
    }
}

/// A failure inside libvips, with its message.
struct VipsError: Error {
    let operation: String
    let message: String

    /// The message when libvips failed without saying why.
    static let unknownMessage = "unknown libvips error"
}

/// Process-wide libvips state.
enum Vips {
    /// Starts libvips for a command-line process: its optional format modules load only when a
    /// file or saver needs one. Call first thing, while the process has one thread.
    static func startDeferringModules() { _ = cvips_init_deferring_modules() }

    static func start() throws(VipsError) {
        guard cvips_init() == 0 else { throw VipsError(operation: "init", message: takeError()) }
    }

    /// Copies and clears libvips' global error buffer, tidied to one line.
    static func takeError() -> String {
        guard let raw = cvips_error_take() else { return VipsError.unknownMessage }
        defer { cvips_free(raw) }
        let lines = String(cString: raw).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let unique = lines.reduce(into: [String]()) { if !$0.contains($1), !$1.isEmpty { $0.append($1) } }
        return unique.isEmpty ? VipsError.unknownMessage : unique.joined(separator: "; ")
    }

    static var version: String { String(cString: cvips_version()) }

    /// Whether libvips runs code generated by Orc; started here, it never does, because Orc
    /// frees that code unlocked and concurrent pipelines corrupted the heap.
    static var runsGeneratedCode: Bool { cvips_vector_enabled() != 0 }

    /// Writes interleaved 8-bit pixels as a PNG (level 1, up filter, like ``VipsImage/save``),
    /// deflating bands of rows on as many threads as libvips uses.
    static func writePNG(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int, to path: String
    ) throws(VipsError) {
        try start()
        guard pixels.count == width * height * channels else {
            throw VipsError(
                operation: "png save", message: "\(pixels.count) bytes are not \(width) × \(height) × \(channels)")
        }
        var message = [CChar](repeating: 0, count: 256)
        let status = parallel_png_write(
            pixels.bindMemory(to: UInt8.self).baseAddress, Int32(width), Int32(height), Int32(channels), path, 1,
            cvips_concurrency(), &message, message.count)
        guard status == 0 else {
            throw VipsError(
                operation: "png save",
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Why this libvips cannot write `format`, or `nil` when it can. HEIC and AVIF depend on
    /// the encoders libheif was built with, so for them a tiny image is written to find out;
    /// the other formats only need their saver, and pay nothing.
    static func unsupportedReason(_ format: OutputFormat) -> String? {
        guard (try? start()) != nil else { return "libvips did not start" }
        guard cvips_has_operation(format.saverName) != 0 else {
            return "libvips \(version) has no \(format.saverName) (install a libvips built with it)"
        }
        guard format == .heic || format == .avif else { return nil }
        let probe = FileManager.default.temporaryDirectory
            .appendingPathComponent("collage-probe-\(UUID().uuidString).\(format.rawValue)")
        defer { try? FileManager.default.removeItem(at: probe) }
        do throws(VipsError) {
            try VipsImage.solid(width: 16, height: 16, values: [128, 128, 128]).save(
                to: probe.path, format: format, quality: 50)
            return nil
        } catch {
            return "the installed libheif has no \(format == .heic ? "HEVC" : "AV1") encoder (\(error.message))"
        }
    }
}

/// The pixels promised to an image made by ``VipsImage/pending()``; given once, from any thread.
final class PendingPixels: @unchecked Sendable {
    private let handle: OpaquePointer

    fileprivate init(handle: OpaquePointer) { self.handle = handle }

    deinit { cvips_pending_release(handle) }

    /// The image's pixels from now on: `pixels` is in memory and of the promised size.
    func fill(with pixels: VipsImage) { cvips_pending_fill(handle, pixels.handle) }

    /// Every region asked of the image fails with `message`.
    func fail(_ message: String) { cvips_pending_fail(handle, message) }
}
