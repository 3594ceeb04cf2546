import CQREncode
import Foundation

/// A QR code of a short text (the pairing link), encoded by libqrencode at error-correction
/// level M, and drawn as SVG for the editor or as half-block characters for a terminal.
public struct QRCode: Sendable {
    /// Modules per side.
    public let size: Int
    /// Row-major, `true` for a dark module.
    let modules: [Bool]

    /// The code for `text`, or `nil` when it is too long for a QR code (or libqrencode fails).
    public init?(_ text: String) {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        size = width
        // libqrencode's lowest bit of each byte is the module's colour; the others say what it is.
        modules = (0..<width * width).map { data[$0] & 1 == 1 }
    }

    /// Whether the module at `row`, `column` is dark; outside the code (the quiet zone) is light.
    public func isDark(row: Int, column: Int) -> Bool {
        guard (0..<size).contains(row), (0..<size).contains(column) else { return false }
        return modules[row * size + column]
    }

    /// The code as an SVG image, one unit a module, with the four-module quiet zone scanners need.
    public func svg() -> String {
        let side = size + 8
        var path = ""
        for row in 0..<size {
            var column = 0
            while column < size {
                guard isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                var run = 1
                while isDark(row: row, column: column + run) { run += 1 }
                path += "M\(column + 4) \(row + 4)h\(run)v1h-\(run)z"
                column += run
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }

    /// The code for a terminal: two rows of modules per line in half blocks, with the
    /// four-module quiet zone the standard asks for. The colours are named (bright white blocks on black), so the code reads the
    /// same on a light terminal as on a dark one.
    public func terminalText() -> String {
        var lines: [String] = []
        for row in stride(from: -4, to: size + 4, by: 2) {
            var line = ""
            for column in -4..<(size + 4) {
                // A block is drawn light: the quiet zone and the light modules.
                let top = !isDark(row: row, column: column)
                let bottom = !isDark(row: row + 1, column: column)
                line += top && bottom ? "█" : top ? "▀" : bottom ? "▄" : " "
            }
            lines.append("\u{1B}[97;40m" + line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n")
    }
}
