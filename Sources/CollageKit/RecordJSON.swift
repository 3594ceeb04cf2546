import CollageCore
import CollageLibrary
import CollageRender
import Foundation

/// One JSON form per record, shared by `--json` on the command line and the API. A face adds
/// what only it has (the command line a file path, the API the URLs of its images) with
/// ``adding(_:to:)``.
public enum RecordJSON {
    /// `{id, name, format, width, height, bytes, imported}`.
    public static func photo(_ photo: PhotoRecord) -> JSONValue {
        .object([
            "id": .string(photo.id), "name": .string(photo.originalName), "format": .string(photo.format),
            "width": .number(Double(photo.width)), "height": .number(Double(photo.height)),
            "bytes": .number(Double(photo.byteSize)), "imported": .string(CollageDocument.jsonDate(photo.importedAt)),
        ])
    }

    /// `{id, name, paired, lastSeen}`.
    public static func device(_ device: PairedDevice) -> JSONValue {
        .object([
            "id": .string(device.id), "name": .string(device.name),
            "paired": .string(CollageDocument.jsonDate(device.pairedAt)),
            "lastSeen": .string(CollageDocument.jsonDate(device.lastSeen)),
        ])
    }

    /// `{id, photo, width, height, created, outline, shadow, effect?}`: what was drawn into its
    /// pixels (an outline's width, a shadow, an effect) with it.
    public static func sticker(_ sticker: StickerRecord) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(sticker.id), "photo": .string(sticker.photoID), "width": .number(Double(sticker.width)),
            "height": .number(Double(sticker.height)), "created": .string(CollageDocument.jsonDate(sticker.createdAt)),
            "outline": .number(sticker.outlineWidth), "shadow": .bool(sticker.shadow),
        ]
        if let effect = sticker.drawnEffect { members["effect"] = .string(effect) }
        return .object(members)
    }

    /// `{id, title, items, template, version, created, updated}`.
    public static func summary(_ summary: CollageSummary) -> JSONValue {
        .object([
            "id": .string(summary.id), "title": .string(summary.title), "items": .number(Double(summary.itemCount)),
            "template": summary.templateID.map(JSONValue.string) ?? .null, "version": .number(Double(summary.version)),
            "created": .string(CollageDocument.jsonDate(summary.created)),
            "updated": .string(CollageDocument.jsonDate(summary.updated)),
        ])
    }

    /// The same summary, of a collage just stored.
    public static func summary(_ stored: StoredCollage) -> JSONValue {
        .object([
            "id": .string(stored.collage.id), "title": .string(stored.collage.title),
            "items": .number(Double(stored.collage.items.count)),
            "template": stored.collage.templateID.map(JSONValue.string) ?? .null,
            "version": .number(Double(stored.version)),
            "created": .string(CollageDocument.jsonDate(stored.collage.created)),
            "updated": .string(CollageDocument.jsonDate(stored.collage.updated)),
        ])
    }

    /// `{version, collage}`: a stored collage's whole document.
    public static func document(_ stored: StoredCollage) -> JSONValue {
        .object(["version": .number(Double(stored.version)), "collage": CollageDocument.jsonValue(of: stored.collage)])
    }

    /// `{file, width, height, format, dpi?}`.
    public static func render(_ result: RenderResult) -> JSONValue {
        var members: [String: JSONValue] = [
            "file": .string(result.file.path), "width": .number(Double(result.width)),
            "height": .number(Double(result.height)), "format": .string(result.format.rawValue),
        ]
        if let dpi = result.dpi { members["dpi"] = .number(dpi) }
        return .object(members)
    }

    /// `{dryRun, removedFiles, freedBytes, keptUnrecorded}` (in a dry run, what would be removed and
    /// freed; kept: originals and sticker images no record names).
    public static func cleanup(_ report: CleanupReport) -> JSONValue {
        .object([
            "dryRun": .bool(report.dryRun),
            "removedFiles": .number(Double(report.removedFiles)), "freedBytes": .number(Double(report.freedBytes)),
            "keptUnrecorded": .number(Double(report.keptUnrecorded)),
        ])
    }

    /// `{healthy, repaired, damagedCells, repairs, missingPhotos, missingStickers, unrecordedPhotos,
    /// brokenItems, invalidCollages}`.
    public static func health(_ report: HealthReport) -> JSONValue {
        .object([
            "healthy": .bool(report.isHealthy), "repaired": .bool(report.repaired),
            "damagedCells": .array(
                report.damagedCells.map {
                    .object([
                        "table": .string($0.table), "row": .string($0.row), "column": .string($0.column),
                        "found": .string($0.found), "expected": .string($0.expected),
                    ])
                }),
            "repairs": .array(report.repairs.map(JSONValue.string)),
            "missingPhotos": .array(report.missingPhotos.map(JSONValue.string)),
            "missingStickers": .array(report.missingStickers.map(JSONValue.string)),
            "unrecordedPhotos": .array(report.unrecordedPhotos.map(JSONValue.string)),
            "brokenItems": .array(
                report.brokenItems.map { .object(["collage": .string($0.collage), "item": .string($0.item)]) }),
            "invalidCollages": .array(
                report.invalidCollages.map {
                    .object(["collage": .string($0.collage), "issues": .array($0.issues.map(JSONValue.string))])
                }),
        ])
    }

    /// `record` with more members (a face's own: a file path, image URLs).
    public static func adding(_ extra: [String: JSONValue], to record: JSONValue) -> JSONValue {
        guard case .object(var members) = record else { return record }
        members.merge(extra) { _, new in new }
        return .object(members)
    }
}
