import CollageCore
import CollageLibrary
import CollageRender
import Foundation
import Stickers

/// The size an export would have, known before anything is rendered.
public struct ExportSize: Sendable, Equatable {
    /// Its width in pixels.
    public let width: Int
    /// Its height in pixels.
    public let height: Int
    /// Its resolution, for a print size.
    public let dotsPerInch: Double?
    /// For a print of another shape than the collage's, how the collage sits on the paper.
    public let fit: String?
}

/// The rendering use cases: exports, their sizes, and items drawn as the renderer draws them.
extension Workspace {
    /// How photos are cropped in a render: around their subjects when known, and, when
    /// `findingSubjects`, found first if need be (the command line waits; the editor never does).
    public enum SubjectSearch: Sendable {
        /// Use subjects already found; centre the rest.
        case knownOnly
        /// Find every photo's subject before rendering.
        case findMissing
    }

    /// Renders `collage` into `file` with `options`; `file` is untouched when it fails.
    /// - Throws: ``Failure``: `invalidOption` for options out of range, `invalidInput` for a
    ///   photo that cannot be read, `cancelled` when `cancellation` stopped it.
    @discardableResult
    public func export(
        _ collage: Collage, options: RenderOptions, to file: URL, subjects: SubjectSearch = .knownOnly,
        cancellation: RenderCancellation? = nil
    ) throws(Failure) -> RenderResult {
        let photos = LibrarySubjectFocusSource(library: library, model: model, findsMissing: subjects == .findMissing)
        do throws(RenderError) {
            return try CollageRenderer().render(
                collage, photos: photos, options: options, to: file, cancellation: cancellation)
        } catch {
            throw error.failure
        }
    }

    /// Renders `collage` as an animation into `file` (see ``CollageRender/CollageRenderer/animate(_:photos:options:to:cancellation:)``);
    /// `file` is untouched when it fails.
    /// - Throws: ``Failure``: `invalidOption` for options out of range, `invalidInput` for a photo
    ///   that cannot be read, `cancelled` when `cancellation` stopped it.
    @discardableResult
    public func animate(
        _ collage: Collage, options: AnimationOptions, to file: URL, subjects: SubjectSearch = .knownOnly,
        cancellation: RenderCancellation? = nil
    ) throws(Failure) -> AnimationResult {
        let photos = LibrarySubjectFocusSource(library: library, model: model, findsMissing: subjects == .findMissing)
        do throws(RenderError) {
            return try CollageRenderer().animate(
                collage, photos: photos, options: options, to: file, cancellation: cancellation)
        } catch {
            throw error.failure
        }
    }

    /// The pixel size an export of `collage` with `options` would have: the renderer's own
    /// arithmetic, checked against the same limits, nothing decoded.
    public func exportSize(of collage: Collage, options: RenderOptions) throws(Failure) -> ExportSize {
        do throws(RenderError) {
            let size = try CollageRenderer().outputSize(for: collage.canvas, size: options.size)
            var fit: String?
            if case .print(let print) = options.size { fit = print.fitting(collage.canvas) }
            return ExportSize(width: size.width, height: size.height, dotsPerInch: size.dpi, fit: fit)
        } catch {
            throw error.failure
        }
    }

    /// An item drawn as the renderer draws it (a photo cut, adjusted, shaped, bordered and
    /// shadowed with corners of `cornerRadius` points; a sticker's outline and shadow; a text's
    /// background; unturned) at `scale` pixels per point, written to `file` as PNG.
    public func drawItem(
        _ item: CollageItem, scale: Double, cornerRadius: Double = 0, to file: URL
    ) throws(Failure) -> DrawnItem {
        do throws(RenderError) {
            return try CollageRenderer().writeDrawnItem(
                item, photos: editorPhotos, scale: scale, cornerRadius: cornerRadius, to: file)
        } catch {
            throw error.failure
        }
    }

    /// The exposure and white balance a photo item's own pixels ask for
    /// (``CollageCore/AutoEnhance``), merged into its adjustments: what the editor's **Auto** sets.
    /// - Throws: ``Failure`` when the item is not a photo or its file cannot be read.
    public func autoEnhancedAdjustments(for item: CollageItem) throws(Failure) -> Adjustments {
        guard case .photo = item.content else {
            throw Failure(
                .invalidInput, "item \"\(item.id.prefix(40))\" is a \(item.content.kind); only photos are enhanced")
        }
        do throws(RenderError) {
            let found = try CollageRenderer().autoEnhancement(for: try editorPhotos.file(for: item.content))
            var adjustments = item.look.adjustments
            adjustments.exposure = found.exposure
            adjustments.warmth = found.warmth
            adjustments.tint = found.tint
            return adjustments
        } catch {
            throw error.failure
        }
    }

    /// A collage's background alone, as the renderer draws it, at `scale` pixels per point (or
    /// less, for a large canvas), written to `file` as PNG; returns the scale it was drawn at.
    public func drawBackground(of collage: Collage, scale: Double, to file: URL) throws(Failure) -> Double {
        do throws(RenderError) {
            return try CollageRenderer().writeBackground(of: collage, scale: scale, photos: editorPhotos, to: file)
        } catch {
            throw error.failure
        }
    }
}
