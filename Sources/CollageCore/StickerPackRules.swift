/// The messengers a sticker pack is made for.
public enum Messenger: String, CaseIterable, Sendable {
    /// WhatsApp, through a sticker-maker app that imports `.wastickers` files.
    case whatsapp
    /// Telegram, through its @Stickers bot.
    case telegram
    /// Signal, through its desktop Sticker Creator.
    case signal
    /// iMessage, through an Xcode sticker pack.
    case imessage

    /// The messenger's rules for a static pack: the limits it publishes for static stickers.
    /// - WhatsApp: WebP, exactly 512 × 512, at most 100 KB; 3 to 30 stickers a pack; a 96 × 96 PNG
    ///   tray icon of at most 50 KB; a 16 px margin and a white stroke are its advice.
    /// - Telegram: PNG or WebP with one side exactly 512 and the other at most 512; the @Stickers
    ///   bot takes files up to 512 KB and a set of up to 120; a 100 × 100 thumbnail up to 128 KB.
    /// - Signal: PNG, APNG or WebP at 512 × 512, at most 300 KiB; up to 200 stickers a pack;
    ///   moving ones as APNG of at most 3 s.
    /// - iMessage: PNG or APNG at 300, 408 or 618 px (408, the regular size, here), under 500 KB.
    public var rules: StickerPackRules {
        switch self {
        case .whatsapp:
            StickerPackRules(
                name: "WhatsApp", format: .webp, side: 512, square: true, maximumBytes: 100_000, stickers: 3...30,
                margin: 16, outline: 8, icon: PackIcon(name: "tray.png", side: 96, maximumBytes: 50_000),
                // Animated WebP, at most 500 KB and 10 s, each frame at least 8 ms.
                animated: AnimatedPackRules(
                    fileExtension: "webp", maximumBytes: 500_000, longestSeconds: 10, fastestFPS: 30))
        case .telegram:
            StickerPackRules(
                name: "Telegram", format: .png, side: 512, square: false, maximumBytes: 512_000, stickers: 1...120,
                margin: 0, outline: 8, icon: PackIcon(name: "thumbnail.png", side: 100, maximumBytes: 128_000),
                // Video stickers: VP9 WebM, at most 256 KB, 3 s and 30 frames a second, no sound.
                animated: AnimatedPackRules(
                    fileExtension: "webm", maximumBytes: 256_000, longestSeconds: 3, fastestFPS: 30))
        case .signal:
            StickerPackRules(
                name: "Signal", format: .png, side: 512, square: true, maximumBytes: 300 * 1024, stickers: 1...200,
                margin: 16, outline: 0, icon: nil,
                // Animated PNG, at most 300 KiB and 3 s, looping. Signal names no frame rate;
                // 15 a second is as many as an APNG of a photo can afford.
                animated: AnimatedPackRules(
                    fileExtension: "png", maximumBytes: 300 * 1024, longestSeconds: 3, fastestFPS: 15))
        case .imessage:
            StickerPackRules(
                name: "iMessage", format: .png, side: 408, square: true, maximumBytes: 499_999, stickers: 1...100,
                margin: 8, outline: 0, icon: nil,
                // Animated PNG under 500 KB (Messages names no length; Collage's longest loop).
                animated: AnimatedPackRules(
                    fileExtension: "png", maximumBytes: 499_999,
                    longestSeconds: Limits.liveStickerDuration.upperBound, fastestFPS: 15))
        }
    }
}

/// The file format of a pack's pictures.
public enum PackImageFormat: String, Sendable {
    /// WebP with alpha, lossy: its quality is lowered until the file fits.
    case webp
    /// PNG with alpha: lossless, then quantised to a palette of falling quality until it fits.
    case png
}

/// One messenger's published limits for a static sticker pack, in one table so the command, the
/// editor and the tests all read the same numbers.
public struct StickerPackRules: Sendable, Equatable {
    /// The messenger's name as people write it.
    public let name: String
    /// The pictures' format.
    public let format: PackImageFormat
    /// The side every picture has (a square), or its longer side when ``square`` is false.
    public let side: Int
    /// Whether every picture is exactly ``side`` × ``side``; otherwise one side is ``side`` and
    /// the other at most that (Telegram).
    public let square: Bool
    /// The largest file the messenger takes, in bytes.
    public let maximumBytes: Int
    /// How many stickers one pack holds.
    public let stickers: ClosedRange<Int>
    /// Transparent room left round the subject, in pixels at ``side`` (the messengers' own advice).
    public let margin: Int
    /// The white outline drawn round the subject, in pixels at ``side`` (0: none).
    public let outline: Double
    /// The pack's icon, when the messenger asks for one.
    public let icon: PackIcon?
    /// What the messenger takes for moving stickers, when Collage makes them for it.
    public let animated: AnimatedPackRules?
}

/// A messenger's limits for moving stickers.
public struct AnimatedPackRules: Sendable, Equatable {
    /// The file's extension, which names its format (`webp`: animated WebP, `webm`: VP9, `png`:
    /// animated PNG).
    public let fileExtension: String
    /// The largest file the messenger takes, in bytes.
    public let maximumBytes: Int
    /// The longest loop it takes, in seconds.
    public let longestSeconds: Double
    /// The most frames a second it takes (and Collage draws).
    public let fastestFPS: Int
}

/// A pack's icon: the picture a messenger shows for the whole pack.
public struct PackIcon: Sendable, Equatable {
    /// Its file name in the pack.
    public let name: String
    /// Its side, in pixels (a square).
    public let side: Int
    /// The largest file the messenger takes, in bytes.
    public let maximumBytes: Int
}
