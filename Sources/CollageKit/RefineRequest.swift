import CollageCore
import CollageLibrary
import CollageRender
import Foundation
import Stickers

/// The refine brush's strokes for one sticker, as the API receives them, checked against
/// ``CollageCore/Limits`` when made: `{"strokes": [{"mode": "erase", "size": 24, "softness":
/// 0.5, "points": [[x, y], ...]}]}`, sizes (the brush's diameter) and points in the sticker's pixels.
public struct RefineRequest: Sendable, Equatable {
    /// The strokes, in the order they were drawn.
    public let strokes: [BrushStroke]

    /// Reads and checks the strokes.
    /// - Throws: ``Failure`` of kind `invalidOption` naming the stroke and field, what it expects
    ///   and what it got; of kind `invalidOption` when all together would cost too much.
    public init(_ value: JSONValue?, stickerWidth: Int, stickerHeight: Int) throws(Failure) {
        guard case .array(let elements)? = value else {
            throw Failure(.invalidOption, "expects a list of strokes", field: "strokes")
        }
        guard Limits.refineStrokes.contains(elements.count) else {
            throw Failure(
                .invalidOption, "expects \(Limits.describe(Limits.refineStrokes)) strokes, got \(elements.count)",
                field: "strokes")
        }
        var strokes: [BrushStroke] = []
        var (points, work) = (0, 0.0)
        let reach = StickerRefinement.reach(width: stickerWidth, height: stickerHeight)
        let (areaWidth, areaHeight) = (Double(stickerWidth + 2 * reach), Double(stickerHeight + 2 * reach))
        for (index, element) in elements.enumerated() {
            let field = "strokes[\(index)]"
            guard case .object(let members) = element else {
                throw Failure(.invalidOption, "expects {mode, size, softness, points}", field: field)
            }
            guard case .string(let name)? = members["mode"], let mode = BrushStroke.Mode(rawValue: name) else {
                throw Failure(.invalidOption, "expects erase or restore", field: "\(field).mode")
            }
            guard case .number(let size)? = members["size"], size.isFinite,
                Limits.refineRadius.contains(size / 2)
            else {
                throw Failure(
                    .invalidOption,
                    "expects a brush size in pixels of the sticker, from \(JSONValue.format(Limits.refineRadius.lowerBound * 2)) "
                        + "to \(JSONValue.format(Limits.refineRadius.upperBound * 2))", field: "\(field).size")
            }
            var softness = 0.5
            if let given = members["softness"] {
                guard case .number(let number) = given, (0...1).contains(number) else {
                    throw Failure(
                        .invalidOption, "expects a number from 0 (hard) to 1 (soft)", field: "\(field).softness")
                }
                softness = number
            }
            guard case .array(let path)? = members["points"], !path.isEmpty else {
                throw Failure(.invalidOption, "expects a list of [x, y] points", field: "\(field).points")
            }
            points += path.count
            guard points <= Limits.refinePoints else {
                throw Failure(
                    .invalidOption, "expects at most \(Limits.refinePoints) points in all strokes together",
                    field: "strokes")
            }
            let radius = size / 2
            // A point may lie as far outside the sticker as the brush reaches past its box, and
            // a brush's width more (a stroke that runs off the side).
            let beyond = Double(reach) + size
            let reachX = -beyond...(Double(stickerWidth) + beyond)
            let reachY = -beyond...(Double(stickerHeight) + beyond)
            var stroke: [Point] = []
            for (number, entry) in path.enumerated() {
                guard case .array(let pair) = entry, pair.count == 2, case .number(let x) = pair[0],
                    case .number(let y) = pair[1], reachX.contains(x), reachY.contains(y)
                else {
                    throw Failure(
                        .invalidOption,
                        "expects [x, y] in pixels of the sticker (\(stickerWidth) × \(stickerHeight)), at most "
                            + "\(reach) beyond its sides",
                        field: "\(field).points[\(number)]")
                }
                // Each segment visits its box, as far as the sticker goes.
                let (fromX, fromY) = (stroke.last?.x ?? x, stroke.last?.y ?? y)
                work +=
                    min(areaWidth, abs(x - fromX) + 2 * radius) * min(areaHeight, abs(y - fromY) + 2 * radius)
                stroke.append(Point(x: x, y: y))
            }
            // The stroke is then applied over the box of all its segments, once.
            let xs = stroke.map(\.x)
            let ys = stroke.map(\.y)
            if let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() {
                let boxWidth = min(areaWidth, maxX - minX + 2 * radius)
                let boxHeight = min(areaHeight, maxY - minY + 2 * radius)
                work += max(0, boxWidth) * max(0, boxHeight)
            }
            guard work <= Double(Limits.refineWork) else {
                throw Failure(
                    .invalidOption, "these strokes cover too much at once; send fewer or smaller strokes at a time",
                    field: "strokes")
            }
            strokes.append(BrushStroke(mode: mode, radius: radius, softness: softness, points: stroke))
        }
        self.strokes = strokes
    }
}

extension Workspace {
    /// Applies the refine brush's strokes to a library sticker and stores the result as a new
    /// sticker (see ``Stickers/SubjectModel/refineSticker(_:strokes:in:)``), which may be larger
    /// or smaller than the first and lie elsewhere in the photo.
    /// - Throws: ``Failure``: `notFound` for an unknown sticker, `invalidOption` for strokes out
    ///   of range or a sticker that cannot be refined, `unavailable` without a model when the
    ///   sticker's place in its photo must be found again.
    public func refineSticker(_ id: String, strokes value: JSONValue?) throws(Failure) -> RefinedSticker {
        let sticker = try self.sticker(id)
        let request = try RefineRequest(value, stickerWidth: sticker.width, stickerHeight: sticker.height)
        guard let model else {
            throw Failure(.unavailable, "the subject model is not installed; run \(SubjectModel.fetchCommand)")
        }
        let refined: StickerRecord
        do {
            refined = try model.refineSticker(sticker.id, strokes: request.strokes, in: library)
        } catch {
            throw error.failure
        }
        // Refining records the first sticker's place when it had none; should that record fail,
        // the place is found again (an item moved by a wrong offset would jump).
        let first = try self.sticker(id)
        let before: PixelPoint
        do throws(StickerError) {
            before = try model.origin(of: first, in: library)
        } catch {
            throw error.failure
        }
        guard let after = refined.photoOrigin else {
            return RefinedSticker(record: refined, offset: (0, 0))
        }
        return RefinedSticker(record: refined, offset: (after.x - before.x, after.y - before.y))
    }

    /// The photo's pixels under a sticker and as far around it as the refine brush reaches, as
    /// RGB, and where the sticker's top-left corner lies in them: what the refine brush shows
    /// beneath the sticker and brings back with Restore.
    /// - Throws: ``Failure``: `notFound`, `unavailable` without a model when the sticker's
    ///   place must be found again.
    public func photoUnderSticker(_ id: String) throws(Failure) -> (photo: Bitmap, stickerAt: PixelPoint) {
        let sticker = try self.sticker(id)
        guard let model else {
            throw Failure(.unavailable, "the subject model is not installed; run \(SubjectModel.fetchCommand)")
        }
        do {
            return try model.photoUnder(sticker, in: library)
        } catch {
            throw error.failure
        }
    }
}

/// A refined sticker, and where its top-left corner lies from the first one's, in the photo's
/// pixels: a collage moves the item by as much (scaled) so the subject stays where it was.
public struct RefinedSticker: Sendable {
    /// The new sticker.
    public let record: StickerRecord
    /// Its top-left corner less the first sticker's.
    public let offset: (x: Int, y: Int)
}
