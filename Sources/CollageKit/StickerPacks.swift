import CollageCore
import CollageRender
import Foundation

/// A sticker pack for a messenger to make: which messenger, which stickers, and the pack's name.
public struct StickerPackRequest: Sendable {
    /// Where a sticker comes from.
    public enum Source: Sendable, Equatable {
        /// A PNG or WebP with alpha (from `collage sticker`).
        case file(URL)
        /// A library sticker, by its id.
        case sticker(String)
    }

    /// The messenger the pack is for.
    public let messenger: Messenger
    /// The stickers, in the pack's order.
    public let sources: [Source]
    /// The pack's title, as the messenger shows it.
    public let title: String
    /// Who made it, as the messenger shows it.
    public let author: String
    /// How the stickers move, for a pack of live stickers; nil for still ones.
    public let motion: StickerMotion?
    /// A live sticker's loop, in seconds.
    public let duration: Double

    /// The longest title or author a pack takes (WhatsApp's limit, the strictest).
    public static let longestName = 128

    /// A request, checked before anything is read.
    /// - Throws: ``Failure`` `invalidOption` for an unknown messenger, or a title or author that is
    ///   empty or too long; `invalidInput` for fewer or more stickers than the messenger takes.
    /// - Parameters:
    ///   - motion: live stickers moving so (`bounce`, `wiggle`, `float`, `shine`, `peel`): animated
    ///     WebP for WhatsApp, VP9 WebM for Telegram, animated PNG for Signal and iMessage; nil for
    ///     still ones.
    ///   - duration: a live sticker's loop in seconds, up to the messenger's longest (default 2).
    public init(
        messenger name: String, sources: [Source], title: String? = nil, author: String? = nil,
        motion: String? = nil, duration: Double? = nil
    ) throws(Failure) {
        guard let messenger = Messenger(rawValue: name.lowercased()) else {
            throw Failure(
                .invalidOption,
                "expects one of \(Messenger.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(name)\"",
                field: "for")
        }
        let rules = messenger.rules
        guard rules.stickers.contains(sources.count) else {
            throw Failure(
                .invalidInput,
                "a \(rules.name) pack holds \(rules.stickers.lowerBound) to \(rules.stickers.upperBound) stickers, "
                    + "got \(sources.count)")
        }
        for (field, value) in [("title", title), ("author", author)] {
            guard let value else { continue }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= Self.longestName, !trimmed.contains(where: \.isNewline) else {
                throw Failure(
                    .invalidOption, "expects one line of 1 to \(Self.longestName) characters, got \(value.count)",
                    field: field)
            }
        }
        var moving: StickerMotion?
        if let motion {
            guard let chosen = StickerMotion(rawValue: motion.lowercased()) else {
                throw ExportOptions.expected(
                    "animate", "one of \(StickerMotion.allCases.map(\.rawValue).joined(separator: ", "))", motion)
            }
            guard rules.animated != nil else {
                throw Failure(
                    .invalidOption,
                    "Collage makes no moving stickers for \(rules.name); leave out «animate» for a pack of still "
                        + "stickers", field: "animate")
            }
            moving = chosen
        }
        let longest = rules.animated?.longestSeconds ?? Limits.liveStickerDuration.upperBound
        if let duration,
            !(duration.isFinite && duration >= Limits.liveStickerDuration.lowerBound && duration <= longest)
        {
            throw Failure(
                .invalidOption,
                "expects a number of seconds from \(JSONValue.format(Limits.liveStickerDuration.lowerBound)) to "
                    + "\(JSONValue.format(longest)) (\(rules.name)'s longest), got \(JSONValue.format(duration))",
                field: "duration")
        }
        self.motion = moving
        self.duration = min(duration ?? 2, longest)
        self.messenger = messenger
        self.sources = sources
        self.title = title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "My stickers"
        self.author = author?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "Collage"
    }
}

