import CMotionInterface
import CollageCore
import Foundation
import Synchronization

/// The files an animated collage is written as.
public enum AnimationFormat: String, CaseIterable, Sendable {
    /// H.264 in MP4 (yuv420p, the index first): what every phone plays.
    case mp4
    /// VP9 in WebM.
    case webm
    /// Animated WebP, looping.
    case webp
    /// GIF on a palette made for the collage, looping.
    case gif
    /// Animated PNG, looping.
    case apng

    /// The file name extension.
    public var fileExtension: String { self == .apng ? "png" : rawValue }

    /// The most frames a second a GIF plays as written.
    public static let fastestGIF = 50

    /// The format a file name's extension names (`.png` is APNG), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "mp4", "m4v": self = .mp4
        case "webm": self = .webm
        case "webp": self = .webp
        case "gif": self = .gif
        case "png", "apng": self = .apng
        default: return nil
        }
    }

    /// Whether the format keeps a see-through background.
    var keepsAlpha: Bool { self == .webp || self == .apng || self == .webm }
    /// Whether the encoder needs even sides (4:2:0 chroma).
    var needsEvenSides: Bool { self == .mp4 || self == .webm }
    var writerKind: Int32 {
        switch self {
        case .mp4: Int32(CMOTION_MP4)
        case .webm: Int32(CMOTION_WEBM)
        case .webp: Int32(CMOTION_WEBP)
        case .gif: Int32(CMOTION_GIF)
        case .apng: Int32(CMOTION_APNG)
        }
    }
}

/// How an animated collage is made.
public struct AnimationOptions: Sendable, Equatable {
    /// The file format.
    public var format: AnimationFormat
    /// How the photos arrive.
    public var style: MotionStyle
    /// The length in seconds (``CollageCore/Limits/motionDuration``).
    public var duration: Double
    /// The longer side in pixels (``CollageCore/Limits/motionSide``).
    public var longerSide: Int
    /// Frames a second (``CollageCore/Limits/motionFramesPerSecond``).
    public var framesPerSecond: Int
    /// The encoder's quality, 1–100.
    public var quality: Int

    /// Options; by default a 6 s Pop MP4, 1,080 px, 30 frames a second. A GIF defaults to 480 px
    /// and 15 frames a second: larger ones are many megabytes.
    public init(
        format: AnimationFormat = .mp4, style: MotionStyle = .pop, duration: Double = 6, longerSide: Int? = nil,
        framesPerSecond: Int? = nil, quality: Int = 80
    ) {
        self.format = format
        self.style = style
        self.duration = duration
        self.longerSide = longerSide ?? (format == .gif ? 480 : 1_080)
        self.framesPerSecond = framesPerSecond ?? (format == .gif ? 15 : 30)
        self.quality = quality
    }
}

/// What an animated render wrote.
public struct AnimationResult: Sendable, Equatable {
    /// The file.
    public let file: URL
    /// Its size in pixels.
    public let width: Int
    /// See ``width``.
    public let height: Int
    /// How many frames it holds.
    public let frames: Int
    /// Frames a second.
    public let framesPerSecond: Int
    /// The format.
    public let format: AnimationFormat
}

