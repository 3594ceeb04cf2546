import CollageCore
import Foundation

/// Live stickers: a sticker moving in a short loop (``CollageCore/StickerMotion``), drawn from its
/// own pixels on a clear square and written as an animation.
public enum LiveStickers {
    /// The frames of `sticker` (RGBA, its outline and effect already drawn) moving in `motion`:
    /// `count` frames of `side` × `side` RGBA pixels, the loop's phase running evenly from 0. The
    /// sticker is fitted with room for the movement and stands on its foot near the bottom.
    /// - Throws: ``RenderError`` for a sticker with nothing opaque, or sizes out of range.
    public static func frames(
        of sticker: Bitmap, motion: StickerMotion, side: Int, count: Int
    ) throws(RenderError) -> [[UInt8]] {
        guard sticker.channels == 4 else { throw .invalidOptions("a sticker needs an alpha channel") }
        guard (16...Limits.motionSide.upperBound).contains(side), (1...Limits.maximumMotionFrames).contains(count)
        else {
            throw .invalidOptions(
                "a live sticker is 16 to \(Limits.motionSide.upperBound) px and at most "
                    + "\(Limits.maximumMotionFrames) frames")
        }
        guard let box = PackImages.opaqueBounds(of: sticker) else {
            throw .invalidOptions("it has no subject: every pixel is clear")
        }
        return try vips("draw a live sticker") { () throws(VipsError) -> [[UInt8]] in
            let source = try VipsImage.fromPixels(
                sticker.pixels, width: sticker.width, height: sticker.height, bands: 4
            )
            .extractArea(x: box.x, y: box.y, width: box.width, height: box.height)
            // Room for the hop above, the squash and the rocking at the sides.
            let room = Double(side) * 0.76
            let fit = min(room / Double(box.width), room / Double(box.height))
            let rest = try PackImages.resizedKeepingEdges(source, scale: fit).copyToMemory()
            let foot = (x: Double(side) / 2, y: Double(side) * 0.94)
            var frames: [[UInt8]] = []
            for index in 0..<count {
                let pose = motion.pose(at: Double(index) / Double(count))
                frames.append(try draw(rest, pose: pose, side: side, foot: foot))
            }
            return frames
        }
    }

    /// One frame: the sticker grown, turned about its foot and lifted, over its shadow when it is
    /// lifted off the page, with a glint across it when there is one.
    static func draw(
        _ rest: VipsImage, pose: StickerPose, side: Int, foot: (x: Double, y: Double)
    ) throws(VipsError) -> [UInt8] {
        var image = rest
        if abs(pose.scaleX - 1) > 0.001 || abs(pose.scaleY - 1) > 0.001 {
            image = try image.resizedKeepingEdges(horizontal: pose.scaleX, vertical: pose.scaleY)
        }
        let height = Double(image.height)
        // Where the image's centre goes: its foot on the floor, turned about the foot.
        let radians = pose.rotation * .pi / 180
        var centre = (
            x: foot.x + height / 2 * sin(radians), y: foot.y - height / 2 * cos(radians) + pose.offsetY * height
        )
        if abs(pose.rotation) > 0.01 { image = try CellEffects.rotate(image, degrees: pose.rotation) }
        var layers: [(image: VipsImage, x: Int, y: Int)] = []
        if pose.lift > 0.01 {
            // The shadow of a sticker lifted off the page: softer and farther as it rises.
            let sigma = max(1, Double(side) * (0.008 + 0.02 * pose.lift))
            let margin = Int((sigma * 3).rounded(.up))
            let alpha = try image.extractBands(3, count: 1)
                .embed(x: margin, y: margin, width: image.width + 2 * margin, height: image.height + 2 * margin)
                .gaussianBlur(sigma: sigma).linear(multiply: 0.45 * pose.lift, add: 0).castToUInt8()
            let shadow = try VipsImage.solid(width: alpha.width, height: alpha.height, values: [0, 0, 0])
                .castToUInt8().joining(alpha)
            let drop = Double(side) * 0.03 * pose.lift
            layers.append(
                (
                    shadow, Int((centre.x - Double(shadow.width) / 2 + drop).rounded()),
                    Int((centre.y - Double(shadow.height) / 2 + drop * 1.5).rounded())
                ))
        }
        centre.x -= Double(image.width) / 2
        centre.y -= Double(image.height) / 2
        layers.append((image, Int(centre.x.rounded()), Int(centre.y.rounded())))
        let canvas = try VipsImage.solid(width: side, height: side, values: [0, 0, 0, 0]).castToUInt8()
        var pixels = try canvas.compositing(layers).castToUInt8().pixels()
        if let shine = pose.shine { glint(&pixels, side: side, at: shine) }
        return pixels
    }