/// A written sticker pack.
public struct StickerPack: Sendable, Equatable {
    /// One written picture.
    public struct File: Sendable, Equatable {
        /// Its file name in the pack's folder.
        public let name: String
        /// The sticker it was made from (a file name or a sticker id), or "icon".
        public let source: String
        /// Its width in pixels.
        public let width: Int
        /// Its height in pixels.
        public let height: Int
        /// Its size in bytes.
        public let bytes: Int
        /// The encoder's quality that made it fit, or nil when it is lossless.
        public let quality: Int?
        /// The palette's size that made a moving PNG fit, or nil for any other picture.
        public let colours: Int?

        /// A written picture; `colours` only for a moving PNG on a palette.
        public init(
            name: String, source: String, width: Int, height: Int, bytes: Int, quality: Int?, colours: Int? = nil
        ) {
            self.name = name
            self.source = source
            self.width = width
            self.height = height
            self.bytes = bytes
            self.quality = quality
            self.colours = colours
        }
    }

    /// The messenger it is for.
    public let messenger: Messenger
    /// The folder the files are in.
    public let folder: URL
    /// The stickers' pictures, in order.
    public let stickers: [File]
    /// The pack's icon, when the messenger asks for one.
    public let icon: File?
    /// The one file to hand to the messenger's importer, when it takes one (WhatsApp's `.wastickers`).
    public let archive: URL?
    /// What the person should know: each picture whose quality was lowered to fit, and each
    /// enlarged so much that it will look soft.
    public let notes: [String]

    /// A number of bytes as people read it: "98.2 KB".
    public static func text(bytes: Int) -> String { PackImages.bytes(bytes) }
}