extension CollageRenderer {
    /// Renders `collage` as an animation: it assembles (photos arrive in the options' style,
    /// stickers bounce in with sparks, texts fade in), then holds as the collage is, and loops.
    /// Every frame is drawn by the renderer from the same layers as a still export, so the frames
    /// after the last arrival are the still export at this size.
    /// - Throws: ``RenderError`` for options out of range, an unreadable photo, or a file that
    ///   cannot be written (nothing is left at `output` then).
    @discardableResult
    public func animate(
        _ collage: Collage, photos: some PhotoSource, options: AnimationOptions, to output: URL,
        cancellation: RenderCancellation? = nil
    ) throws(RenderError) -> AnimationResult {
        let issues = CollageDocument.issues(in: collage)
        guard issues.isEmpty else { throw .invalidDocument(issues.map(\.description)) }
        try Self.check(options)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: output.path, isDirectory: &isFolder), isFolder.boolValue {
            throw .cannotWrite(output.path, reason: "it is a folder; name the file to write")
        }
        let frames = Int((options.duration * Double(options.framesPerSecond)).rounded())
        let scale = Double(options.longerSide) / max(collage.canvas.width, collage.canvas.height)
        var (width, height) = (
            max(2, Int((collage.canvas.width * scale).rounded())),
            max(2, Int((collage.canvas.height * scale).rounded()))
        )
        // 4:2:0 video needs even sides: the last column or row is left out.
        let (frameWidth, frameHeight) = options.format.needsEvenSides ? (width & ~1, height & ~1) : (width, height)
        let work = Double(frames) * Double(frameWidth) * Double(frameHeight)
        guard work <= Double(Limits.maximumMotionPixels) else {
            let seconds =
                Double(Limits.maximumMotionPixels) / (Double(frameWidth) * Double(frameHeight))
                / Double(options.framesPerSecond)
            throw .invalidOptions(
                "\(frames) frames of \(frameWidth) × \(frameHeight) pixels is more than one animation draws "
                    + "(\(Limits.maximumMotionPixels / 1_000_000) megapixels in all); at this size and frame rate it "
                    + "can last \(JSONValue.format((seconds * 10).rounded(.down) / 10)) s, or choose a smaller size")
        }
        guard Limits.allowsOutput(width: Double(width), height: Double(height)) else {
            throw .outputTooLarge(size: "\(width) × \(height)", limit: "\(Limits.maximumOutputSide) pixels a side")
        }
        let keepsAlpha = options.format.keepsAlpha && collage.style.background.hasTransparency
        let drawn = try background(
            of: collage, width: width, height: height, scale: scale, keepsAlpha: keepsAlpha, photos: photos)
        let base = try vips("draw the background") { () throws(VipsError) in try drawn.copyToMemory() }
        var layers: [MovingLayer] = []
        for item in collage.items where Self.isVisible(item, scale: scale, width: width, height: height) {
            try cancellation?.check()
            let file = item.content.reference == nil ? nil : try photos.file(for: item.content)
            let layer = try layer(for: item, file: file, scale: scale, style: collage.style, photos: photos)
            layers.append(
                try MovingLayer(
                    item: item, layer: layer, style: options.style, scale: scale, canvasWidth: width,
                    canvasHeight: height, canvas: collage.canvas))
        }
        (width, height) = (frameWidth, frameHeight)
        let timeline = MotionTimeline(collage: collage, style: options.style, duration: options.duration)
        let frame = FrameComposer(base: base, width: width, height: height, scale: scale)
        let still = try frame.compose(layers.map { ($0.image, $0.x, $0.y) })
        let display = output.path
        let palette = options.format == .gif ? GIFPalette(still, width: width, height: height) : nil
        try AtomicFile.writeRendered(to: output) { path throws(RenderError) in
            let writer = try MotionWriter(
                path: path, format: options.format, width: width, height: height, fps: options.framesPerSecond,
                quality: options.quality, shownAs: display)
            for index in 0..<frames {
                try cancellation?.check()
                let time = Double(index) / Double(options.framesPerSecond)
                var pixels = still
                if !timeline.isSettled(at: time) {
                    var moving: [(image: VipsImage, x: Int, y: Int)] = []
                    for layer in layers {
                        let state = timeline.state(of: layer.item, at: time)
                        guard state.opacity > 0.001 else { continue }
                        moving.append(try frame.place(layer, state: state))
                    }
                    pixels = try frame.compose(moving)
                    let sparks = layers.flatMap { timeline.sparks(of: $0.item, at: time) }
                    frame.draw(sparks, on: &pixels)
                }
                if let palette {
                    try writer.write(
                        indices: palette.indices(of: pixels, width: width, height: height), colours: palette.colours)
                } else {
                    try writer.write(rgba: pixels)
                }
            }
            try writer.finish()
        }
        return AnimationResult(
            file: output, width: width, height: height, frames: frames, framesPerSecond: options.framesPerSecond,
            format: options.format)
    }

    /// Every option against ``CollageCore/Limits``.
    static func check(
        _ options: AnimationOptions, durations: ClosedRange<Double> = Limits.motionDuration
    ) throws(RenderError) {
        guard options.duration.isFinite, durations.contains(options.duration) else {
            throw .invalidOptions(
                "the duration must be a number of seconds \(Limits.describe(durations)), got "
                    + JSONValue.format(options.duration))
        }
        guard Limits.motionSide.contains(options.longerSide) else {
            throw .invalidOptions(
                "the size must be a longer side in pixels \(Limits.describe(Limits.motionSide)), got \(options.longerSide)"
            )
        }
        guard Limits.motionFramesPerSecond.contains(options.framesPerSecond) else {
            throw .invalidOptions(
                "the frame rate must be \(Limits.describe(Limits.motionFramesPerSecond)) frames a second, got "
                    + "\(options.framesPerSecond)")
        }
        guard Limits.quality.contains(options.quality) else {
            throw .invalidOptions(
                "the quality must be a whole number \(Limits.describe(Limits.quality)), got \(options.quality)")
        }
        if let problem = options.combinedProblem { throw .invalidOptions(problem.message) }
    }
}

