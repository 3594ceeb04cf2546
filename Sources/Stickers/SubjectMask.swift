import CollageCore
import CollageRender
import Foundation

/// One subject the model found: a connected region of the mask.
public struct Subject: Hashable, Sendable {
    /// Bounds in the photo's pixels.
    public let bounds: Rect
    /// Pixels in the region.
    public let area: Int
    let label: Int32
}

/// Which subjects a sticker keeps.
public enum SubjectSelection: Hashable, Sendable {
    /// Every subject together.
    case all
    /// The n-th largest subject, counting from 1.
    case instance(Int)
    /// The subject under a point of the photo, in pixels.
    case point(x: Int, y: Int)
}

/// A photo's subjects: a full-resolution alpha mask and the regions in it, largest first.
public struct SubjectMask: Sendable {
    /// Width of the photo and mask.
    public let width: Int
    /// Height of the photo and mask.
    public let height: Int
    /// 0 (background) to 255 (subject) for every pixel.
    public let alpha: [UInt8]
    /// The subjects, largest first.
    public let subjects: [Subject]
    /// Which subject each pixel is the core of (alpha at least half).
    let labels: SubjectLabels
    /// Which region of any opacity each pixel is in: a subject with its soft edge (fur, hair,
    /// glow) is one region; a faint blob apart from every subject is a region of its own.
    let extents: SubjectLabels

