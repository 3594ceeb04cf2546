import CollageCore
import CollageLibrary
import Foundation

/// A request to make a collage, as either face receives it (the command line's `new --layout
/// strip --aspect 4:5`, the API's `POST /api/collages`), checked when it is made.
public struct NewCollageRequest: Sendable, Equatable {
    /// The template the collage follows; `nil` when its photos are laid out for their shapes
    /// (`auto`, see ``ArrangeRequest``).
    public let template: Template?
    /// The canvas shape.
    public let aspect: AspectRatio
    /// The title.
    public let title: String
    /// Photo ids (or unique prefixes), in slot order.
    public let photos: [String]

    /// The template of a collage made with no photos and no template named.
    public static let defaultTemplate = "grid2x2"
    /// The template name that lays the photos out for their shapes instead of a template.
    public static let automatic = "auto"

    /// The layout of a collage of `count` photos when none is named: one made for the photos
    /// (``automatic``), so each keeps its shape and none is left out or a slot left empty (two
    /// photos in a 2 × 2 grid left half of the collage blank, and a fixed grid crops landscape
    /// photos to strips); with none yet, or more than a layout is made for, the
    /// ``defaultTemplate``.
    public static func defaultLayout(forPhotos count: Int) -> String {
        (1...AutoLayout.Options.maximumPhotos).contains(count) ? automatic : defaultTemplate
    }

    /// A request, checked; absent values take the defaults (a layout made for the photos, or
    /// grid2x2 with none; 1:1; and a title from the day it is made, such as "3 December 2026").
    /// - Throws: ``Failure`` of kind `invalidOption` naming `template` or `aspect`.
    public init(
        title: String? = nil, template: String? = nil, aspect: String? = nil, photos: [String] = []
    )
        throws(Failure)
    {
        let templateID = template ?? Self.defaultLayout(forPhotos: photos.count)
        let named = Template.named(templateID)
        guard named != nil || templateID == Self.automatic else {
            throw Failure(
                .invalidOption,
                "expects a template id such as grid2x2 or strip, or auto, got \"\(templateID.prefix(40))\"",
                field: "template")
        }
        let aspectText = aspect ?? "1:1"
        guard let shape = AspectRatio(parsingOrPreset: aspectText) else {
            throw Failure(
                .invalidOption,
                "expects W:H such as 4:5 (from 1:20 to 20:1), or a preset such as a4, got \"\(aspectText.prefix(40))\"",
                field: "aspect")
        }
        guard photos.count <= Limits.maximumItems else {
            throw Failure(
                .invalidOption,
                "a collage holds at most \(Limits.maximumItems) items, and \(photos.count) photos were given")
        }
        self.template = named
        self.aspect = shape
        // The title is checked by the rename edit that sets it, as every title is.
        let trimmed = title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.title = trimmed.isEmpty ? Self.defaultTitle() : trimmed
        self.titleIsTheDay = trimmed.isEmpty
        self.photos = photos
    }

    /// Whether no title was given, so the collage is named after the day.
    let titleIsTheDay: Bool

    /// The day's title, numbered after the collages of the day already in `library` ("7 December
    /// 2026 (2)"): three made on one day were three of one name in the library's grid.
    func dayTitle(in library: Library) -> String {
        guard let titles = try? Set(library.collages().map(\.title)), titles.contains(title) else { return title }
        var number = 2
        while titles.contains("\(title) (\(number))") { number += 1 }
        return "\(title) (\(number))"
    }

    /// The title of a collage made on `day` that was given none: the day itself, as people
    /// name an album ("3 December 2026"), never "Untitled".
    public static func defaultTitle(on day: Date = Date(), timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.day, .month, .year], from: day)
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        let month = months[min(11, max(0, (parts.month ?? 1) - 1))]
        return "\(parts.day ?? 1) \(month) \(parts.year ?? 2000)"
    }

    /// Makes the collage in the library.
    /// - Throws: ``Failure``: `locked` for a premium layout without Collage Premium, `notFound`
    ///   for an unknown photo.
    public func create(
        in library: Library, access: PremiumAccess, arranging arrangement: ArrangeRequest? = nil
    ) throws(Failure) -> StoredCollage {
        if let template { try access.check(applying: template) }
        // A smart layout is made before the collage is stored: it is stored laid out, or not at all.
        var finishing: (Collage) throws(LibraryError) -> Collage = { $0 }
        if template == nil, !photos.isEmpty {
            // Refused as arranging refuses it (422, the same words), before any photo is read.
            guard photos.count <= AutoLayout.Options.maximumPhotos else {
                throw Failure(
                    .invalidInput, "cannot lay out its photos: \(AutoLayout.Failure.photoCount(photos.count))")
            }
            let request: ArrangeRequest
            if let arrangement { request = arrangement } else { request = try ArrangeRequest() }
            var aspects: [String: Double] = [:]
            var pixels: [String: Double] = [:]
            for id in photos {
                do {
                    let record = try library.photo(id)
                    aspects[record.id] = Double(record.width) / Double(record.height)
                    pixels[record.id] = Double(record.width) * Double(record.height)
                } catch {
                    throw error.failure
                }
            }
            let (known, sizes) = (aspects, pixels)
            finishing = { collage throws(LibraryError) in
                do {
                    return try collage.applying(request.edit(for: collage, aspects: known, pixels: sizes))
                } catch let error as Failure {
                    throw .invalid(error.text(optionPrefix: ""))
                } catch let error as EditError {
                    throw .edit(error)
                } catch {
                    throw .invalid("\(error)")
                }
            }
        }
        do {
            return try library.createCollage(
                title: titleIsTheDay ? dayTitle(in: library) : title, templateID: template?.id, aspect: aspect,
                photoIDs: photos, finishing: finishing)
        } catch {
            throw error.failure
        }
    }
}