extension AnimationOptions {
    /// What is wrong with options that are each within their range but not together (a GIF's
    /// frame rate, the frame count), and the option to change; nil when nothing is. The command
    /// line, the API and the renderer all ask this one place.
    public var combinedProblem: (field: String, message: String)? {
        if format == .gif, framesPerSecond > AnimationFormat.fastestGIF {
            return (
                "fps",
                "a GIF plays at most \(AnimationFormat.fastestGIF) frames a second (its delays are hundredths of a "
                    + "second, and browsers slow shorter ones), got \(framesPerSecond)"
            )
        }
        let frames = Int((duration * Double(framesPerSecond)).rounded())
        if frames > Limits.maximumMotionFrames {
            return (
                "duration",
                "\(frames) frames is more than the limit of \(Limits.maximumMotionFrames); shorten the animation "
                    + "or lower the frame rate"
            )
        }
        return nil
    }
}

/// One item's layer as the still export draws it, kept in memory for the frames: only the part
/// that any moment of its arrival can bring onto the canvas (an item ten canvases wide is not
/// held whole), with the centre it grows and shrinks about.
struct MovingLayer {
    let item: CollageItem
    let image: VipsImage
    let x: Int
    let y: Int
    /// The whole layer's centre, in frame pixels.
    let centre: (x: Double, y: Double)

    init(
        item: CollageItem, layer: (image: VipsImage, x: Int, y: Int), style: MotionStyle, scale: Double,
        canvasWidth: Int, canvasHeight: Int, canvas: Size
    ) throws(RenderError) {
        self.item = item
        let whole = layer.image
        centre = (Double(layer.x) + Double(whole.width) / 2, Double(layer.y) + Double(whole.height) / 2)
        // The smallest it is drawn, and how far it is moved, over its arrival (and the clearing).
        let smallest: Double
        var reach = 0.03 * max(canvas.width, canvas.height) * scale
        switch item.content {
        case .sticker: smallest = 0.3
        case .text: smallest = 0.97
        case .photo:
            smallest = style == .pop ? 0.45 : 0.95
            if style == .slide { reach = 0.36 * max(canvas.width, canvas.height) * scale }
        }
        // What of the layer can land on the canvas: the canvas, widened by the reach, seen
        // through the smallest scale about the centre.
        let (cx, cy) = centre
        let left = max(Double(layer.x), cx + (-reach - cx) / smallest)
        let top = max(Double(layer.y), cy + (-reach - cy) / smallest)
        let right = min(Double(layer.x + whole.width), cx + (Double(canvasWidth) + reach - cx) / smallest)
        let bottom = min(Double(layer.y + whole.height), cy + (Double(canvasHeight) + reach - cy) / smallest)
        let x0 = min(layer.x + whole.width - 1, max(layer.x, Int(left.rounded(.down))))
        let y0 = min(layer.y + whole.height - 1, max(layer.y, Int(top.rounded(.down))))
        let width = max(1, min(layer.x + whole.width, Int(right.rounded(.up))) - x0)
        let height = max(1, min(layer.y + whole.height, Int(bottom.rounded(.up))) - y0)
        image = try vips("decode a layer") { () throws(VipsError) -> VipsImage in
            guard width < whole.width || height < whole.height else { return try whole.copyToMemory() }
            return try whole.extractArea(x: x0 - layer.x, y: y0 - layer.y, width: width, height: height).copyToMemory()
        }
        (x, y) = (x0, y0)
    }
}