    /// The index into ``subjects`` of the subject under (x, y), if any.
    public func subjectIndex(atX x: Int, y: Int) -> Int? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let label = labels.values[labels.row(for: y, of: height) * labels.width + labels.column(for: x, of: width)]
        return subjects.firstIndex { $0.label == label && label != 0 }
    }

    /// The subjects a selection names.
    public func select(_ selection: SubjectSelection, path: String = "") throws(StickerError) -> [Subject] {
        switch selection {
        case .all: return subjects
        case .instance(let number):
            guard number >= 1, number <= subjects.count else {
                throw .noSuchInstance(number, available: subjects.count)
            }
            return [subjects[number - 1]]
        case .point(let x, let y):
            guard let index = subjectIndex(atX: x, y: y) ?? subjectIndex(near: x, y) else {
                throw .noSubjectAt(x: x, y: y, path: path)
            }
            return [subjects[index]]
        }
    }

    /// The index of the subject nearest (x, y) within 4 % of the photo's longer side: a finger
    /// lands a little off a thin subject (a motorcycle's frame between its wheels), and a tap
    /// there said there was no subject at all.
    func subjectIndex(near x: Int, _ y: Int) -> Int? {
        guard x >= 0, y >= 0, x < width, y < height, labels.width > 0, labels.height > 0 else { return nil }
        let reach = Double(max(width, height)) * 0.04
        let (cellWidth, cellHeight) = (Double(width) / Double(labels.width), Double(height) / Double(labels.height))
        let (column, row) = (Int(Double(x) / cellWidth), Int(Double(y) / cellHeight))
        let (across, down) = (Int((reach / cellWidth).rounded(.up)), Int((reach / cellHeight).rounded(.up)))
        var best: (index: Int, distance: Double)?
        let (row0, column0) = (min(row, labels.height - 1), min(column, labels.width - 1))
        for r in max(0, row0 - down)...min(labels.height - 1, row0 + down) {
            for c in max(0, column0 - across)...min(labels.width - 1, column0 + across) {
                let label = labels.values[r * labels.width + c]
                guard label != 0, let index = subjects.firstIndex(where: { $0.label == label }) else { continue }
                let (dx, dy) = ((Double(c) + 0.5) * cellWidth - Double(x), (Double(r) + 0.5) * cellHeight - Double(y))
                let distance = (dx * dx + dy * dy).squareRoot()
                if distance <= reach, distance < best?.distance ?? .infinity { best = (index, distance) }
            }
        }
        return best?.index
    }

    /// The subjects' centre of mass in unit coordinates of the photo (pixels at least half
    /// opaque, weighted by their opacity): the focal point smart crops keep in frame.
    public var centreOfMass: Point? { massAndRows?.centre }

    /// Where a smart crop of the photo centres (see ``CropMath/focus(centreOfMass:bounds:)``):
    /// the centre of mass, kept near the subject's top when it is tall.
    public var cropFocus: Point? {
        guard let (centre, top, bottom) = massAndRows else { return nil }
        let rows = Rect(x: 0, y: top, width: 1, height: bottom - top)
        return CropMath.focus(centreOfMass: centre, bounds: rows)
    }

    /// The centre of mass of the pixels at least half opaque, and the unit heights of the first
    /// and past the last row that holds one.
    private var massAndRows: (centre: Point, top: Double, bottom: Double)? {
        var (total, sumX, sumY) = (0.0, 0.0, 0.0)
        var (first, last) = (height, -1)
        alpha.withUnsafeBufferPointer { alpha in
            for y in 0..<height {
                var (rowTotal, rowX) = (0.0, 0.0)
                let row = y * width
                for x in 0..<width where alpha[row + x] >= 128 {
                    let weight = Double(alpha[row + x])
                    rowTotal += weight
                    rowX += weight * (Double(x) + 0.5)
                }
                if rowTotal > 0 { (first, last) = (min(first, y), y) }
                total += rowTotal
                sumX += rowX
                sumY += rowTotal * (Double(y) + 0.5)
            }
        }
        guard total > 0 else { return nil }
        let centre = Point(x: sumX / total / Double(width), y: sumY / total / Double(height))
        return (centre, Double(first) / Double(height), Double(last + 1) / Double(height))
    }

    /// Clears the pixels of an RGBA `crop` of the photo (left, top, width, height) that belong
    /// to another subject than `chosen`. Each cell of the label grid belongs to the subject whose
    /// core reaches it first, spreading a cell at a time through what the model held at least a
    /// quarter, then through the rest: a sweet the model was unsure of at one side (its core
    /// small) keeps that side, though another sweet's core lay nearer across the table; a strand
    /// the matte found goes with the subject it grows from.
    func clearPixels(
        _ pixels: inout [UInt8], ofSubjectsOtherThan chosen: [Subject],
        crop: (left: Int, top: Int, width: Int, height: Int)
    ) {
        let (gridWidth, gridHeight) = (labels.width, labels.height)
        guard gridWidth > 0, gridHeight > 0 else { return }
        // Only subjects' cores own cells from the start: a piece of core too small to be a
        // subject (the side of a sweet the model was unsure of) is taken by the subject it joins.
        let subjectLabels = Set(subjects.map(\.label))
        var owner = labels.values.map { subjectLabels.contains($0) ? $0 : 0 }
        let held = (0..<(gridWidth * gridHeight)).map { cell -> Bool in
            let y = min(height - 1, ((cell / gridWidth) * height + height / 2) / gridHeight)
            let x = min(width - 1, ((cell % gridWidth) * width + width / 2) / gridWidth)
            return alpha[y * width + x] >= 64
        }
        var frontier = owner.indices.filter { owner[$0] != 0 }
        var waiting: [Int] = []
        for throughHeld in [true, false] {
            if !throughHeld { frontier = waiting }
            while !frontier.isEmpty {
                var next: [Int] = []
                for cell in frontier {
                    let (row, column) = (cell / gridWidth, cell % gridWidth)
                    for (dy, dx) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                        let (y, x) = (row + dy, column + dx)
                        guard y >= 0, y < gridHeight, x >= 0, x < gridWidth else { continue }
                        let neighbour = y * gridWidth + x
                        guard owner[neighbour] == 0 else { continue }
                        if throughHeld && !held[neighbour] {
                            waiting.append(cell)
                            continue
                        }
                        owner[neighbour] = owner[cell]
                        next.append(neighbour)
                    }
                }
                frontier = next
            }
        }
        let maximumLabel = Int(owner.max() ?? 0)
        var keep = [Bool](repeating: false, count: maximumLabel + 1)
        for subject in chosen where Int(subject.label) <= maximumLabel { keep[Int(subject.label)] = true }
        if gridWidth == width && gridHeight == height {
            for y in 0..<crop.height {
                let ownerRow = (crop.top + y) * gridWidth
                for x in 0..<crop.width where !keep[Int(owner[ownerRow + crop.left + x])] {
                    let at = (y * crop.width + x) * 4
                    for channel in 0..<4 { pixels[at + channel] = 0 }
                }
            }
            return
        }
        // A grid coarser than the photo: what is kept is read between its cells, so where two
        // subjects touch the cut fades over a cell rather than stepping cell by cell.
        let kept = owner.map { keep[Int($0)] ? Float(1) : 0 }
        func taps(_ position: Int, full: Int, grid: Int) -> (Int, Int, Float) {
            let u = max(0, (Float(position) + 0.5) * Float(grid) / Float(full) - 0.5)
            let low = min(Int(u), grid - 1)
            return (low, min(low + 1, grid - 1), u - Float(low))
        }
        let columns = (0..<crop.width).map { taps(crop.left + $0, full: width, grid: gridWidth) }
        for y in 0..<crop.height {
            let (y0, y1, fy) = taps(crop.top + y, full: height, grid: gridHeight)
            for x in 0..<crop.width {
                let (x0, x1, fx) = columns[x]
                let top = kept[y0 * gridWidth + x0] * (1 - fx) + kept[y0 * gridWidth + x1] * fx
                let bottom = kept[y1 * gridWidth + x0] * (1 - fx) + kept[y1 * gridWidth + x1] * fx
                let share = top * (1 - fy) + bottom * fy
                guard share < 1 else { continue }
                let at = (y * crop.width + x) * 4
                let alpha = UInt8((Float(pixels[at + 3]) * share).rounded())
                pixels[at + 3] = alpha
                if alpha == 0 { (pixels[at], pixels[at + 1], pixels[at + 2]) = (0, 0, 0) }
            }
        }
    }

    /// The mask keeping only `chosen`: other subjects and stray specks become transparent.
    public func alpha(keeping chosen: [Subject]) -> [UInt8] { kept(chosen).alpha }

    /// The mask keeping only `chosen`, and the bounds of every pixel it keeps (`nil` when none).
    ///
    /// A pixel at least half opaque is kept when its subject is chosen. A softer pixel is kept
    /// when its region of any opacity holds a chosen subject: the whole soft edge (a kitten's
    /// glowing fur reaching far past the half-opaque core) stays, however far it reaches, and a
    /// faint blob not joined to a chosen subject (a bokeh highlight) goes.
    public func kept(_ chosen: [Subject]) -> (alpha: [UInt8], bounds: Rect?) {
        // Tables by label rather than sets: this runs over every pixel of a 12 MP photo.
        let maximumLabel = Int(labels.values.max() ?? 0)
        var keep = [Bool](repeating: false, count: maximumLabel + 1)
        for subject in chosen { keep[Int(subject.label)] = true }
        var keepExtent = [Bool](repeating: false, count: Int(extents.values.max() ?? 0) + 1)
        for index in labels.values.indices where keep[Int(labels.values[index])] && labels.values[index] != 0 {
            keepExtent[Int(extents.values[index])] = true
        }
        keepExtent[0] = false
        // A grid cell whose own region is not kept may still border one that is (the faintest
        // edge falls below the region threshold on the coarse grid): its neighbours count too.
        let (gridWidth, gridHeight) = (extents.width, extents.height)
        var softKeep = [Bool](repeating: false, count: gridWidth * gridHeight)
        for row in 0..<gridHeight {
            for column in 0..<gridWidth {
                var near = false
                for dy in -1...1 where !near {
                    let y = row + dy
                    guard y >= 0, y < gridHeight else { continue }
                    for dx in -1...1 {
                        let x = column + dx
                        guard x >= 0, x < gridWidth else { continue }
                        if keepExtent[Int(extents.values[y * gridWidth + x])] {
                            near = true
                            break
                        }
                    }
                }
                softKeep[row * gridWidth + column] = near
            }
        }
        var result = alpha
        let (width, height) = (width, height)
        let columns = (0..<width).map { labels.column(for: $0, of: width) }
        var (minX, minY, maxX, maxY) = (width, height, -1, -1)
        labels.values.withUnsafeBufferPointer { labels in
            result.withUnsafeMutableBufferPointer { result in
                for y in 0..<height {
                    let labelRow = self.labels.row(for: y, of: height) * self.labels.width
                    let row = y * width
                    var rowKept = false
                    for x in 0..<width where result[row + x] != 0 {
                        let cell = labelRow + columns[x]
                        let label = Int(labels[cell])
                        // Below the soft threshold a pixel is haze no one sees (2 % at most): it
                        // goes, and the box stays tight.
                        let drop =
                            label != 0
                            ? !keep[label] : !softKeep[cell] || Int(result[row + x]) < SubjectModel.softThreshold
                        if drop {
                            result[row + x] = 0
                            continue
                        }
                        rowKept = true
                        minX = min(minX, x)
                        maxX = max(maxX, x)
                    }
                    if rowKept {
                        minY = min(minY, y)
                        maxY = y
                    }
                }
            }
        }
        guard maxX >= minX, maxY >= minY else { return (result, nil) }
        return (
            result,
            Rect(x: Double(minX), y: Double(minY), width: Double(maxX - minX + 1), height: Double(maxY - minY + 1))
        )
    }
}

