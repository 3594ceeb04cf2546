/// Exact Euclidean distances to the nearest marked pixel, in time linear in the pixels
/// (Felzenszwalb and Huttenlocher's lower envelope of parabolas: a pass down the columns, then
/// one along the rows). libvips' `fill_nearest` took 14 s on the mask of a 12 MP photo's sticker.
public enum DistanceField {
    /// The squared distance from each pixel to the nearest pixel for which `isMarked` holds; a
    /// very large value (more than the image's squared diagonal) where nothing is marked.
    public static func squaredDistances(width: Int, height: Int, isMarked: (Int) -> Bool) -> [Float] {
        guard width > 0, height > 0 else { return [] }
        let far = Double(width * width + height * height) + 1
        var field = [Float](repeating: 0, count: width * height)
        let longest = max(width, height)
        var line = [Double](repeating: 0, count: longest)
        var result = [Double](repeating: 0, count: longest)
        var centres = [Int](repeating: 0, count: longest)
        var bounds = [Double](repeating: 0, count: longest + 1)
        field.withUnsafeMutableBufferPointer { field in
            for x in 0..<width {
                for y in 0..<height { line[y] = isMarked(y * width + x) ? 0 : far }
                envelope(&line, count: height, into: &result, centres: &centres, bounds: &bounds)
                for y in 0..<height { field[y * width + x] = Float(result[y]) }
            }
            for y in 0..<height {
                let row = y * width
                for x in 0..<width { line[x] = Double(field[row + x]) }
                envelope(&line, count: width, into: &result, centres: &centres, bounds: &bounds)
                for x in 0..<width { field[row + x] = Float(result[x]) }
            }
        }
        return field
    }

    /// One line: for each position q, the minimum over p of (q − p)² + f(p).
    private static func envelope(
        _ f: inout [Double], count: Int, into result: inout [Double], centres: inout [Int], bounds: inout [Double]
    ) {
        var k = 0
        centres[0] = 0
        bounds[0] = -.infinity
        bounds[1] = .infinity
        func crossing(_ q: Int, _ p: Int) -> Double {
            ((f[q] + Double(q * q)) - (f[p] + Double(p * p))) / Double(2 * (q - p))
        }
        for q in 1..<max(1, count) {
            // bounds[0] is −∞, so the walk back stops at the first parabola.
            var at = crossing(q, centres[k])
            while at <= bounds[k] {
                k -= 1
                at = crossing(q, centres[k])
            }
            k += 1
            centres[k] = q
            bounds[k] = at
            bounds[k + 1] = .infinity
        }
        k = 0
        for q in 0..<count {
            while bounds[k + 1] < Double(q) { k += 1 }
            let p = centres[k]
            result[q] = Double((q - p) * (q - p)) + f[p]
        }
    }
}