/// Composes one frame from the collage's layers, each where a moment of its arrival puts it.
struct FrameComposer {
    let base: VipsImage
    let width: Int
    let height: Int
    /// Pixels per canvas point.
    let scale: Double

    /// `layers` stacked on the background, as RGBA bytes of the frame's size.
    func compose(_ layers: [(image: VipsImage, x: Int, y: Int)]) throws(RenderError) -> [UInt8] {
        try vips("compose a frame") { () throws(VipsError) -> [UInt8] in
            var image = try CollageRenderer.stack(layers, on: base)
            if image.width != width || image.height != height {
                image = try image.extractArea(x: 0, y: 0, width: width, height: height)
            }
            if image.bands == 3 { image = try image.appendingBand(value: 255) }
            return try image.pixels()
        }
    }

    /// A layer at `state`: grown or shrunk about its item's centre, moved and faded.
    func place(_ layer: MovingLayer, state: MotionState) throws(RenderError) -> (image: VipsImage, x: Int, y: Int) {
        try vips("move a layer") { () throws(VipsError) -> (image: VipsImage, x: Int, y: Int) in
            var placed = layer.image
            var (left, top) = (Double(layer.x), Double(layer.y))
            if abs(state.scale - 1) > 0.002 {
                let factor = max(0.01, state.scale)
                placed = try placed.resizedKeepingEdges(horizontal: factor, vertical: factor)
                left = layer.centre.x + (left - layer.centre.x) * factor
                top = layer.centre.y + (top - layer.centre.y) * factor
            }
            placed = try CellEffects.fade(placed, opacity: state.opacity)
            left += state.offsetX * scale
            top += state.offsetY * scale
            return (placed, Int(left.rounded()), Int(top.rounded()))
        }
    }

    /// Sparks drawn over the frame: a white core in a warm golden glow.
    func draw(_ sparks: [MotionSpark], on pixels: inout [UInt8]) {
        let glow: (Double, Double, Double) = (255, 200, 60)
        for spark in sparks {
            let (cx, cy) = (spark.x * scale, spark.y * scale)
            let core = max(1, spark.radius * scale)
            let reach = core * 3
            let (left, right) = (max(0, Int(cx - reach)), min(width - 1, Int(cx + reach)))
            let (top, bottom) = (max(0, Int(cy - reach)), min(height - 1, Int(cy + reach)))
            guard left <= right, top <= bottom else { continue }
            for y in top...bottom {
                for x in left...right {
                    let distance =
                        ((Double(x) + 0.5 - cx) * (Double(x) + 0.5 - cx)
                        + (Double(y) + 0.5 - cy) * (Double(y) + 0.5 - cy)).squareRoot()
                    let coreCover = min(1, max(0, core + 0.5 - distance)) * spark.opacity
                    let glowCover = pow(max(0, 1 - distance / reach), 1.5) * 0.85 * spark.opacity
                    guard coreCover > 0 || glowCover > 0 else { continue }
                    let index = (y * width + x) * 4
                    for (channel, tint) in [glow.0, glow.1, glow.2].enumerated() {
                        var value = Double(pixels[index + channel])
                        value += (tint - value) * glowCover
                        value += (255 - value) * coreCover
                        pixels[index + channel] = UInt8(min(255, max(0, value)).rounded())
                    }
                    let alpha = Double(pixels[index + 3])
                    pixels[index + 3] = UInt8(min(255, alpha + (255 - alpha) * max(coreCover, glowCover)).rounded())
                }
            }
        }
    }
}

/// The animation library (FFmpeg behind `cmotion_interface.h`), opened the first time an
/// animation is written. Keeping FFmpeg out of the executable's own links keeps its sixty-odd
/// shared objects out of every command's start.
struct MotionLibrary: @unchecked Sendable {
    // @unchecked: plain C function pointers into a library that is never unloaded.
    let open: cmotion_open_fn
    let writeRGBA: cmotion_write_rgba_fn
    let writeIndexed: cmotion_write_indexed_fn
    let finish: cmotion_finish_fn
    let discard: cmotion_discard_fn