    /// A soft white band across the sticker's own pixels, running from top left to bottom right.
    static func glint(_ pixels: inout [UInt8], side: Int, at position: Double) {
        let centre = -0.25 + 1.5 * position
        for y in 0..<side {
            for x in 0..<side {
                let index = (y * side + x) * 4
                guard pixels[index + 3] > 0 else { continue }
                let along = (Double(x) + Double(y)) / Double(2 * side)
                let strength = max(0, 1 - abs(along - centre) / 0.07)
                guard strength > 0 else { continue }
                let mix = strength * strength * 0.75
                for channel in 0..<3 {
                    let value = Double(pixels[index + channel])
                    pixels[index + channel] = UInt8(min(255, value + (255 - value) * mix).rounded())
                }
            }
        }
    }

    /// `sticker` moving in `motion`, written to `output` as `options` say (their longer side is
    /// the square's side), atomically.
    /// - Throws: ``RenderError`` as ``frames(of:motion:side:count:)`` and the writer do.
    @discardableResult
    public static func render(
        _ sticker: Bitmap, motion: StickerMotion, options: AnimationOptions, to output: URL
    ) throws(RenderError) -> AnimationResult {
        try CollageRenderer.check(options, durations: Limits.liveStickerDuration)
        let count = Int((options.duration * Double(options.framesPerSecond)).rounded())
        // 4:2:0 video needs an even side.
        let side = options.format.needsEvenSides ? options.longerSide & ~1 : options.longerSide
        let frames = try frames(of: sticker, motion: motion, side: side, count: count)
        try write(
            frames, side: side, format: options.format, fps: options.framesPerSecond, quality: options.quality,
            to: output)
        return AnimationResult(
            file: output, width: side, height: side, frames: count,
            framesPerSecond: options.framesPerSecond, format: options.format)
    }

    /// Writes `frames` (RGBA, `side` × `side`) as `format` at `fps` and `quality` to `file`,
    /// atomically; GIF frames go on a palette made from the middle frame, clear pixels kept
    /// clear. An APNG with `colours` (2–256) goes on one palette of that many colours, alpha
    /// kept: a quarter of the RGBA bytes, for messengers' byte limits. `colours` is for APNG
    /// only; other formats ignore it.
    public static func write(
        _ frames: [[UInt8]], side: Int, format: AnimationFormat, fps: Int, quality: Int, colours: Int? = nil,
        to file: URL
    ) throws(RenderError) {
        guard let first = frames.first else { throw .invalidOptions("an animation needs at least one frame") }
        // A GIF keeps the clear pixels on a palette entry of their own (see GIFPalette).
        let flattened = format.keepsAlpha || format == .gif ? frames : frames.map { Self.flattenedOnWhite($0) }
        let gifPalette =
            format == .gif
            ? GIFPalette(
                flattened.count > 1 ? flattened[flattened.count / 2] : first, width: side, height: side,
                keepsClear: true) : nil
        let stickerPalette = format == .apng ? colours.map { StickerPalette(frames: frames, count: $0) } : nil
        try AtomicFile.writeRendered(to: file) { path throws(RenderError) in
            let writer = try MotionWriter(
                path: path, format: format, width: side, height: side, fps: fps, quality: quality,
                onPalette: stickerPalette != nil)
            for frame in flattened {
                if let gifPalette {
                    try writer.write(
                        indices: gifPalette.indices(of: frame, width: side, height: side), colours: gifPalette.colours)
                } else if let stickerPalette {
                    try writer.write(indices: stickerPalette.indices(of: frame), colours: stickerPalette.colours)
                } else {
                    try writer.write(rgba: frame)
                }
            }
            try writer.finish()
        }
    }

    /// A format without alpha shows the sticker on white, as a messenger's light theme does.
    static func flattenedOnWhite(_ rgba: [UInt8]) -> [UInt8] {
        var result = rgba
        for index in stride(from: 0, to: rgba.count, by: 4) {
            let alpha = Int(rgba[index + 3])
            for channel in 0..<3 {
                result[index + channel] = UInt8((Int(rgba[index + channel]) * alpha + 255 * (255 - alpha) + 127) / 255)
            }
            result[index + 3] = 255
        }
        return result
    }
}
