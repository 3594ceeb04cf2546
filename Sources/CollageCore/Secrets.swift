import Foundation

extension Duration {
    /// The duration in seconds, with its fraction: for rates and timings reported in numbers.
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Random secrets and their comparison, for the pairing codes and device credentials that let a
/// phone on the home network into the editor.
package enum Secrets {
    /// `bytes` bytes from the system's cryptographic generator (getrandom), as lowercase hex.
    package static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether two texts are equal, in a time that depends on their lengths only: where a guess
    /// first differs from the secret never shows in how long the answer took.
    package static func equal(_ left: String, _ right: String) -> Bool {
        let left = Array(left.utf8)
        let right = Array(right.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