extension StickerPackRequest {
    /// Makes every picture (each sized into the messenger's limits and encoded at the best
    /// quality that fits), reads each back to check it against the limits, and only then moves
    /// them into `folder` (made when missing): a failure leaves nothing half-written.
    /// - Parameter workspace: the library the stickers named by id are in; nil for files only.
    /// - Throws: ``Failure``: `notFound` for an unknown sticker or file, `noSubject` for a clear
    ///   picture, `invalidInput` for one that cannot fit the byte limit, `cannotWrite` for the folder.
    public func make(in workspace: Workspace?, into folder: URL) throws(Failure) -> StickerPack {
        let rules = messenger.rules
        guard !folder.path.isEmpty, folder.path != "/" else {
            throw Failure(.invalidOption, "name a folder for the pack, got \"\(folder.path)\"", field: "output")
        }
        // Every sticker is found before any is made; each is decoded only when its turn comes, so
        // a pack of large stickers holds one at a time.
        var pictures: [(name: String, file: URL)] = []
        for source in sources {
            switch source {
            case .file(let file):
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw Failure(.notFound, "\(file.path): no such file")
                }
                pictures.append((file.lastPathComponent, file))
            case .sticker(let id):
                guard let workspace else { throw Failure(.failed, "library stickers need a library") }
                let record = try workspace.sticker(id)
                pictures.append(("sticker \(id.prefix(40))", workspace.stickerImage(of: record)))
            }
        }
        let staging = folder.deletingLastPathComponent()
            .appendingPathComponent(".\(folder.lastPathComponent)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw Failure(.cannotWrite, "\(folder.path): cannot write the pack (\(error.localizedDescription))")
        }
        var files: [StickerPack.File] = []
        var notes: [String] = []
        let digits = max(2, String(pictures.count).count)
        for (index, picture) in pictures.enumerated() {
            let number = String(repeating: "0", count: max(0, digits - String(index + 1).count)) + String(index + 1)
            let bitmap = try Self.read(picture.file, named: picture.name)
            // A tiny sticker (a subject lifted from a thumbnail) is enlarged whole, and looks it.
            if let grown = PackImages.enlargement(of: bitmap, side: rules.side, margin: rules.margin),
                grown.factor > 2
            {
                notes.append(
                    "\(picture.name): its subject is only \(grown.width) × \(grown.height) px, enlarged "
                        + "\(String(format: "%.1f", grown.factor))× to fill \(rules.side) px; it will look soft "
                        + "(lift it from a larger photo)")
            }
            if let motion, let animated = rules.animated {
                let name = "\(number).\(animated.fileExtension)"
                let made = try Self.livePicture(
                    bitmap, named: picture.name, motion: motion, duration: duration, rules: rules,
                    animated: animated, side: rules.side)
                try Self.write(made.data, to: staging.appendingPathComponent(name))
                files.append(
                    StickerPack.File(
                        name: name, source: picture.name, width: rules.side, height: rules.side,
                        bytes: made.data.count, quality: made.quality, colours: made.colours))
                if (made.quality ?? 80) < 80 || (made.colours ?? 256) < 256 || made.fps < animated.fastestFPS {
                    let level = made.colours.map { "\($0) colours" } ?? "quality \(made.quality ?? 0)"
                    notes.append(
                        "\(name) (\(picture.name)): at \(level), \(made.fps) frames a second, to fit "
                            + PackImages.bytes(animated.maximumBytes))
                }
                continue
            }
            let name = "\(number).\(rules.format.rawValue)"
            let encoded = try Self.picture(
                bitmap, named: picture.name, side: rules.side, square: rules.square, margin: rules.margin,
                outline: rules.outline, format: rules.format, maximumBytes: rules.maximumBytes)
            try Self.check(encoded, named: name, format: rules.format, rules: rules, side: rules.side)
            try Self.write(encoded.data, to: staging.appendingPathComponent(name))
            files.append(
                StickerPack.File(
                    name: name, source: picture.name, width: encoded.width, height: encoded.height,
                    bytes: encoded.data.count, quality: encoded.quality))
            if let quality = encoded.quality, rules.format == .png || quality < 90 {
                notes.append(
                    "\(name) (\(picture.name)): \(rules.format == .png ? "on a palette at" : "at") quality \(quality) "
                        + "to fit \(PackImages.bytes(rules.maximumBytes))")
            }
        }
        var icon: StickerPack.File?
        // A Telegram video set's thumbnail must be a video too: without one, Telegram shows the first sticker.
        if let iconRules = rules.icon, let first = pictures.first, !(motion != nil && messenger == .telegram) {
            // The first sticker, small: what the messenger shows for the pack in its tray.
            let encoded = try Self.picture(
                try Self.read(first.file, named: first.name), named: first.name, side: iconRules.side, square: true,
                margin: 0,
                outline: rules.outline > 0 ? 2 : 0, format: .png, maximumBytes: iconRules.maximumBytes)
            try Self.write(encoded.data, to: staging.appendingPathComponent(iconRules.name))
            icon = StickerPack.File(
                name: iconRules.name, source: "icon", width: encoded.width, height: encoded.height,
                bytes: encoded.data.count, quality: encoded.quality)
        }
        var archiveName: String?
        if messenger == .whatsapp {
            // What sticker-maker apps import: the pictures, the tray icon, the title and the author.
            var entries: [(String, Data)] = []
            for file in files + (icon.map { [$0] } ?? []) {
                entries.append((file.name, try Self.readBack(staging.appendingPathComponent(file.name))))
            }
            entries.append(("title.txt", Data(title.utf8)))
            entries.append(("author.txt", Data(author.utf8)))
            let name = Self.fileName(title) + ".wastickers"
            try Self.write(ZipArchive.stored(entries), to: staging.appendingPathComponent(name))
            archiveName = name
        }
        // Everything is made: only now does the folder change.
        do {
            let written = try FileManager.default.contentsOfDirectory(atPath: staging.path)
            // A pack made here before leaves no picture behind that this one does not have: its
            // files are the ones its list names, and nothing else in the folder is touched.
            let list = folder.appendingPathComponent(Self.listName)
            let earlier = ((try? String(contentsOf: list, encoding: .utf8)) ?? "").split(separator: "\n")
                .map(String.init).filter { !$0.isEmpty && !$0.contains("/") && $0 != Self.listName }
            // A file of the person's own with a pack file's name (their 01.png) is not replaced.
            let theirs = written.filter {
                !earlier.contains($0) && FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
            }.sorted()
            if let first = theirs.first {
                throw Failure(
                    .invalidOption,
                    "\(folder.path) holds \(first)\(theirs.count > 1 ? " and \(theirs.count - 1) more" : ""), not made "
                        + "by a pack, which the pack's file of that name would replace: write the pack to a folder of "
                        + "its own", field: "output")
            }
            let gone = earlier.filter { !written.contains($0) }.sorted()
            if let first = gone.first {
                notes.append(
                    "the pack made in this folder before is replaced: \(first)"
                        + (gone.count > 1 ? " and \(gone.count - 1) more of its files are" : " is") + " removed")
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in earlier where !written.contains(name) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            try Self.write(Data((written.sorted().joined(separator: "\n") + "\n").utf8), to: list)
            for name in written {
                // rename(2) replaces a file of the same name in one step.
                guard rename(staging.appendingPathComponent(name).path, folder.appendingPathComponent(name).path) == 0
                else {
                    throw Failure(
                        .cannotWrite, "\(folder.path): cannot write the pack (\(String(cString: strerror(errno))))")
                }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(.cannotWrite, "\(folder.path): cannot write the pack (\(error.localizedDescription))")
        }
        return StickerPack(
            messenger: messenger, folder: folder, stickers: files, icon: icon,
            archive: archiveName.map { folder.appendingPathComponent($0) }, notes: notes)
    }

    /// The hidden file listing what a pack wrote in its folder, so a pack made there again
    /// replaces exactly those files.
    static let listName = ".collage-pack"

    /// Whether a pack made in `folder` may replace `file`: a file there named as a pack names its
    /// own (numbered pictures, any messenger's icon, a `.wastickers` archive), or one a pack made
    /// there before listed.
    public static func mayReplace(_ file: URL, inPackFolder folder: URL) -> Bool {
        let file = file.standardizedFileURL.resolvingSymlinksInPath()
        let folder = folder.standardizedFileURL.resolvingSymlinksInPath()
        guard file.deletingLastPathComponent().path == folder.path else { return false }
        let name = file.lastPathComponent
        let listed = ((try? String(contentsOf: folder.appendingPathComponent(listName), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
        let icons = Messenger.allCases.compactMap { $0.rules.icon?.name }
        return listed.contains(name) || icons.contains(name) || name.hasSuffix(".wastickers")
            || name.split(separator: ".").first?.allSatisfy(\.isNumber) == true
    }

    /// A sticker's pixels, with alpha, checked to hold a subject.
    /// - Throws: ``Failure`` naming the sticker `name` (by default the file's): `noSubject` for a
    ///   picture that is clear all over, `invalidInput` for one without transparency or unreadable.
    static func read(_ file: URL, named name: String? = nil) throws(Failure) -> Bitmap {
        let name = name ?? file.lastPathComponent
        let bitmap: Bitmap
        do throws(RenderError) {
            bitmap = try Bitmap.read(file)
        } catch {
            throw error.failure
        }
        guard bitmap.channels == 4 else {
            throw Failure(.invalidInput, "\(name): a sticker needs transparency round its subject, and it has none")
        }
        guard stride(from: 3, to: bitmap.pixels.count, by: 4).contains(where: { bitmap.pixels[$0] > 0 }) else {
            throw Failure(.noSubject, "\(name): it has no subject: every pixel is clear")
        }
        return bitmap
    }

    /// One picture sized and encoded; the errors name the sticker.
    static func picture(
        _ bitmap: Bitmap, named name: String, side: Int, square: Bool, margin: Int, outline: Double,
        format: PackImageFormat, maximumBytes: Int
    ) throws(Failure) -> PackImage {
        do throws(RenderError) {
            let fitted = try PackImages.fit(bitmap, side: side, square: square, margin: margin, outline: outline)
            return try PackImages.encode(fitted, as: format, maximumBytes: maximumBytes)
        } catch {
            if case .invalidOptions(let message) = error {
                throw Failure(.invalidInput, "\(name): \(message)")
            }
            throw error.failure
        }
    }

    /// A live sticker at the best quality and frame rate that fit the messenger's limit: each
    /// try lowers the quality (an APNG's colours), then the frame rate; the subject's size never
    /// changes.
    static func livePicture(
        _ bitmap: Bitmap, named name: String, motion: StickerMotion, duration: Double, rules: StickerPackRules,
        animated: AnimatedPackRules, side: Int
    ) throws(Failure) -> LivePicture {
        let format = AnimationFormat(fileExtension: animated.fileExtension) ?? .webp
        // Each try is (quality or colours, frames a second), smaller down the list.
        let attempts =
            (format == .apng
            ? [(256, 15), (192, 12), (128, 12), (96, 10), (64, 10), (48, 8), (32, 8), (32, 6), (24, 5)]
            : [(80, 30), (65, 30), (50, 24), (40, 20), (30, 15), (22, 12), (15, 10), (10, 8)])
            .filter { $0.1 <= animated.fastestFPS }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("collage-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw Failure(.cannotWrite, "\(scratch.path): \(error.localizedDescription)")
        }
        func failure(_ error: RenderError) -> Failure {
            if case .invalidOptions(let message) = error { return Failure(.invalidInput, "\(name): \(message)") }
            return error.failure
        }
        // Outlined at the pack's size, as the messenger shows it, then moved.
        let fitted: Bitmap
        do throws(RenderError) {
            fitted = try PackImages.fit(bitmap, side: side, square: true, margin: 0, outline: rules.outline)
        } catch {
            throw failure(error)
        }
        var smallest = Int.max
        var framesByRate: [Int: [[UInt8]]] = [:]
        let file = scratch.appendingPathComponent("try.\(format.fileExtension)")
        func encode(_ attempt: (level: Int, fps: Int)) throws(Failure) -> Data {
            do throws(RenderError) {
                let frames: [[UInt8]]
                if let made = framesByRate[attempt.fps] {
                    frames = made
                } else {
                    frames = try LiveStickers.frames(
                        of: fitted, motion: motion, side: side,
                        count: max(1, Int((duration * Double(attempt.fps)).rounded())))
                    framesByRate[attempt.fps] = frames
                }
                try LiveStickers.write(
                    frames, side: side, format: format, fps: attempt.fps,
                    quality: format == .apng ? 100 : attempt.level,
                    colours: format == .apng ? attempt.level : nil, to: file)
            } catch {
                throw failure(error)
            }
            return try readBack(file)
        }
        func made(_ data: Data, _ attempt: (level: Int, fps: Int)) -> LivePicture {
            LivePicture(
                data: data, quality: format == .apng ? nil : attempt.level,
                colours: format == .apng ? attempt.level : nil, fps: attempt.fps)
        }
        // The files shrink down the list: the first that fits is found by halving it (three or
        // four encodings rather than up to nine), the best first tried on its own.
        var best: LivePicture?
        var (low, high) = (0, attempts.count - 1)
        let first = try encode(attempts[0])
        if first.count <= animated.maximumBytes {
            best = made(first, attempts[0])
        } else {
            smallest = first.count
            low = 1
            while low <= high {
                let middle = (low + high) / 2
                let data = try encode(attempts[middle])
                if data.count <= animated.maximumBytes {
                    best = made(data, attempts[middle])
                    high = middle - 1
                } else {
                    smallest = min(smallest, data.count)
                    low = middle + 1
                }
            }
        }
        if let best {
            try checkLive(best.data, named: name, format: format, side: side)
            return best
        }
        let lowest = attempts[attempts.count - 1]
        let floor = format == .apng ? "\(lowest.0) colours" : "quality \(lowest.0)"
        let hint =
            format == .apng
            ? "an APNG keeps every pixel, so a furry or detailed subject that moves as a whole is large; shine "
                + "(only a glint moves), a shorter loop (duration) or a still pack fits"
            : "a shorter loop (duration) or a still pack fits"
        throw Failure(
            .invalidInput,
            "\(name): moving, even at \(floor) and \(lowest.1) frames a second its \(format.rawValue.uppercased()) "
                + "is \(PackImages.bytes(smallest)), over \(rules.name)'s limit of "
                + "\(PackImages.bytes(animated.maximumBytes)); \(hint)")
    }

    /// A moving sticker as written, and what it took to fit.
    struct LivePicture {
        /// The file's bytes.
        let data: Data
        /// The lossy encoder's quality (WebP, WebM).
        let quality: Int?
        /// The palette's size (APNG).
        let colours: Int?
        /// Frames a second.
        let fps: Int
    }

    /// A live sticker's own bytes: an animated WebP or APNG of the pack's size, or a WebM (its
    /// EBML header).
    static func checkLive(_ data: Data, named name: String, format: AnimationFormat, side: Int) throws(Failure) {
        if format == .webp || format == .apng {
            let kind = format == .webp ? "webp" : "png"
            guard let info = PackImages.inspect(data), info.format == kind, info.animated, info.width == side,
                info.height == side
            else {
                throw Failure(
                    .failed, "\(name): what was written is not a \(side) px animated \(format.rawValue.uppercased())")
            }
        } else {
            guard data.count > 4, data.prefix(4) == Data([0x1A, 0x45, 0xDF, 0xA3]) else {
                throw Failure(.failed, "\(name): what was written is not a WebM file")
            }
        }
    }

    /// The picture's own bytes, read as the messenger will: its format, size and bytes within the limits.
    static func check(
        _ picture: PackImage, named name: String, format: PackImageFormat, rules: StickerPackRules, side: Int
    ) throws(Failure) {
        guard let info = PackImages.inspect(picture.data) else {
            throw Failure(.failed, "\(name): what was written is neither PNG nor WebP")
        }
        let sized =
            rules.square
            ? info.width == side && info.height == side
            : max(info.width, info.height) == side && min(info.width, info.height) <= side
        guard info.format == format.rawValue, sized, !info.animated, picture.data.count <= rules.maximumBytes
        else {
            throw Failure(
                .failed,
                "\(name): written as \(info.format) \(info.width) × \(info.height), \(picture.data.count) bytes, "
                    + "outside \(rules.name)'s limits")
        }
    }

    static func write(_ data: Data, to file: URL) throws(Failure) {
        do {
            try data.write(to: file)
        } catch {
            throw Failure(.cannotWrite, "\(file.path): cannot write (\(error.localizedDescription))")
        }
    }

    static func readBack(_ file: URL) throws(Failure) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw Failure(.cannotWrite, "\(file.path): cannot read back (\(error.localizedDescription))")
        }
    }

    /// A title as a file name a download header can carry: ASCII letters, digits, dashes,
    /// underscores; accented letters lose their accents first ("Tëst" was "T-st").
    static func fileName(_ title: String) -> String {
        let plain = title.folding(options: [.diacriticInsensitive, .widthInsensitive], locale: nil)
        let kept = plain.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "_") ? Character(scalar) : "-"
        }
        let name = String(kept).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
        return name.isEmpty ? "stickers" : String(name.prefix(64))
    }
}

