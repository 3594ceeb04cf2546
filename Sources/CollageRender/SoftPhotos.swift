import CollageCore
import Foundation

/// A photo with too few pixels for its frame at an export's size: it will look soft.
public struct SoftPhoto: Sendable, Equatable {
    /// The item that shows it.
    public let itemID: String
    /// The photo's file.
    public let file: URL
    /// How many of its own pixels fall on one output pixel across its frame: 0.25 is enlarged 4×.
    public let pixelsPerOutputPixel: Double
    /// The resolution it prints at, for an export at a print size.
    public let dotsPerInch: Double?

    /// Under this a print looks soft, as print services warn.
    public static let leastPrintDPI = 150.0
    /// Enlarged more than this many times, a photo on a screen looks soft.
    public static let mostEnlargement = 2.0
}

extension CollageRenderer {
    /// The photos of `collage` that an export at `size` would enlarge past what looks sharp
    /// (see ``SoftPhoto``), in the order of its items, judged as the editor's "Low res" badges
    /// judge them: from the rectangle of each photo's pixels that fills its frame. Only the
    /// files' headers are read; a photo that cannot be read is left to the render to report.
    public func softPhotos(in collage: Collage, photos: some PhotoSource, size: OutputSize) -> [SoftPhoto] {
        guard let (scale, dpi, _, _) = try? outputPixels(for: collage.canvas, size: size) else { return [] }
        var soft: [SoftPhoto] = []
        for item in collage.items {
            guard case .photo = item.content, item.frame.width > 0, let file = try? photos.file(for: item.content),
                let info = try? ImageFiles.inspect(file, limits: limits)
            else { continue }
            // The focus moves the rectangle, never its size: the zoom alone counts.
            let source = CropMath.sourceRect(
                imageSize: Size(width: Double(info.width), height: Double(info.height)), frameSize: item.frame.size,
                crop: Crop(zoom: item.crop?.zoom ?? 1))
            let perPixel = source.width / (item.frame.width * scale)
            guard perPixel.isFinite else { continue }
            let printed = dpi.map { $0 * perPixel }
            let isSoft =
                if let printed { printed < SoftPhoto.leastPrintDPI } else { perPixel < 1 / SoftPhoto.mostEnlargement }
            if isSoft {
                soft.append(
                    SoftPhoto(itemID: item.id, file: file, pixelsPerOutputPixel: perPixel, dotsPerInch: printed))
            }
        }
        return soft
    }
}