extension SubjectMask {
    /// A mask from its alpha (a cached one, say): the subjects and the soft regions around them.
    /// - Throws: ``StickerError/noSubject(_:)`` when no region is large enough to be a subject.
    public init(
        alpha: [UInt8], width: Int, height: Int,
        minimumSubjectFraction: Double = MaskOptions().minimumSubjectFraction, path: String = "the photo"
    ) throws(StickerError) {
        var (labels, subjects) = try SubjectModel.components(
            alpha, width: width, height: height, threshold: 128, minimumFraction: minimumSubjectFraction)
        if subjects.isEmpty {
            // A lone subject smaller than that is still the photo's subject when the model found
            // it clearly (a squirrel a third of a percent of a 3,000 × 2,000 photo of a lawn was
            // "no subject"): the largest region a tenth of that size or more, and it alone, so
            // specks beside a subject stay specks.
            (labels, subjects) = try SubjectModel.components(
                alpha, width: width, height: height, threshold: 128, minimumFraction: minimumSubjectFraction / 10)
            subjects = Array(subjects.prefix(1))
        }
        guard !subjects.isEmpty else { throw .noSubject(path) }
        let (extents, _) = try SubjectModel.components(
            alpha, width: width, height: height, threshold: SubjectModel.softThreshold, minimumFraction: 1)
        self.init(width: width, height: height, alpha: alpha, subjects: subjects, labels: labels, extents: extents)
    }
}