/// A zip file of stored (uncompressed) entries: the pictures are compressed already.
enum ZipArchive {
    /// The archive's bytes for `entries` (name, contents), in order.
    static func stored(_ entries: [(String, Data)]) -> Data {
        var archive = Data()
        var directory = Data()
        func append16(_ value: Int, to data: inout Data) {
            data.append(contentsOf: [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)])
        }
        func append32(_ value: UInt32, to data: inout Data) {
            data.append(contentsOf: (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) })
        }
        for (name, contents) in entries {
            let nameBytes = Data(name.utf8)
            let checksum = crc32(contents)
            let offset = UInt32(archive.count)
            // Local header: version 2.0, flag 0x0800 (UTF-8 names), stored, 1980-01-01 00:00 (the
            // first date a zip can say: the pack's bytes do not depend on when it was made).
            append32(0x0403_4B50, to: &archive)
            append16(20, to: &archive)
            append16(0x0800, to: &archive)
            append16(0, to: &archive)
            append32(0x0021_0000, to: &archive)
            append32(checksum, to: &archive)
            append32(UInt32(contents.count), to: &archive)
            append32(UInt32(contents.count), to: &archive)
            append16(nameBytes.count, to: &archive)
            append16(0, to: &archive)
            archive.append(nameBytes)
            archive.append(contents)
            append32(0x0201_4B50, to: &directory)
            append16(20, to: &directory)
            append16(20, to: &directory)
            append16(0x0800, to: &directory)
            append16(0, to: &directory)
            append32(0x0021_0000, to: &directory)
            append32(checksum, to: &directory)
            append32(UInt32(contents.count), to: &directory)
            append32(UInt32(contents.count), to: &directory)
            append16(nameBytes.count, to: &directory)
            append16(0, to: &directory)
            append16(0, to: &directory)
            append16(0, to: &directory)
            append16(0, to: &directory)
            append32(0, to: &directory)
            append32(offset, to: &directory)
            directory.append(nameBytes)
        }
        let directoryOffset = UInt32(archive.count)
        archive.append(directory)
        append32(0x0605_4B50, to: &archive)
        append16(0, to: &archive)
        append16(0, to: &archive)
        append16(entries.count, to: &archive)
        append16(entries.count, to: &archive)
        append32(UInt32(directory.count), to: &archive)
        append32(directoryOffset, to: &archive)
        append16(0, to: &archive)
        return archive
    }

    /// The CRC-32 (IEEE, reflected) a zip entry carries.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

