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

    /// The PNG bytes of a photo with one subject: an ellipse of `color` centred at `center`
    /// (pixels) with radii `radii`, on a pale plain background, as the model finds subjects.
    public static func subjectPNG(
        width: Int, height: Int, center: (x: Double, y: Double), radii: (x: Double, y: Double),
        color: [UInt8] = [200, 40, 60]
    ) throws -> Data {
        var photo = Bitmap(width: width, height: height, color: [236, 234, 228])
        for y in 0..<height {
            for x in 0..<width
            where pow(Double(x) - center.x, 2) / (radii.x * radii.x) + pow(Double(y) - center.y, 2)
                / (radii.y * radii.y)
                <= 1
            {
                photo[x, y] = color
            }
        }
        let folder = try TemporaryFolder("collage-subject")
        let file = folder.file("subject.png")
        try photo.write(to: file, format: .png)
        return try Data(contentsOf: file)
    }
}
