import CollageCore
import Foundation

/// An encoded image format the renderer can write.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// JPEG: baseline (progressive on request), 4:4:4 chroma at quality 90 and above. No alpha.
    case jpeg
    /// PNG, with alpha when the background is transparent.
    case png
    /// WebP (lossy), with alpha when the background is transparent.
    case webp
    /// HEIC (HEVC), where the installed libheif can encode it.
    case heic
    /// AVIF (AV1), where the installed libheif can encode it.
    case avif

    /// The format a file name's extension names, e.g. `out.JPG` → `.jpeg`.
    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "heic", "heif": self = .heic
        case "avif": self = .avif
        default: return nil
        }
    }

    /// Whether the format stores an alpha channel.
    public var supportsAlpha: Bool { self != .jpeg }

    var saverName: String {
        switch self {
        case .jpeg: "jpegsave"
        case .png: "pngsave"
        case .webp: "webpsave"
        case .heic, .avif: "heifsave"
        }
    }
}

/// How large to render: a multiple of the canvas's points, an exact pixel width, or a print.
public enum OutputSize: Hashable, Sendable {
    /// Pixels per canvas point, e.g. 3 for a 1,200-point canvas → 3,600 px.
    case scale(Double)
    /// An exact width in pixels; the height follows the canvas's aspect.
    case width(Int)
    /// The longer side in pixels; the other follows the canvas's aspect.
    case longSide(Int)
    /// A physical size at a DPI; the canvas is fitted inside it and the DPI is written to the file.
    case print(PrintSize)
}

/// What to render and how to encode it.
public struct RenderOptions: Sendable {
    /// The output size; three times the canvas by default (print quality for a 1,200-point canvas).
    public var size: OutputSize
    /// The encoding.
    public var format: OutputFormat
    /// Encoder quality, 1–100 (JPEG, WebP, HEIC, AVIF).
    public var quality: Int
    /// Whether a JPEG is progressive (with optimised Huffman tables): a few per cent smaller and
    /// shown coarse-to-fine while it downloads, but the encoder then holds every coefficient of
    /// the image in memory (about 80 MB at 3,600 × 3,600) and takes longer. Baseline JPEGs stream.
    public var progressiveJPEG: Bool

    /// Options. The renderer checks them against ``Limits`` (quality, scale, pixel sizes) and
    /// refuses what is out of range with a message naming the range.
    public init(
        size: OutputSize = .scale(3), format: OutputFormat = .jpeg, quality: Int = 90, progressiveJPEG: Bool = false
    ) {
        self.size = size
        self.format = format
        self.quality = quality
        self.progressiveJPEG = progressiveJPEG
    }
}

/// Limits that protect the machine from hostile or accidental huge images.
public struct RenderLimits: Sendable {
    /// The most pixels an input photo may declare; checked from the header before decoding.
    public var maximumInputPixels: Int
    /// The most pixels an output may have.
    public var maximumOutputPixels: Int
    /// The longest side an output may have.
    public var maximumOutputSide: Int
    /// The most pixels one item is built at before it is enlarged into place; bounds the memory
    /// of an item zoomed far past the canvas.
    public var maximumCellPixels: Int

    /// Defaults fit every phone and camera photo (200 MP sensors included) and the outputs of
    /// ``Limits`` (a 24 × 36 in poster at 300 DPI).
    public init(
        maximumInputPixels: Int = 250_000_000, maximumOutputPixels: Int = Limits.maximumOutputPixels,
        maximumOutputSide: Int = Limits.maximumOutputSide, maximumCellPixels: Int = 16_000_000
    ) {
        self.maximumInputPixels = maximumInputPixels
        self.maximumOutputPixels = maximumOutputPixels
        self.maximumOutputSide = maximumOutputSide
        self.maximumCellPixels = maximumCellPixels
    }
}

/// Maps the references in a collage's items to image files.
public protocol PhotoSource: Sendable {
    /// The file that `content` shows.
    /// - Throws: ``RenderError/unresolvedReference(_:reason:)`` when it has none.
    func file(for content: ItemContent) throws(RenderError) -> URL

    /// Where to centre the crop of a photo whose item has no crop of its own, in unit
    /// coordinates of the photo (its subject, say); `nil` centres it.
    func automaticFocus(for content: ItemContent, file: URL) -> Point?
}

extension PhotoSource {
    /// No automatic focus: photos without a crop are centred.
    public func automaticFocus(for content: ItemContent, file: URL) -> Point? { nil }
}

/// Resolves references as file paths, relative ones against a base directory (the document's).
public struct DirectoryPhotoSource: PhotoSource {
    /// The directory relative references start from.
    public let baseDirectory: URL

    /// A source resolving relative paths against `baseDirectory`.
    public init(baseDirectory: URL) {
        self.baseDirectory = baseDirectory
    }

    /// The reference as an absolute file URL.
    public func file(for content: ItemContent) throws(RenderError) -> URL {
        let reference = content.reference ?? ""
        guard !reference.isEmpty else { throw .unresolvedReference(reference, reason: "the item names no file") }
        if reference.hasPrefix("/") { return URL(fileURLWithPath: reference) }
        return baseDirectory.appendingPathComponent(reference).standardizedFileURL
    }
}

/// What a render produced.
public struct RenderResult: Sendable {
    /// The file written.
    public let file: URL
    /// Its width in pixels.
    public let width: Int
    /// Its height in pixels.
    public let height: Int
    /// Its encoding.
    public let format: OutputFormat
    /// The DPI written into its metadata, for print renders.
    public let dpi: Double?
}