/// Which subject each pixel belongs to, on a grid coarser than the photo (components are found
/// on a copy of the mask at most ``SubjectModel/componentSide`` pixels long).
struct SubjectLabels: Sendable {
    /// One label per grid cell, 0 for background.
    let values: [Int32]
    let width: Int
    let height: Int

    func column(for x: Int, of fullWidth: Int) -> Int { min(width - 1, x * width / fullWidth) }
    func row(for y: Int, of fullHeight: Int) -> Int { min(height - 1, y * height / fullHeight) }
}

/// How a mask is made.
public struct MaskOptions: Hashable, Sendable {
    /// Refine the upsampled map along the photo's own edges (guided filter); else plain bilinear.
    public var refine: Bool
    /// Regions smaller than this fraction of the photo are specks, not subjects, unless no region
    /// reaches it: then the largest region of a tenth of it or more is the one subject.
    public var minimumSubjectFraction: Double

    /// The defaults: refined, subjects at least 0.5 % of the photo.
    public init(refine: Bool = true, minimumSubjectFraction: Double = 0.005) {
        self.refine = refine
        self.minimumSubjectFraction = minimumSubjectFraction
    }
}

extension SubjectModel {
    /// The mask of a photo at full resolution.
    /// - Throws: ``StickerError/noSubject(_:)`` when the photo has none.
    public func mask(
        of image: Bitmap, options: MaskOptions = MaskOptions(), path: String = "the photo"
    )
        throws(StickerError) -> SubjectMask
    {
        let (map, contrast) = try predict(image)
        // A sigmoid map with almost no spread means the model saw nothing to lift.
        guard contrast >= 0.3 else { throw .noSubject(path) }
        let rgb = image.channels == 3 ? image.pixels : Self.dropAlpha(image)
        var alpha = [UInt8](repeating: 0, count: image.width * image.height)
        var message = [CChar](repeating: 0, count: 512)
        // The map holds 320 px of information; filtering at 512 px (then carrying the
        // coefficients up) measured a smaller edge error than at 1,024 px, in less time.
        let workSide = min(Self.refinementSide, max(image.width, image.height))
        let radius = options.refine ? max(2, workSide / 128) : 0
        let status = map.withUnsafeBufferPointer { mapPointer in
            rgb.withUnsafeBufferPointer { pixels in
                alpha.withUnsafeMutableBufferPointer { output in
                    library.upsample(
                        mapPointer.baseAddress, Int32(Self.mapSide), Int32(Self.mapSide), pixels.baseAddress,
                        Int32(image.width), Int32(image.height), Int32(radius), 1e-3, Int32(workSide),
                        output.baseAddress, &message, message.count)
                }
            }
        }
        guard status == 0 else { throw .inference(cMessage(message)) }
        // What the photo itself makes clear is no subject.
        if image.channels == 4 {
            image.pixels.withUnsafeBufferPointer { pixels in
                for index in alpha.indices where alpha[index] != 0 {
                    alpha[index] = UInt8((Int(alpha[index]) * Int(pixels[index * 4 + 3]) + 127) / 255)
                }
            }
        }
        return try SubjectMask(
            alpha: alpha, width: image.width, height: image.height,
            minimumSubjectFraction: options.minimumSubjectFraction, path: path)
    }