    private static let opened = Mutex<MotionLibrary?>(nil)

    /// The library, opened on first use; a failure is not kept, so a library installed since
    /// (or a binary replaced under a running server) is found on the next try.
    /// - Throws: ``RenderError/engineMissing(_:)`` naming where it was looked for.
    static func get() throws(RenderError) -> MotionLibrary {
        try opened.withLock { (library: inout MotionLibrary?) throws(RenderError) -> MotionLibrary in
            if let library { return library }
            let loaded = try load().get()
            library = loaded
            return loaded
        }
    }

    /// Where to look: `$COLLAGE_MOTION_LIBRARY`, else next to the running executable (where
    /// SwiftPM builds it, for the `collage` binary and the test runner alike, and where it is installed).
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let explicit = environment["COLLAGE_MOTION_LIBRARY"], !explicit.isEmpty { return [explicit] }
        return [ExecutableFolder.current().appendingPathComponent(CMOTION_LIBRARY_NAME).path]
    }

    private static func load() -> Result<MotionLibrary, RenderError> {
        let found = OnDemandLibrary.open(candidates()) { library -> MotionLibrary? in
            guard let open = library.function("cmotion_open", as: cmotion_open_fn.self),
                let writeRGBA = library.function("cmotion_write_rgba", as: cmotion_write_rgba_fn.self),
                let writeIndexed = library.function("cmotion_write_indexed", as: cmotion_write_indexed_fn.self),
                let finish = library.function("cmotion_finish", as: cmotion_finish_fn.self),
                let discard = library.function("cmotion_discard", as: cmotion_discard_fn.self)
            else { return nil }
            return MotionLibrary(
                open: open, writeRGBA: writeRGBA, writeIndexed: writeIndexed, finish: finish, discard: discard)
        }
        return found.mapError { problems -> RenderError in
            .engineMissing("cannot write animations: the animation library is missing (\(problems)); reinstall Collage")
        }
    }
}

/// An animation file being written: frames go straight to FFmpeg's encoder.
final class MotionWriter {
    private let library: MotionLibrary
    private var writer: OpaquePointer?
    private let pixelCount: Int

    /// A writer of `format`; `onPalette` makes an APNG of palette frames (``StickerPalette``), the
    /// smallest APNG, instead of RGBA ones (a GIF is always on a palette).
    init(
        path: String, format: AnimationFormat, width: Int, height: Int, fps: Int, quality: Int, shownAs: String? = nil,
        onPalette: Bool = false
    ) throws(RenderError) {
        library = try MotionLibrary.get()
        var message = [CChar](repeating: 0, count: 512)
        let kind = format == .apng && onPalette ? Int32(CMOTION_APNG_PALETTE) : format.writerKind
        writer = library.open(
            path, kind, Int32(width), Int32(height), Int32(fps), Int32(quality), &message, message.count)
        pixelCount = width * height
        if writer == nil {
            throw .cannotWrite(
                shownAs ?? path, reason: "could not start the \(format.rawValue.uppercased()): \(Self.text(message))")
        }
    }

    deinit { if let writer { library.discard(writer) } }

    func write(rgba: [UInt8]) throws(RenderError) {
        guard let writer, rgba.count == pixelCount * 4 else { throw .failed("a frame of the wrong size") }
        var message = [CChar](repeating: 0, count: 512)
        guard library.writeRGBA(writer, rgba, &message, message.count) == 0 else {
            throw .failed(Self.text(message))
        }
    }

    /// Appends a frame of `indices` on `colours` (256 entries, 0xAARRGGBB): a GIF's, or a palette APNG's.
    func write(indices: [UInt8], colours: [UInt32]) throws(RenderError) {
        guard let writer, indices.count == pixelCount, colours.count == 256 else {
            throw .failed("a frame of the wrong size")
        }
        var message = [CChar](repeating: 0, count: 512)
        guard library.writeIndexed(writer, indices, colours, &message, message.count) == 0 else {
            throw .failed(Self.text(message))
        }
    }

    func finish() throws(RenderError) {
        guard let writer else { return }
        self.writer = nil
        var message = [CChar](repeating: 0, count: 512)
        guard library.finish(writer, &message, message.count) == 0 else { throw .failed(Self.text(message)) }
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
