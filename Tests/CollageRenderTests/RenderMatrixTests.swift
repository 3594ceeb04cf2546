import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// Every ordinary collage renders: each layout and smart layout, on square, wide and tall
/// canvases, from every kind of photo people have (small PNGs enlarged many times, large JPEGs
/// shrunk many times, grey, 16-bit, palette, interlaced, every EXIF orientation, WebP, GIF,
/// TIFF, HEIC, a 1 × 1 pixel), at 1×, 3× and a print size, to JPEG, PNG and WebP.
///
/// Photos decode in one top-to-bottom pass; what once broke was a later step (enlarging,
/// turning) asking for their rows out of order, which shows only with several photos
/// decoding side by side at a large size. So the enlarging cases render at full size.
@Suite("Rendering: the matrix of layouts, photo kinds, sizes and formats")
struct RenderMatrixTests {
    /// A kind of photo file, its colour (to find it in the output) and how to make it.
    struct PhotoKind: CustomStringConvertible, Sendable {
        let name: String
        let color: [UInt8]
        let width: Int
        let height: Int
        /// `vips` arguments turning `base.png` into the file, or nil to write it directly.
        let vips: [String]?
        let format: OutputFormat
        let orientation: Int
        let alpha: Bool

        var description: String { name }
        var fileName: String {
            if let vips { return vips[2] }
            return "\(name).\(format == .jpeg ? "jpg" : format.rawValue)"
        }
        /// The colour the renderer shows: grey files keep only the luminance.
        var shownColor: [UInt8] {
            name.hasPrefix("grey") ? [UInt8](repeating: luminance, count: 3) : color
        }
        private var luminance: UInt8 {
            let (red, green, blue) = (Double(color[0]), Double(color[1]), Double(color[2]))
            let weighted: Double = 0.2126 * red + 0.7152 * green + 0.0722 * blue
            return UInt8(weighted.rounded())
        }

        init(
            _ name: String, _ color: [UInt8], _ width: Int, _ height: Int, format: OutputFormat = .png,
            orientation: Int = 1, alpha: Bool = false, vips: [String]? = nil
        ) {
            (self.name, self.color, self.width, self.height) = (name, color, width, height)
            (self.format, self.orientation, self.alpha, self.vips) = (format, orientation, alpha, vips)
        }
    }

    static let kinds: [PhotoKind] =
        [
            PhotoKind("png-small", [200, 60, 40], 120, 90),
            PhotoKind("png-alpha", [40, 160, 200], 100, 140, alpha: true),
            PhotoKind("png-tiny", [230, 200, 30], 64, 64),
            PhotoKind("png-pixel", [90, 30, 160], 1, 1),
            PhotoKind("png-wide", [30, 120, 60], 300, 40),
            PhotoKind("jpeg-large", [180, 100, 220], 3000, 2000, format: .jpeg),
            PhotoKind("webp", [20, 60, 140], 160, 120, format: .webp),
            PhotoKind("grey-png", [150, 150, 150], 90, 120, vips: ["colourspace", "base.png", "grey.png", "b-w"]),
            PhotoKind("png-16bit", [210, 120, 70], 110, 80, vips: ["colourspace", "base.png", "deep.png", "rgb16"]),
            PhotoKind(
                "png-palette", [60, 200, 160], 100, 100, vips: ["pngsave", "base.png", "palette.png", "--palette"]),
            PhotoKind(
                "png-interlaced", [240, 130, 180], 130, 100, vips: ["pngsave", "base.png", "adam7.png", "--interlace"]),
            PhotoKind("gif", [100, 180, 40], 90, 70, vips: ["gifsave", "base.png", "anim.gif"]),
            PhotoKind("tiff", [200, 200, 90], 120, 160, vips: ["tiffsave", "base.png", "scan.tif"]),
        ]
        + (1...8).map {
            PhotoKind(
                "jpeg-orientation-\($0)", [UInt8(30 * $0), 90, UInt8(250 - 25 * $0)], 150, 100, format: .jpeg,
                orientation: $0)
        }
        + [
            PhotoKind("heic", [110, 70, 40], 128, 96, vips: ["heifsave", "base.png", "phone.heic"]),
            PhotoKind(
                "avif", [70, 110, 140], 96, 128, vips: ["heifsave", "base.png", "phone.avif", "--compression", "av1"]),
        ]

