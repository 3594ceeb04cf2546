import CollageCore
import CollageLibrary

/// A request to lay a collage's photos out for their own shapes (``AutoLayout``), as either face
/// receives it (`collage layout ID auto --seed 3`, `POST /api/collages/{id}/arrange`), checked when
/// it is made.
public struct ArrangeRequest: Sendable, Equatable {
    /// The search's seed; `nil` keeps the collage's own (0 for one not arranged yet).
    public let seed: UInt64?
    /// The photo item to make clearly the largest, if any: by id, or by its number in layout
    /// order (1 is the first), as the command line counts the photos it was given.
    public let hero: Hero?
    /// The largest share of a photo's area that may be cropped to fill the canvas.
    public let maximumCrop: Double?
    /// Whether the photos keep their order; `nil` keeps the collage's own choice.
    public let keepsOrder: Bool?
    /// The version the sender last saw; `nil` applies to whatever is current.
    public let version: Int?

    /// A request, checked.
    /// - Throws: ``Failure`` of kind `invalidOption` naming `seed` or `maximumCrop`.
    public init(
        seed: Double? = nil, hero: Hero? = nil, maximumCrop: Double? = nil, keepsOrder: Bool? = nil,
        version: Int? = nil
    )
        throws(Failure)
    {
        if let seed {
            guard seed >= 0, seed <= Double(Arrangement.maximumSeed), seed.rounded() == seed else {
                throw Failure(
                    .invalidOption, "expects a whole number from 0 to 2^53, got \(JSONValue.format(seed))",
                    field: "seed")
            }
        }
        if let maximumCrop {
            guard maximumCrop.isFinite, (0...0.5).contains(maximumCrop) else {
                throw Failure(
                    .invalidOption, "expects a share of a photo from 0 to 0.5, got \(JSONValue.format(maximumCrop))",
                    field: "maximumCrop")
            }
        }
        self.seed = seed.map { UInt64($0) }
        self.hero = hero
        self.maximumCrop = maximumCrop
        self.keepsOrder = keepsOrder
        self.version = version
    }

    /// Which photo is the hero.
    public enum Hero: Sendable, Equatable {
        /// The photo item with this id.
        case item(String)
        /// The photo with this number in layout order, 1 for the first.
        case number(Int)
        /// No hero: every photo sized by the layout alone.
        case nobody
    }

    /// The arrangement this request makes of `collage`: its own settings where the request names
    /// none (a new seed alone keeps the hero).
    /// - Throws: ``Failure`` naming `hero` when it is not one of the collage's photos.
    public func arrangement(for collage: Collage) throws(Failure) -> Arrangement {
        let current = collage.arrangement ?? Arrangement()
        let photos = collage.photosInLayoutOrder
        var heroID = current.hero.flatMap { hero in photos.contains { $0.id == hero } ? hero : nil }
        switch hero {
        case .item(let id):
            guard photos.contains(where: { $0.id == id }) else {
                throw Failure(
                    .invalidInput, "must be one of the collage's photos; it has no photo item \"\(id.prefix(40))\"",
                    field: "hero")
            }
            heroID = id
        case .number(let number):
            guard photos.indices.contains(number - 1) else {
                throw Failure(
                    .invalidOption, "expects the number of one of the photos, 1 to \(photos.count), got \(number)",
                    field: "hero")
            }
            heroID = photos[number - 1].id
        case .nobody: heroID = nil
        case nil: break
        }
        return Arrangement(
            seed: seed ?? current.seed, hero: heroID, maximumCrop: maximumCrop ?? current.maximumCrop,
            keepsOrder: keepsOrder ?? current.keepsOrder)
    }

    /// Lays out the photos of the collage `id` and stores the result as one change.
    /// - Throws: ``Failure``: `notFound` for an unknown collage, `invalidInput` for a collage with
    ///   no photos (or more than ``AutoLayout/Options/maximumPhotos``) or a hero that is not one
    ///   of its photos, `conflict` when it changed meanwhile.
    public func apply(to id: String, in library: Library) throws(Failure) -> StoredCollage {
        let stored: StoredCollage
        do {
            stored = try library.collage(id)
        } catch {
            throw error.failure
        }
        let edit = try edit(
            for: stored.collage, aspects: Self.aspects(of: stored.collage, in: library),
            pixels: Self.pixelCounts(of: stored.collage, in: library))
        do {
            return try library.apply([edit], to: stored.collage.id, expectedVersion: version ?? stored.version)
        } catch {
            throw error.failure
        }
    }