extension StickerPackRequest {
    /// The pack as one zip to download (the editor's "Sticker pack…"): every file the pack's
    /// folder holds, and a `HOW-TO-ADD.txt` saying how the messenger takes them.
    /// - Returns: the zip's bytes, its file name, and the pack (its notes say what gave way).
    /// - Throws: as ``make(in:into:)``.
    public func archive(in workspace: Workspace?) throws(Failure) -> (data: Data, name: String, pack: StickerPack) {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("collage-pack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pack = try make(in: workspace, into: scratch.appendingPathComponent("pack"))
        var entries: [(String, Data)] = []
        for file in pack.stickers + (pack.icon.map { [$0] } ?? []) {
            entries.append((file.name, try Self.readBack(pack.folder.appendingPathComponent(file.name))))
        }
        if let archive = pack.archive { entries.append((archive.lastPathComponent, try Self.readBack(archive))) }
        var guide = [Self.howToAdd(messenger, title: title, moving: motion != nil)]
        if !pack.notes.isEmpty {
            guide.append("Good to know:\n" + pack.notes.map { "- \($0)" }.joined(separator: "\n"))
        }
        entries.append(("HOW-TO-ADD.txt", Data((guide.joined(separator: "\n\n") + "\n").utf8)))
        let name = "\(Self.fileName(title))-\(messenger.rawValue).zip"
        return (ZipArchive.stored(entries), name, pack)
    }

    /// How each messenger takes a pack's files, in a few lines.
    static func howToAdd(_ messenger: Messenger, title: String, moving: Bool = false) -> String {
        let rules = messenger.rules
        if moving, let animated = rules.animated {
            let kind =
                switch animated.fileExtension {
                case "webm": "a VP9 WebM video"
                case "png": "an animated PNG"
                default: "an animated WebP"
                }
            let side = rules.side
            let limits =
                "\(title): moving \(rules.name) stickers made by Collage, each \(kind) of \(side) × \(side) px, "
                + "looping, at most \(PackImages.bytes(animated.maximumBytes))."
            return limits + "\n\n" + Self.steps(for: messenger, moving: true)
        }
        let limits =
            "\(title): \(rules.name) stickers made by Collage, each \(rules.format.rawValue.uppercased()) "
            + (rules.square ? "\(rules.side) × \(rules.side)" : "with its longer side \(rules.side)")
            + " px and at most \(PackImages.bytes(rules.maximumBytes))."
        return limits + "\n\n" + steps(for: messenger)
    }

    /// How a person adds a pack's files to `messenger`, in a sentence or two; `moving` for a pack
    /// of live stickers.
    public static func steps(for messenger: Messenger, moving: Bool = false) -> String {
        if moving, messenger == .telegram {
            return "In Telegram, message @Stickers, send /newvideo, then send each WEBM file (as a file, not as a "
                + "video) with an emoji."
        }
        return switch messenger {
        case .whatsapp:
            "Open the .wastickers file with a sticker-maker app for WhatsApp on your phone (it imports the "
                + "stickers, tray icon, title and author), then add the pack to WhatsApp from the app."
        case .telegram:
            "In Telegram, message @Stickers, send /newpack, then send each PNG as a file (not as a photo) "
                + "with an emoji; thumbnail.png is the set's icon (/setpackicon)."
        case .signal:
            "In Signal Desktop, choose File > Create/upload sticker pack, add the PNG files in order, give "
                + "each an emoji, then upload."
        case .imessage:
            "In Xcode, make a Sticker Pack App and drag the PNG files into its Sticker Pack folder."
        }
    }
}