/// Changes to a stored collage, as either face receives them: edits (JSON, see ``CollageCore/EditCodec``)
/// at the version the sender last saw.
public struct EditRequest: Sendable {
    /// The edits, applied all or nothing.
    public let edits: [Edit]
    /// The version the sender last saw; `nil` applies to whatever is current.
    public let version: Int?

    /// A request from decoded JSON (one edit object, or an array of them).
    /// - Throws: ``Failure`` of kind `invalidInput` listing every problem with its path
    ///   (`edits[1].degrees …`).
    public init(edits: JSONValue, version: Int?) throws(Failure) {
        do {
            self.edits = try EditCodec.decode(edits)
        } catch {
            throw Failure(
                .invalidInput,
                error.issues.map { "edits\($0.path.isEmpty || $0.path.hasPrefix("[") ? "" : ".")\($0)" }
                    .joined(separator: "; "))
        }
        self.version = version
    }

    /// A request of edits already decoded (the command line's `layout ID TEMPLATE`).
    public init(edits: [Edit], version: Int? = nil) {
        self.edits = edits
        self.version = version
    }

    /// Reads a version number as both faces receive one (`--version 7`, `"version": 7`).
    /// - Throws: ``Failure`` of kind `invalidOption` naming `version` and its range.
    public static func version(_ number: Double) throws(Failure) -> Int {
        guard let version = number.wholeNumber(in: Limits.version) else {
            throw Failure(
                .invalidOption,
                "expects the whole number of the version last seen (\(Limits.describe(Limits.version))), "
                    + "got \(JSONValue.format(number))", field: "version")
        }
        return version
    }

    /// Reads a version number from text (the command line's `--version`).
    public static func version(_ text: String) throws(Failure) -> Int {
        guard let number = Double(decimal: text.trimmingCharacters(in: .whitespaces)) else {
            throw Failure(
                .invalidOption,
                "expects the whole number of the version last seen (\(Limits.describe(Limits.version))), "
                    + "got \"\(text.prefix(40))\"", field: "version")
        }
        return try version(number)
    }

    /// The edits with the photo of each `replacePhoto` found in the library and named by its
    /// full id (a unique prefix finds it, as everywhere): a photo item shows only a photo the
    /// library has.
    /// - Throws: ``Failure`` of kind `notFound` for a photo the library lacks.
    private func withPhotosFound(in library: Library) throws(Failure) -> [Edit] {
        var found: [Edit] = []
        for edit in edits {
            guard case .replacePhoto(let item, let photo) = edit else {
                found.append(edit)
                continue
            }
            do {
                found.append(.replacePhoto(id: item, photo: try library.photo(photo).id))
            } catch {
                throw error.failure
            }
        }
        return found
    }

    /// Applies the edits to the collage `id`.
    /// - Throws: ``Failure``: `locked` when an edit applies a premium layout the collage does not
    ///   follow yet and premium is locked, `conflict` when the collage moved past ``version``,
    ///   `invalidInput` when an edit is refused, `notFound` for an unknown collage.
    public func apply(to id: String, in library: Library, access: PremiumAccess) throws(Failure) -> StoredCollage {
        let stored: StoredCollage
        do {
            stored = try library.collageToChange(id)
        } catch {
            throw error.failure
        }
        let edits = try withPhotosFound(in: library)
        if !access.isUnlocked { try access.check(edits, on: stored.collage) }
        // A sticker item may show only a sticker the library has (a refined copy it just made).
        for case .replaceSticker(_, let sticker) in edits {
            do {
                _ = try library.sticker(sticker)
            } catch {
                throw error.failure
            }
        }
        let all = try TextFitting.fitting(
            try ArrangeRequest.keepingArranged(edits, on: stored.collage, in: library), on: stored.collage)
        do {
            // A layout made again, or a text fitted, was made for the collage as read: it applies
            // only to that version.
            let expected = all.count > edits.count ? (version ?? stored.version) : version
            return try library.apply(all, to: stored.collage.id, expectedVersion: expected, base: stored)
        } catch {
            throw error.failure
        }
    }

    /// The collage `id` as these edits would leave it, stored nowhere: with everything an
    /// ``apply(to:in:access:)`` would add (a smart layout refitted, a text fitted), so a live
    /// preview (a slider being dragged, a layout being tried) is exactly what letting go saves.
    /// - Throws: ``Failure``: `invalidInput` when an edit is refused, `notFound` for an unknown
    ///   collage.
    public func preview(of id: String, in library: Library) throws(Failure) -> StoredCollage {
        let stored: StoredCollage
        do {
            stored = try library.collage(id)
        } catch {
            throw error.failure
        }
        let edits = try withPhotosFound(in: library)
        let all = try TextFitting.fitting(
            try ArrangeRequest.keepingArranged(edits, on: stored.collage, in: library), on: stored.collage)
        do {
            return try library.preview(all, of: stored.collage.id)
        } catch {
            throw error.failure
        }
    }
}
