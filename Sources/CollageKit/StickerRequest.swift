import CollageCore
import CollageLibrary
import CollageRender
import Stickers

/// A request to lift a sticker, as either face receives it, checked against
/// ``CollageCore/Limits`` when it is made: the command line's `--instance 2 --outline 8` and the
/// API's `{"instance": 2, "outline": 8}` become the same value, or the same ``Failure``.
public struct StickerRequest: Sendable, Equatable {
    /// A point of the photo: the subject under it is lifted.
    public enum Point: Sendable, Equatable {
        /// In pixels of the photo, from its top-left corner (the command line's `--at X,Y`).
        case pixels(x: Double, y: Double)
        /// In fractions of the photo's width and height, 0 to 1 (the API's `at`, from a tap).
        case unit(x: Double, y: Double)
    }

    /// The n-th largest subject, when one was asked for.
    public let instance: Int?
    /// The point whose subject is lifted, when one was given.
    public let point: Point?
    /// The white outline's width in pixels.
    public let outline: Double
    /// Whether the sticker casts a soft shadow.
    public let shadow: Bool
    /// The look drawn over the sticker, if any.
    public let effect: StickerEffect?
    /// Whether the edge is found again from the photo (the default) or the model's own soft edge is kept.
    public let cleanEdges: Bool

    /// A request, checked.
    /// - Throws: ``Failure`` of kind `invalidOption` naming the option (`instance`, `at`,
    ///   `outline`, `effect`, `edges`), what it expects and what it got.
    public init(
        instance: Double? = nil, point: Point? = nil, outline: Double? = nil, shadow: Bool = false,
        effect: String? = nil, edges: String? = nil
    )
        throws(Failure)
    {
        switch edges {
        case nil, "clean": cleanEdges = true
        case "plain": cleanEdges = false
        case let other?:
            throw Failure(.invalidOption, "expects clean or plain, got \"\(other.prefix(40))\"", field: "edges")
        }
        if let effect {
            guard let known = StickerEffect(rawValue: effect) else {
                throw Failure(
                    .invalidOption,
                    "expects \(StickerEffect.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(effect.prefix(40))\"",
                    field: "effect")
            }
            self.effect = known
        } else {
            self.effect = nil
        }
        if instance != nil, point != nil {
            throw Failure(.invalidOption, "choose «instance» or «at», not both")
        }
        if let instance {
            guard let whole = instance.wholeNumber(in: Limits.stickerInstance) else {
                throw Self.expected(
                    "instance", "a whole number \(Limits.describe(Limits.stickerInstance)) (1 is the largest subject)",
                    instance)
            }
            self.instance = whole
        } else {
            self.instance = nil
        }
        switch point {
        case .pixels(let x, let y):
            guard x.isFinite, y.isFinite, x >= 0, y >= 0 else {
                throw Failure(
                    .invalidOption,
                    "expects a point in pixels of the photo, such as 320,200, got \(Self.text(x)),\(Self.text(y))",
                    field: "at")
            }
        case .unit(let x, let y):
            guard (0...1).contains(x), (0...1).contains(y) else {
                throw Failure(
                    .invalidOption,
                    "expects a point in fractions of the photo, from 0 to 1, got \(Self.text(x)),\(Self.text(y))",
                    field: "at")
            }
        case nil: break
        }
        self.point = point
        let outline = outline ?? 0
        guard Limits.stickerOutline.contains(outline) else {
            throw Self.expected("outline", "a number of pixels \(Limits.describe(Limits.stickerOutline))", outline)
        }
        self.outline = outline
        self.shadow = shadow
    }

    /// Reads a number option the way both faces spell numbers (`8`, `2.5`), naming the option
    /// when the text is not one.
    public static func number(_ text: String, for field: String) throws(Failure) -> Double {
        guard let number = Double(decimal: text.trimmingCharacters(in: .whitespaces)), number.isFinite else {
            throw Failure(.invalidOption, "expects a number, got \"\(text.prefix(40))\"", field: field)
        }
        return number
    }

    /// Reads `X,Y` (the command line's `--at`).
    public static func pixelPoint(_ text: String) throws(Failure) -> Point {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(decimal: parts[0].trimmingCharacters(in: .whitespaces)),
            let y = Double(decimal: parts[1].trimmingCharacters(in: .whitespaces))
        else {
            throw Failure(
                .invalidOption, "expects X,Y in pixels of the photo, such as 320,200, got \"\(text.prefix(40))\"",
                field: "at")
        }
        return .pixels(x: x, y: y)
    }

    /// The sticker options for a photo of this size.
    /// - Throws: ``Failure`` when the point lies outside the photo.
    public func options(photoWidth width: Int, height: Int) throws(Failure) -> StickerOptions {
        var options = StickerOptions(outlineWidth: outline, shadow: shadow, effect: effect, cleanEdges: cleanEdges)
        if let instance { options.selection = .instance(instance) }
        switch point {
        case .pixels(let x, let y):
            guard x < Double(width), y < Double(height) else {
                throw Failure(
                    .invalidOption,
                    "\(Self.text(x)),\(Self.text(y)) is outside the photo, which is \(width) × \(height) pixels",
                    field: "at")
            }
            options.selection = .point(x: Int(x), y: Int(y))
        case .unit(let x, let y):
            options.selection = .point(
                x: min(width - 1, Int(x * Double(width))), y: min(height - 1, Int(y * Double(height))))
        case nil: break
        }
        return options
    }

    /// Lifts the sticker out of a library photo and stores it in the library.
    /// - Parameters:
    ///   - refine: refine the mask along the photo's edges (the default).
    ///   - isCancelled: asked between the lift's stages; once it answers `true` the lift stops
    ///     and stores nothing (the server's client has gone).
    /// - Throws: ``Failure``: `notFound` for an unknown photo, `noSubject` when nothing (or
    ///   nothing there) can be lifted, `unavailable` without a model, `failed` when cancelled.
    public func lift(
        photo id: String, in library: Library, model: SubjectModel?, refine: Bool = true,
        isCancelled: () -> Bool = { false }
    ) throws(Failure) -> StickerRecord {
        let photo: PhotoRecord
        do {
            photo = try library.photo(id)
        } catch {
            throw error.failure
        }
        guard let model else {
            throw Failure(.unavailable, "the subject model is not installed; run \(SubjectModel.fetchCommand)")
        }
        let options = try options(photoWidth: photo.width, height: photo.height)
        do {
            return try model.makeSticker(
                ofPhoto: photo.id, in: library, options: options, refine: refine, isCancelled: isCancelled)
        } catch {
            throw error.failure
        }
    }

    private static func expected(_ field: String, _ wanted: String, _ got: Double) -> Failure {
        Failure(.invalidOption, "expects \(wanted), got \(text(got))", field: field)
    }

    private static func text(_ number: Double) -> String { JSONValue.format(number) }
}
