import Foundation
import Testing

@testable import CollageRender

/// A large shadow is blurred on a reduced copy: it must look the same as one blurred at full
/// size (a shadow has no detail to lose), and be placed exactly where that one is.
struct ShadowTests {
    @Test(arguments: [20.0, 40.0])
    func aShadowBlurredSmallIsTheShadowBlurredLarge(sigma: Double) throws {
        var pixels = [UInt8](repeating: 0, count: 400 * 300 * 4)
        for y in 60..<240 {
            for x in 80..<330 {
                let index = (y * 400 + x) * 4
                pixels[index..<index + 4] = [200, 60, 40, 255]
            }
        }
        let image = try VipsImage.fromPixels(pixels, width: 400, height: 300, bands: 4)
        let (reduced, margin) = try CellEffects.shadow(image, sigma: sigma)
        // The same shadow, blurred at full size.
        let offset = Int((sigma * 0.6).rounded())
        let (width, height) = (reduced.width, reduced.height)
        let alpha = try image.extractBands(3, count: 1)
            .embed(x: margin, y: margin + offset, width: width, height: height)
            .gaussianBlur(sigma: sigma).linear(multiply: 0.45, add: 0).castToUInt8()
        let full = try VipsImage.solid(width: width, height: height, values: [0, 0, 0]).joining(alpha)
            .compositing([(image, margin, margin)])
        let (a, b) = (try reduced.pixels(), try full.pixels())
        #expect(a.count == b.count)
        let largest = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 6, "sigma \(sigma): the shadows differ by up to \(largest) of 255")
    }
}