    /// Writes every kind into a fresh folder.
    static func makePhotos(_ kinds: [PhotoKind] = kinds) throws -> (RenderFixtures, [URL]) {
        let fixtures = try RenderFixtures()
        var files: [URL] = []
        for kind in kinds {
            let channels = kind.alpha ? 4 : 3
            let bitmap = Bitmap(
                width: kind.width, height: kind.height, color: Array(kind.color.prefix(3)) + (kind.alpha ? [255] : []))
            #expect(bitmap.channels == channels)
            if let arguments = kind.vips {
                try bitmap.write(to: fixtures.url("base.png"), format: .png)
                let status = try Tools.run("/usr/bin/vips", arguments, in: fixtures.directory).status
                try #require(status == 0, "vips \(arguments.joined(separator: " "))")
            } else {
                try bitmap.write(to: fixtures.url(kind.fileName), format: kind.format, orientation: kind.orientation)
            }
            files.append(fixtures.url(kind.fileName))
        }
        return (fixtures, files)
    }

    /// The layouts: every template, and the smart layout with three seeds.
    static let layouts: [String] = Template.catalog.map(\.id) + ["auto:1", "auto:2", "auto:3"]

    static let canvases: [Size] = [
        Size(width: 300, height: 300), Size(width: 360, height: 240), Size(width: 240, height: 300),
    ]

    /// A collage of `files` laid out by `layout` (a template id, or `auto:SEED`).
    static func collage(
        _ layout: String, files: [URL], kinds: [PhotoKind], canvas: Size, spacing: Double = 6
    )
        throws -> Collage
    {
        let style = Style(background: .white, spacing: spacing, padding: spacing, cornerRadius: 0)
        guard layout.hasPrefix("auto:"), let seed = UInt64(layout.dropFirst(5)) else {
            return try RenderFixtures.collage(template: layout, photos: files, canvas: canvas, style: style)
        }
        let ratios = kinds.map { kind in
            Double(kind.orientation >= 5 ? kind.height : kind.width)
                / Double(kind.orientation >= 5 ? kind.width : kind.height)
        }
        let result = try AutoLayout.arrange(
            aspectRatios: ratios, canvas: canvas, spacing: spacing, padding: spacing,
            options: AutoLayout.Options(seed: seed))
        var collage = Collage(
            id: "m", title: "m", created: Date(timeIntervalSince1970: 0), canvas: canvas, style: style)
        for (index, (file, frame)) in zip(files, result.frames).enumerated() {
            collage = try collage.applying(.addItem(id: "i\(index)", content: .photo(file.path), frame: frame))
        }
        return collage
    }