    /// Where the subject is, in unit coordinates of the photo: the centre of mass of the mask and
    /// the bounds of all subjects. Works on a small copy, so it costs one inference.
    public func focus(
        of image: Bitmap, path: String = "the photo"
    ) throws(StickerError) -> (
        center: Point, bounds: Rect
    ) {
        let (map, contrast) = try predict(image)
        guard contrast >= 0.3 else { throw .noSubject(path) }
        let side = Self.mapSide
        var total = 0.0
        var sumX = 0.0
        var sumY = 0.0
        var (minX, minY, maxX, maxY) = (side, side, -1, -1)
        for y in 0..<side {
            for x in 0..<side {
                let value = Double(map[y * side + x])
                guard value >= 0.5 else { continue }
                total += value
                sumX += value * (Double(x) + 0.5)
                sumY += value * (Double(y) + 0.5)
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
            }
        }
        guard total > 0 else { throw .noSubject(path) }
        let unit = Double(side)
        return (
            Point(x: sumX / total / unit, y: sumY / total / unit),
            Rect(
                x: Double(minX) / unit, y: Double(minY) / unit, width: Double(maxX - minX + 1) / unit,
                height: Double(maxY - minY + 1) / unit)
        )
    }

    /// The long side of the copy of a mask that subjects are separated on: plenty to tell
    /// subjects apart, and a 12 MP mask needs no 12 M-entry label table.
    static let componentSide = 1024

    /// The long side the guided filter works at (see ``mask(of:options:path:)``).
    static let refinementSide = 512

    /// The least opacity (of 255) that joins a pixel to a subject's soft region.
    static let softThreshold = 6

    static func components(
        _ alpha: [UInt8], width: Int, height: Int, threshold: Int, minimumFraction: Double
    ) throws(StickerError)
        -> (SubjectLabels, [Subject])
    {
        let library = try SegmentLibrary.get()
        var labels = [Int32](repeating: 0, count: min(width * height, componentSide * componentSide))
        let maximum = 256
        var stats = [Int32](repeating: 0, count: maximum * 5)
        var message = [CChar](repeating: 0, count: 512)
        var labelWidth: Int32 = 0
        var labelHeight: Int32 = 0
        let count = alpha.withUnsafeBufferPointer { mask in
            labels.withUnsafeMutableBufferPointer { labelPointer in
                library.components(
                    mask.baseAddress, Int32(width), Int32(height), Int32(threshold), Int32(componentSide),
                    labelPointer.baseAddress, &labelWidth, &labelHeight, &stats, Int32(maximum), &message,
                    message.count)
            }
        }
        guard count >= 0 else { throw .inference(cMessage(message)) }
        labels.removeLast(labels.count - Int(labelWidth) * Int(labelHeight))
        let minimumArea = max(16, Int(Double(width * height) * minimumFraction))
        let subjects = (0..<Int(count)).compactMap { index -> Subject? in
            let base = index * 5
            let area = Int(stats[base + 4])
            guard area >= minimumArea else { return nil }
            return Subject(
                bounds: Rect(
                    x: Double(stats[base]), y: Double(stats[base + 1]), width: Double(stats[base + 2]),
                    height: Double(stats[base + 3])), area: area, label: Int32(index + 1))
        }
        return (
            SubjectLabels(values: labels, width: Int(labelWidth), height: Int(labelHeight)),
            subjects.sorted { $0.area > $1.area }
        )
    }
}
