import CollageCore
import CollageRender
import CollageTestSupport
import Foundation
import Testing

/// Generated images, temporary folders and helpers shared by the renderer's tests.
final class RenderFixtures {
    private let folder: TemporaryFolder
    var directory: URL { folder.url }

    init() throws {
        folder = try TemporaryFolder("collage-render")
    }

    func url(_ name: String) -> URL { folder.file(name) }

    /// Writes a one-colour image and returns its path.
    @discardableResult
    func solid(
        _ name: String, _ color: [UInt8], width: Int = 64, height: Int = 48, format: OutputFormat = .png
    ) throws -> URL {
        try TestPhotos.solid(color, width: width, height: height, format: format, to: url(name))
    }

    /// Quadrants red, green / blue, white (top-left, top-right / bottom-left, bottom-right): any
    /// flip or turn changes which colour sits where.
    static func quadrants(width: Int = 80, height: Int = 60) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, color: [0, 0, 0])
        for y in 0..<height {
            for x in 0..<width {
                let color: [UInt8] =
                    switch (x < width / 2, y < height / 2) {
                    case (true, true): [255, 0, 0]
                    case (false, true): [0, 255, 0]
                    case (true, false): [0, 0, 255]
                    case (false, false): [255, 255, 255]
                    }
                bitmap[x, y] = color
            }
        }
        return bitmap
    }

    /// A collage on `canvas` with the given photos filling `template`'s slots.
    static func collage(
        template: String?, photos: [URL], canvas: Size = Size(width: 400, height: 400), style: Style = Style()
    ) throws -> Collage {
        var collage = Collage(
            id: "t", title: "t", created: Date(timeIntervalSince1970: 0), canvas: canvas, templateID: template)
        collage = try collage.applying(.setStyle(style))
        for (index, photo) in photos.enumerated() {
            collage = try collage.applying(.addItem(id: "i\(index)", content: .photo(photo.path), frame: nil))
        }
        return collage
    }

    func render(_ collage: Collage, _ name: String, options: RenderOptions) throws -> Bitmap {
        let output = url(name)
        try CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: directory), options: options, to: output)
        return try Bitmap.read(output)
    }

    /// Runs the `vips` command-line tool (libvips-tools) to make inputs our own API does not write.
    func vips(_ arguments: String...) throws {
        let status = try Tools.run("/usr/bin/vips", arguments, in: directory).status
        #expect(status == 0, "vips \(arguments.joined(separator: " "))")
    }

    /// Runs `vips` and returns what it printed.
    func vipsOutput(_ arguments: String...) throws -> String {
        try Self.output(of: "/usr/bin/vips", arguments, in: directory)
    }

    /// Runs a libvips tool and returns what it printed, trimmed.
    static func output(of tool: String, _ arguments: [String], in directory: URL? = nil) throws -> String {
        try Tools.run(tool, arguments, in: directory).output
    }

    /// Files left in the folder whose names start with `prefix` (partial outputs included).
    func files(startingWith prefix: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasPrefix(prefix) || $0.hasPrefix(".\(prefix)")
        }
    }
}

/// Whether two colours are within `tolerance` per channel (JPEG and resampling blur a little).
func close(_ pixel: [UInt8], _ expected: [UInt8], tolerance: Int = 12) -> Bool {
    zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
}
