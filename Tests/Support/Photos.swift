import CollageRender
import Foundation

/// Photo files made for a test: real encoded images (JPEG, PNG, …) written by the renderer's
/// own encoder, so every suite imports and decodes the same way a person's files are.
public enum TestPhotos {
    /// Writes a one-colour image; different colours give different bytes.
    @discardableResult
    public static func solid(
        _ color: [UInt8], width: Int = 300, height: Int = 200, format: OutputFormat = .png, to file: URL
    ) throws -> URL {
        try Bitmap(width: width, height: height, color: color).write(to: file, format: format)
        return file
    }

    /// The bytes of a one-colour JPEG, for uploads.
    public static func jpegData(_ color: [UInt8], width: Int = 320, height: Int = 240) throws -> Data {
        let folder = try TemporaryFolder("collage-photo")
        let file = try solid(color, width: width, height: height, format: .jpeg, to: folder.file("photo.jpg"))
        return try Data(contentsOf: file)
    }
}