    /// Each photo's aspect ratio (width ÷ height) by the reference the collage's items use.
    static func aspects(of collage: Collage, in library: Library) throws(Failure) -> [String: Double] {
        var aspects: [String: Double] = [:]
        for photo in collage.photosInLayoutOrder {
            guard let reference = photo.content.reference, aspects[reference] == nil else { continue }
            do {
                let record = try library.photo(reference)
                aspects[reference] = Double(record.width) / Double(record.height)
            } catch {
                throw error.failure
            }
        }
        return aspects
    }

    /// Each photo's pixels (width × height) by reference, from the library's records.
    static func pixelCounts(of collage: Collage, in library: Library) -> [String: Double] {
        var pixels: [String: Double] = [:]
        for photo in collage.photosInLayoutOrder {
            guard let reference = photo.content.reference, pixels[reference] == nil,
                let record = try? library.photo(reference)
            else { continue }
            pixels[reference] = Double(record.width) * Double(record.height)
        }
        return pixels
    }

    /// The `arrange` edit for `collage`, from its photos' aspect ratios by reference, and their
    /// pixels where known (a photo with far fewer than another gets no larger frame than it).
    func edit(for collage: Collage, aspects: [String: Double], pixels: [String: Double] = [:]) throws(Failure) -> Edit {
        let photos = collage.photosInLayoutOrder
        let arrangement = try arrangement(for: collage)
        let heroIndex = arrangement.hero.flatMap { hero in photos.firstIndex { $0.id == hero } }
        let counts = photos.compactMap { $0.content.reference.flatMap { pixels[$0] } }
        do {
            let result = try AutoLayout.arrange(
                aspectRatios: photos.map { $0.content.reference.flatMap { aspects[$0] } ?? 1 },
                pixelCounts: counts.count == photos.count ? counts : nil, canvas: collage.canvas,
                spacing: collage.style.spacing, padding: collage.style.padding,
                options: AutoLayout.Options(
                    seed: arrangement.seed, hero: heroIndex, maximumCrop: arrangement.maximumCrop,
                    keepsOrder: arrangement.keepsOrder))
            let frames = Dictionary(uniqueKeysWithValues: zip(photos.map(\.id), result.frames))
            return .arrange(frames: frames, arrangement: arrangement)
        } catch {
            throw Failure(
                .invalidInput,
                error == .photoCount(0) ? "the collage has no photos to lay out" : "cannot lay out its photos: \(error)"
            )
        }
    }

    /// The edits a change to an arranged collage needs: the change, then the layout made again
    /// when the change altered what it was made for, so every face keeps a smart layout smart,
    /// in one version. New spacing or padding, and two photos trading places, keep the layout's
    /// tree (``AutoLayout/refit(frames:aspectRatios:canvas:spacing:padding:maximumCrop:)``): each
    /// photo stays where it was among the others. A new canvas shape, or photos added or
    /// removed, need a new search (same seed and hero).
    static func keepingArranged(
        _ edits: [Edit], on collage: Collage, in library: Library
    ) throws(Failure) -> [Edit] {
        guard collage.arrangement != nil else { return edits }
        var changesPhotos = false
        var refits = false
        for edit in edits {
            switch edit {
            case .setAspect, .removeItem: changesPhotos = true
            case .addItem(_, let content, _): if case .photo = content { changesPhotos = true }
            case .duplicateItem(let id, _):
                if case .photo = collage.items.first(where: { $0.id == id })?.content { changesPhotos = true }
            case .swapContents, .replacePhoto: refits = true
            case .setStyle(let style):
                if style.spacing != collage.style.spacing || style.padding != collage.style.padding { refits = true }
            default: break
            }
        }
        guard changesPhotos || refits else { return edits }
        let next: Collage
        do {
            next = try collage.applying(edits)
        } catch {
            // The edits themselves are refused: the library says why when they are applied.
            return edits
        }
        guard let arrangement = next.arrangement, !next.photosInLayoutOrder.isEmpty else { return edits }
        let aspects = try aspects(of: next, in: library)
        if !changesPhotos {
            let photos = next.photosInLayoutOrder
            let before = Dictionary(uniqueKeysWithValues: collage.items.map { ($0.id, $0.frame) })
            if let result = AutoLayout.refit(
                frames: photos.map { before[$0.id] ?? $0.frame }, gap: collage.style.spacing,
                aspectRatios: photos.map { $0.content.reference.flatMap { aspects[$0] } ?? 1 }, canvas: next.canvas,
                spacing: next.style.spacing, padding: next.style.padding, maximumCrop: arrangement.maximumCrop)
            {
                let frames = Dictionary(uniqueKeysWithValues: zip(photos.map(\.id), result.frames))
                return edits + [.arrange(frames: frames, arrangement: arrangement)]
            }
        }
        let again = try ArrangeRequest()
        return edits + [try again.edit(for: next, aspects: aspects, pixels: pixelCounts(of: next, in: library))]
    }
}
