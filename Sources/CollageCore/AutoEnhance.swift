import Foundation

/// A colour in CIELAB (D65): lightness 0–100 and the two opponent axes.
public struct LabColor: Hashable, Sendable {
    /// Lightness, 0 (black) to 100 (white).
    public var lightness: Double
    /// Green (negative) to magenta (positive).
    public var a: Double
    /// Blue (negative) to yellow (positive).
    public var b: Double

    /// A Lab colour.
    public init(lightness: Double, a: Double, b: Double) {
        self.lightness = lightness
        self.a = a
        self.b = b
    }

    /// The colour of an sRGB pixel (bytes 0–255), through linear light and XYZ under D65.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        let (r, g, b) = (Self.linear[Int(red)], Self.linear[Int(green)], Self.linear[Int(blue)])
        self.init(linearRed: r, green: g, blue: b)
    }

    /// The colour of a linear-light sRGB triple (0–1 each).
    public init(linearRed r: Double, green g: Double, blue b: Double) {
        let x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
        let y = Self.luminance(red: r, green: g, blue: b)
        let z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24_389 ? cbrt(t) : (24_389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x), f(y), f(z))
        self.init(lightness: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    /// The luminance (CIE Y) of a linear-light sRGB triple.
    static func luminance(red: Double, green: Double, blue: Double) -> Double {
        0.2126729 * red + 0.7151522 * green + 0.0721750 * blue
    }

    /// Chroma: the distance from the grey axis.
    public var chroma: Double { (a * a + b * b).squareRoot() }

    /// sRGB bytes to linear light.
    public static let linear: [Double] = (0..<256).map { value in
        let c = Double(value) / 255
        return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }

    /// The CIEDE2000 colour difference to `other`: about 1 is the smallest difference people
    /// notice side by side, 2–3 is noticeable at a glance, over 10 another colour. (Sharma, Wu
    /// and Dalal's formulation, with kL = kC = kH = 1.)
    public func difference(to other: LabColor) -> Double {
        let (l1, a1, b1) = (lightness, a, b)
        let (l2, a2, b2) = (other.lightness, other.a, other.b)
        let meanC = ((a1 * a1 + b1 * b1).squareRoot() + (a2 * a2 + b2 * b2).squareRoot()) / 2
        let c7 = pow(meanC, 7)
        let g = 0.5 * (1 - (c7 / (c7 + pow(25, 7))).squareRoot())
        let (ap1, ap2) = ((1 + g) * a1, (1 + g) * a2)
        let (cp1, cp2) = ((ap1 * ap1 + b1 * b1).squareRoot(), (ap2 * ap2 + b2 * b2).squareRoot())
        func hue(_ b: Double, _ a: Double) -> Double {
            guard a != 0 || b != 0 else { return 0 }
            let degrees = atan2(b, a) * 180 / .pi
            return degrees < 0 ? degrees + 360 : degrees
        }
        let (hp1, hp2) = (hue(b1, ap1), hue(b2, ap2))
        let deltaL = l2 - l1
        let deltaC = cp2 - cp1
        var deltaH = 0.0
        if cp1 * cp2 != 0 {
            deltaH = hp2 - hp1
            if deltaH > 180 { deltaH -= 360 } else if deltaH < -180 { deltaH += 360 }
        }
        let deltaBigH = 2 * (cp1 * cp2).squareRoot() * sin(deltaH * .pi / 360)
        let meanL = (l1 + l2) / 2
        let meanCp = (cp1 + cp2) / 2
        var meanH = hp1 + hp2
        if cp1 * cp2 != 0 {
            if abs(hp1 - hp2) <= 180 {
                meanH /= 2
            } else {
                meanH = hp1 + hp2 < 360 ? (hp1 + hp2 + 360) / 2 : (hp1 + hp2 - 360) / 2
            }
        }
        func rad(_ degrees: Double) -> Double { degrees * .pi / 180 }
        let t =
            1 - 0.17 * cos(rad(meanH - 30)) + 0.24 * cos(rad(2 * meanH)) + 0.32 * cos(rad(3 * meanH + 6)) - 0.20
            * cos(rad(4 * meanH - 63))
        let deltaTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let cp7 = pow(meanCp, 7)
        let rc = 2 * (cp7 / (cp7 + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / (20 + pow(meanL - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(rad(2 * deltaTheta)) * rc
        let (termL, termC, termH) = (deltaL / sl, deltaC / sc, deltaBigH / sh)
        return (termL * termL + termC * termC + termH * termH + rt * termC * termH).squareRoot()
    }
}

/// One-tap enhancement: the exposure and white balance a photo's own pixels ask for, as
/// ``Adjustments`` (so the person sees the sliders it set and can change them).
///
/// White balance: a cast is a gain on each channel in linear light, so it is measured as the balance
/// of red, green and blue among two witnesses, the brightest pixels (whites and highlights take
/// the light's colour) and the least colourful mid-tones (greys), and undone by warmth and tint
/// (``Adjustments/linearGains``) only as far as both witnesses agree: a scene's own colour (a red
/// cup) has greys and highlights that disagree, a cast leans both the same way. Exposure, read
/// once the balance is set: a photo whose highlights fall short of white and whose mid-tones are
/// dark too was taken too dark, and is lifted until its highlights are nearly white, by at
/// most a stop and a half, and no further than ordinary mid-tones.
public enum AutoEnhance {
    /// How much of a measured cast is undone. Not all of it: the eye, too, adapts only partly to
    /// a light's colour, and a scene whose own colour looks like a cast (a brown cat filling the
    /// frame) is then changed less.
    static let adaptation = 0.7
    /// The adjustments for a photo whose pixels are `pixels` (sRGB, `channels` bytes a pixel, 3
    /// or 4; a sample of some tens of thousands of pixels is plenty).
    public static func adjustments(forSRGB pixels: [UInt8], channels: Int = 3) -> Adjustments {
        var adjustments = Adjustments.asShot
        guard channels >= 3 else { return adjustments }
        var samples: [(lab: LabColor, linear: (Double, Double, Double))] = []
        samples.reserveCapacity(pixels.count / channels)
        for start in stride(from: 0, to: pixels.count - channels + 1, by: channels) {
            if channels == 4, pixels[start + 3] < 128 { continue }
            let (r, g, b) = (pixels[start], pixels[start + 1], pixels[start + 2])
            let linear = (LabColor.linear[Int(r)], LabColor.linear[Int(g)], LabColor.linear[Int(b)])
            samples.append((LabColor(linearRed: linear.0, green: linear.1, blue: linear.2), linear))
        }
        guard samples.count >= 64 else { return adjustments }

        // Lit, unclipped pixels, each as its balance: log₂ of red and of blue over green.
        let lit = samples.filter {
            (25...97).contains($0.lab.lightness) && max($0.linear.0, $0.linear.1, $0.linear.2) < 0.97
                && min($0.linear.0, $0.linear.1, $0.linear.2) > 0.002
        }
        guard lit.count >= 64 else { return exposed(adjustments, samples.map(\.linear)) }
        let balances = lit.map { (log2($0.linear.0 / $0.linear.1), log2($0.linear.2 / $0.linear.1)) }
        let brightest = lit.indices.sorted { lit[$0].lab.lightness > lit[$1].lab.lightness }
            .prefix(max(16, lit.count / 25))
        func mean(_ indices: ArraySlice<Int>) -> (Double, Double) {
            let count = Double(indices.count)
            return (
                indices.reduce(0) { $0 + balances[$1].0 } / count, indices.reduce(0) { $0 + balances[$1].1 } / count
            )
        }
        func agreed(_ first: Double, _ second: Double) -> Double {
            guard first * second > 0 else { return 0 }
            return first > 0 ? min(first, second) : max(first, second)
        }
        // Greys are the pixels nearest the cast's own balance, which is not known yet: a first
        // guess picks pixels whose colour may cancel the cast (skin under a blue light), so
        // the guess is corrected and the greys picked again, a few times.
        var cast = (0.0, 0.0)
        var highlights = (0.0, 0.0)
        var greys = (0.0, 0.0)
        for _ in 0..<4 {
            func distance(_ index: Int) -> Double {
                let (r, b) = (balances[index].0 - cast.0, balances[index].1 - cast.1)
                return r * r + b * b
            }
            greys = mean(lit.indices.sorted { distance($0) < distance($1) }.prefix(max(16, lit.count / 5)))
            highlights = mean(brightest.sorted { distance($0) < distance($1) }.prefix(max(8, brightest.count / 2)))
            cast = (agreed(highlights.0, greys.0), agreed(highlights.1, greys.1))
        }
        // A picture of one colour (an orange wall) has no greys to find: its "greys" are as
        // colourful as the rest, and are left as they are.
        let whole = mean(Array(lit.indices)[...])
        let variety = ((whole.0 - greys.0) * (whole.0 - greys.0) + (whole.1 - greys.1) * (whole.1 - greys.1))
            .squareRoot()
        let trust = min(1, variety / 0.25)
        let (redOverGreen, blueOverGreen) = (cast.0 * trust, cast.1 * trust)
        // The cast's gains, relative to green.
        let (warmth, tint) = Adjustments.balancing(
            gains: [pow(2, redOverGreen * Self.adaptation), 1, pow(2, blueOverGreen * Self.adaptation)])
        adjustments.warmth = warmth
        adjustments.tint = tint
        return exposed(adjustments, samples.map(\.linear))
    }

    /// `adjustments` with the exposure the photo asks for once its white balance is set: its
    /// highlights (the 99.9th percentile of luminance: a few pixels, so a specular glint does not
    /// count) lifted to nearly white, by at most a stop and a half, and its mid-tones (the
    /// median) no brighter than ordinary. A photo is never darkened: a bright one may be meant
    /// so, and dark highlights over ordinary mid-tones are the scene (a brown cat filling the
    /// frame), which the median keeps as it is.
    static func exposed(_ adjustments: Adjustments, _ linear: [(Double, Double, Double)]) -> Adjustments {
        let gains = adjustments.linearGains
        var luminances = linear.map {
            LabColor.luminance(red: $0.0 * gains[0], green: $0.1 * gains[1], blue: $0.2 * gains[2])
        }
        guard !luminances.isEmpty else { return adjustments }
        luminances.sort()
        let highlights = luminances[min(luminances.count - 1, Int(Double(luminances.count) * 0.999))]
        let median = luminances[luminances.count / 2]
        guard highlights > 0.005 else { return adjustments }
        let stops = min(1.5, log2(0.95 / highlights), log2(0.2 / max(median, 1e-4)))
        var exposed = adjustments
        exposed.exposure = (max(0, stops) * 50).rounded()
        return exposed
    }
}
