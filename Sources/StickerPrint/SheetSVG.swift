import Foundation

/// A sheet page's cut lines as SVG for a cutting machine's software, the page's size in
/// millimetres, with the registration marks when the sheet has them (printed on the page too).
public enum SheetSVG {
    /// Page `page` of `layout` as an SVG document.
    public static func page(_ page: Int, of layout: SheetLayout, title: String) -> String {
        let options = layout.options
        let (width, height) = (PrintLength.format(options.pageWidth), PrintLength.format(options.pageHeight))
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)mm\" height=\"\(height)mm\" "
                + "viewBox=\"0 0 \(width) \(height)\">",
            "  <title>\(escaped(title)), page \(page + 1) of \(layout.pageCount): \(options.cut.rawValue) cut</title>",
        ]
        if options.registrationMarks {
            lines.append("  <g id=\"registration-marks\" fill=\"#000000\">")
            for (x, y, markWidth, markHeight) in RegistrationMarks.rectangles(
                pageWidth: options.pageWidth, pageHeight: options.pageHeight)
            {
                lines.append(
                    String(
                        format: "    <rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\"/>", x, y, markWidth,
                        markHeight))
            }
            lines.append("  </g>")
        }
        lines.append("  <g id=\"CutContour\" fill=\"none\" stroke=\"#ec008c\" stroke-width=\"0.25\">")
        for placement in layout.placements where placement.page == page {
            lines.append("    <path d=\"\(layout.pagePath(of: placement).svgData())\"/>")
        }
        lines += ["  </g>", "</svg>", ""]
        return lines.joined(separator: "\n")
    }

    /// `text` with XML's five special characters escaped, for element text and attributes.
    public static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