    /// Renders and checks the size, and that each photo in a slot shows its own colour at its
    /// frame's centre (a photo that failed to decode, or decoded as another, would not).
    static func renderAndCheck(
        _ collage: Collage, kinds: [PhotoKind], fixtures: RenderFixtures, options: RenderOptions, label: String
    ) throws {
        let name = "out-\(label).\(options.format == .jpeg ? "jpg" : options.format.rawValue)"
        let result = try CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: fixtures.directory), options: options,
            to: fixtures.url(name))
        let image = try Bitmap.read(fixtures.url(name))
        #expect(image.width == result.width && image.height == result.height, "\(label)")
        let scale = Double(result.width) / collage.canvas.width
        for item in collage.items {
            guard case .photo(let path) = item.content,
                let kind = kinds.first(where: { path.hasSuffix("/" + $0.fileName) })
            else { continue }
            let centre = (Int(item.frame.center.x * scale), Int(item.frame.center.y * scale))
            guard centre.0 < image.width, centre.1 < image.height else { continue }
            let pixel = Array(image[centre.0, centre.1].prefix(3))
            #expect(close(pixel, kind.shownColor, tolerance: 24), "\(label): \(kind) shows \(pixel) at its centre")
        }
        try? FileManager.default.removeItem(at: fixtures.url(name))
    }

    /// Every layout on every canvas shape, the photos taking turns in the slots, at 1×: the
    /// geometry of each, with every kind of photo in it somewhere.
    @Test(arguments: layouts)
    func everyLayoutRendersOnEveryCanvasShape(layout: String) throws {
        let (fixtures, files) = try Self.makePhotos()
        let formats: [OutputFormat] = [.jpeg, .png, .webp]
        for (shape, canvas) in Self.canvases.enumerated() {
            // Each canvas shape takes the photos from a different starting point, so every kind
            // lands in several slot shapes.
            let count = layout.hasPrefix("auto:") ? 7 : Template.named(layout).map(\.slots.count) ?? 4
            let picks = (0..<count).map { (shape * 5 + $0 * 3) % Self.kinds.count }
            let collage = try Self.collage(
                layout, files: picks.map { files[$0] }, kinds: picks.map { Self.kinds[$0] }, canvas: canvas)
            try Self.renderAndCheck(
                collage, kinds: Self.kinds, fixtures: fixtures,
                options: RenderOptions(size: .scale(1), format: formats[shape]), label: "\(layout)-\(shape)")
        }
    }

    /// Each kind of photo fills a 2 × 2 grid and a smart layout with three others (so several
    /// decode side by side), enlarged into a 3,600 px export and a print size, and shrunk into a
    /// small one, in each format.
    @Test(arguments: kinds)
    func everyKindOfPhotoRendersAtEverySize(kind: PhotoKind) throws {
        let others = ["png-small", "jpeg-orientation-6", "png-alpha"].compactMap { name in
            Self.kinds.first { $0.name == name && $0.name != kind.name }
        }
        let kinds = [kind] + others
        let (fixtures, files) = try Self.makePhotos(kinds)
        let index = Self.kinds.firstIndex { $0.name == kind.name } ?? 0
        let formats: [OutputFormat] = [.jpeg, .png, .webp]
        let canvas = Size(width: 1200, height: 1200)
        let sizes: [(OutputSize, String)] = [
            (.scale(3), "3x"), (.print(try #require(PrintSize(parsing: "8x8in@300"))), "print"),
            (.scale(0.25), "small"),
        ]
        for layout in ["grid2x2", "auto:\(index % 8 + 1)"] {
            let collage = try Self.collage(layout, files: files, kinds: kinds, canvas: canvas, spacing: 12)
            for (number, (size, sizeName)) in sizes.enumerated() {
                try Self.renderAndCheck(
                    collage, kinds: kinds, fixtures: fixtures,
                    options: RenderOptions(size: size, format: formats[(index + number) % formats.count]),
                    label: "\(kind)-\(layout)-\(sizeName)")
            }
        }
    }

    /// The collage that failed for people: six small photos (PNGs of 300–600 px, two JPEGs) in
    /// smart layouts of several seeds, exported at 3× in every format, also with the photos
    /// turned (which reads them out of order too).
    @Test(arguments: 1...8)
    func smallPhotosInASmartLayoutExportAtThreeTimes(seed: Int) throws {
        let kinds = [
            PhotoKind("astronaut", [200, 90, 40], 512, 512), PhotoKind("coffee", [120, 60, 30], 600, 400),
            PhotoKind("cat", [170, 150, 120], 451, 300), PhotoKind("rocket", [30, 40, 90], 640, 427, format: .jpeg),
            PhotoKind("horse", [20, 20, 20], 400, 328, alpha: true), PhotoKind("motorbike", [180, 30, 30], 741, 500),
        ]
        let (fixtures, files) = try Self.makePhotos(kinds)
        var collage = try Self.collage(
            "auto:\(seed)", files: files, kinds: kinds, canvas: Size(width: 1200, height: 1200), spacing: 12)
        let format: [OutputFormat] = [.png, .jpeg, .webp]
        try Self.renderAndCheck(
            collage, kinds: kinds, fixtures: fixtures,
            options: RenderOptions(size: .scale(3), format: format[seed % 3]), label: "auto-\(seed)")
        for (index, item) in collage.items.enumerated() {
            collage = try collage.applying(.rotateItem(id: item.id, degrees: Double(index * 7 - 15)))
        }
        try Self.renderAndCheck(
            collage, kinds: kinds, fixtures: fixtures,
            options: RenderOptions(size: .scale(3), format: format[(seed + 1) % 3]), label: "auto-\(seed)-turned")
    }
}
