import CollageLibrary
import CollageRender
import Foundation

/// Stickers made ahead, while a photo is analysed, so that "Lift subject" only copies a file.
///
/// A lift that has to make its sticker decodes the whole photo, reads the mask, cuts out and
/// deflates a PNG: about 150 ms for a 1.5 MP photo and 600 ms for a 12 MP one on a slow
/// machine, even with no inference. Analysis already holds the photo and its mask, so it also
/// cuts out the subjects a person is likely to click (the largest few) with the editor's plain
/// options, and writes a small map of which subject lies where. A lift of one of those subjects
/// then copies the prepared PNG into the library: the same bytes the long way writes.
extension SubjectModel {
    /// At most this many subjects are made ahead, largest first.
    static let preparedSubjectLimit = 3
    /// Subjects smaller than this fraction of the largest are left for a lift to make.
    static let preparedSubjectFraction = 0.1

    /// The prepared stickers of a library take at most this many bytes (about 80 photos of
    /// 12 MP): a 12 MP photo's sticker is a PNG of several megabytes, and the photos a person is
    /// working with are the ones imported last. Older ones are removed, oldest first; their lifts
    /// take the long way.
    static let preparedBudget = 512 * 1024 * 1024

    /// Names the prepared files: this model's refined masks, cut out by this version of the
    /// default cut-out (a change to it makes a new name, so old files are never served).
    var preparedKey: String { "\(maskKey)-\(StickerMaker.cutOutVersion(cleanEdges: StickerOptions().cleanEdges))" }

    /// Makes ahead the default stickers of `mask`'s largest subjects, then the map of which subject
    /// lies where (written last: with it the photo is ready). Best effort: a sticker that cannot
    /// be written only means that its lift takes the long way.
    func prepareLifts(of image: Bitmap, mask: SubjectMask, photo: PhotoRecord, in library: Library) {
        // Points are given in the photo's recorded size; only a mask of that size can map them.
        // Otherwise the map is one empty cell: the photo is ready, and its lifts take the long way.
        guard image.width == photo.width, image.height == photo.height, let largest = mask.subjects.first else {
            if let empty = Bitmap(width: 1, height: 1, channels: 1, pixels: [0]) {
                try? empty.write(to: placesFile(photoID: photo.id, in: library), format: .png)
            }
            return
        }
        for (index, subject) in mask.subjects.prefix(Self.preparedSubjectLimit).enumerated()
        where Double(subject.area) >= Double(largest.area) * Self.preparedSubjectFraction {
            let options = StickerOptions(selection: .instance(index + 1))
            guard let cut = try? StickerMaker.cutOut(from: image, mask: mask, options: options) else { continue }
            let file = preparedFile(photoID: photo.id, instance: index + 1, in: library)
            // Where it lies in the photo, beside it: a lift that copies it records that too.
            try? Data("\(cut.x),\(cut.y)".utf8).write(to: Self.originFile(of: file), options: .atomic)
            try? cut.sticker.write(to: file, format: .png)
        }
        let labels = mask.labels
        var places = [UInt8](repeating: 0, count: labels.values.count)
        let indexOfLabel = Dictionary(
            mask.subjects.enumerated().map { ($0.element.label, min(255, $0.offset + 1)) }, uniquingKeysWith: min)
        for (cell, label) in labels.values.enumerated() where label != 0 {
            places[cell] = UInt8(indexOfLabel[label] ?? 0)
        }
        if let map = Bitmap(width: labels.width, height: labels.height, channels: 1, pixels: places) {
            try? map.write(to: placesFile(photoID: photo.id, in: library), format: .png)
        }
        Self.trimPrepared(in: library, budget: Self.preparedBudget)
    }

    /// Removes the oldest prepared stickers until the rest fit in `budget` bytes.
    package static func trimPrepared(in library: Library, budget: Int) {
        let folder = library.maskCacheFolder
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { return }
        var prepared: [(file: URL, size: Int, modified: Date)] = []
        for case let file as URL in walk
        where file.lastPathComponent.contains("-subject") && file.pathExtension == "png" {
            guard let values = try? file.resourceValues(forKeys: Set(keys)) else { continue }
            prepared.append((file, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast))
        }
        var total = prepared.reduce(0) { $0 + $1.size }
        for entry in prepared.sorted(by: { $0.modified < $1.modified }) where total > budget {
            if (try? FileManager.default.removeItem(at: entry.file)) != nil {
                total -= entry.size
                try? FileManager.default.removeItem(at: originFile(of: entry.file))
            }
        }
    }

    /// The prepared sticker a lift of `photo` with `options` can copy, if there is one: only for
    /// the editor's plain options (no outline, shadow or effect, the default edges and margin).
    func preparedLift(of photo: PhotoRecord, options: StickerOptions, in library: Library) -> PreparedLift? {
        let plain = StickerOptions(selection: options.selection)
        guard options == plain else { return nil }
        let instance: Int
        switch options.selection {
        case .instance(let number):
            instance = number
        case .all:
            // Every subject is one subject only when there is one.
            guard let places = try? Bitmap.readMask(placesFile(photoID: photo.id, in: library)),
                places.pixels.max() == 1
            else { return nil }
            instance = 1
        case .point(let x, let y):
            // Outside the photo or on no subject, the long way gives the error.
            guard x >= 0, y >= 0, x < photo.width, y < photo.height,
                let places = try? Bitmap.readMask(placesFile(photoID: photo.id, in: library)), places.channels == 1
            else { return nil }
            let labels = SubjectLabels(values: [], width: places.width, height: places.height)
            let cell = labels.row(for: y, of: photo.height) * places.width + labels.column(for: x, of: photo.width)
            guard places.pixels.indices.contains(cell), places.pixels[cell] != 0 else { return nil }
            instance = Int(places.pixels[cell])
        }
        let file = preparedFile(photoID: photo.id, instance: instance, in: library)
        guard let size = Self.pngSize(of: file) else { return nil }
        return PreparedLift(file: file, width: size.width, height: size.height, origin: Self.origin(of: file))
    }

    /// The file beside a prepared sticker that says where it lies in its photo.
    static func originFile(of file: URL) -> URL { file.appendingPathExtension("origin") }

    /// Where a prepared sticker lies in its photo, when its file beside it says so soundly.
    static func origin(of file: URL) -> PixelPoint? {
        guard let data = try? Data(contentsOf: originFile(of: file)), data.count < 64,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: ",")
        guard parts.count == 2, let x = Int(parts[0]), let y = Int(parts[1]) else { return nil }
        return PixelPoint(plausibleX: x, y: y)
    }

    private func preparedFile(photoID: String, instance: Int, in library: Library) -> URL {
        library.maskCacheFile(photoID: photoID, key: "\(preparedKey)-subject\(instance)")
    }

    func placesFile(photoID: String, in library: Library) -> URL {
        library.maskCacheFile(photoID: photoID, key: "\(preparedKey)-places")
    }

    /// The width and height a PNG's header gives, or `nil` when the file is missing or no PNG.
    static func pngSize(of file: URL) -> (width: Int, height: Int)? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 24), header.count == 24,
            header.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            header[12..<16] == Data("IHDR".utf8)
        else { return nil }
        func number(at offset: Int) -> Int { header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (width, height) = (number(at: 16), number(at: 20))
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }
}

/// A sticker made ahead: its PNG, size and place in the photo (when recorded).
struct PreparedLift {
    let file: URL
    let width: Int
    let height: Int
    let origin: PixelPoint?
}
