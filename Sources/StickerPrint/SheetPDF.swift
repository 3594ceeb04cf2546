import CZlib
import CollageCore
import CollageRender
import Foundation
import Synchronization

/// A sheet as a PDF a print shop's cutter reads: each page holds the stickers' pictures and,
/// above them, their cut lines as vector strokes in a separation (spot) colour named
/// `CutContour`, set to overprint, with 100 % magenta as its stand-in where no cutter reads it.
///
/// Written here rather than through cairo's PDF surface, which (cairo 1.16, Debian 12) draws in
/// DeviceRGB only and has no way to name a separation colour; cairo draws the previews.
public enum SheetPDF {
    /// Points (1/72 in) in a millimetre.
    static let pointsPerMillimetre = 72 / PrintLength.millimetresPerInch

    /// The PDF's bytes.
    /// - Throws: ``PrintError/unwritable(_:)`` when a picture cannot be compressed.
    public static func data(of layout: SheetLayout, title: String) throws(PrintError) -> Data {
        var output = Data()
        try emit(layout, title: title) { chunk throws(PrintError) in output.append(chunk) }
        return output
    }

    /// Writes the PDF to `file` as it is made, one object at a time: however many stickers a
    /// sheet holds, no more than one picture's pixels and the page text are in memory at once.
    /// The file appears whole or not at all.
    /// - Throws: ``PrintError/unwritable(_:)`` when the file cannot be written.
    public static func write(_ layout: SheetLayout, title: String, to file: URL) throws(PrintError) {
        let partial = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: partial)
        else {
            throw .unwritable("\(file.path): the PDF could not be created")
        }
        do throws(PrintError) {
            defer { try? handle.close() }
            try emit(layout, title: title) { chunk throws(PrintError) in
                do {
                    try handle.write(contentsOf: chunk)
                } catch {
                    throw .unwritable("\(file.path): the PDF could not be written (\(error.localizedDescription))")
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: partial)
            throw error
        }
        guard rename(partial.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw .unwritable("\(file.path): the PDF could not be put in place")
        }
    }

    /// Makes the PDF object by object, handing each to `sink` as soon as it is made; object
    /// numbers are reserved ahead so that earlier objects can refer to later ones.
    private static func emit(
        _ layout: SheetLayout, title: String, to sink: (Data) throws(PrintError) -> Void
    ) throws(PrintError) {
        var offsets: [Int?] = []
        var written = 0
        func put(_ bytes: Data) throws(PrintError) {
            try sink(bytes)
            written += bytes.count
        }
        func reserve() -> Int {
            offsets.append(nil)
            return offsets.count
        }
        func object(_ number: Int, _ body: Data) throws(PrintError) {
            offsets[number - 1] = written
            try put(Data("\(number) 0 obj\n".utf8))
            try put(body)
            try put(Data("\nendobj\n".utf8))
        }
        try put(Data("%PDF-1.6\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8))
        let catalog = reserve()
        let pages = reserve()
        let info = reserve()
        let cutColour = reserve()
        let overprint = reserve()
        try object(catalog, Data("<< /Type /Catalog /Pages \(pages) 0 R >>".utf8))
        try object(
            info,
            Data(
                ("<< /Title \(pdfText(title)) /Creator (Collage) /Producer (Collage) "
                    + "/Keywords (CutContour, \(layout.options.cut.rawValue) cut) >>").utf8))
        try object(
            cutColour,
            Data(
                ("[/Separation /CutContour /DeviceCMYK << /FunctionType 2 /Domain [0 1] /C0 [0 0 0 0] "
                    + "/C1 [0 1 0 0] /N 1 >>]").utf8))
        try object(overprint, Data("<< /Type /ExtGState /OP true /op true /OPM 1 >>".utf8))

        // Each sticker's pictures are split and compressed on every core (compressing is most of
        // a sheet's writing), then written in order.
        let stickers = layout.stickers
        let streams = Mutex([Result<CompressedPicture, PrintError>?](repeating: nil, count: stickers.count))
        DispatchQueue.concurrentPerform(iterations: stickers.count) { index in
            let result = Result { () throws(PrintError) in try compressedPicture(of: stickers[index].image) }
            streams.withLock { $0[index] = result }
        }
        var pictures: [Int] = []
        for slot in streams.withLock({ $0 }) {
            guard let slot else { throw .unwritable("a sheet picture was not compressed") }
            let (width, height, alpha, colour) = try slot.get()
            let image = "/Type /XObject /Subtype /Image /Width \(width) /Height \(height) /BitsPerComponent 8"
            let mask = reserve()
            try object(mask, stream("\(image) /ColorSpace /DeviceGray", compressed: alpha))
            let picture = reserve()
            try object(picture, stream("\(image) /ColorSpace /DeviceRGB /SMask \(mask) 0 R", compressed: colour))
            pictures.append(picture)
        }

        let options = layout.options
        let (pageWidth, pageHeight) = (options.pageWidth, options.pageHeight)
        func x(_ millimetres: Double) -> String { number(millimetres * pointsPerMillimetre) }
        func y(_ millimetres: Double) -> String { number((pageHeight - millimetres) * pointsPerMillimetre) }
        var pageObjects: [Int] = []
        for page in 0..<layout.pageCount {
            let onPage = layout.placements.filter { $0.page == page }
            var content = ""
            for placement in onPage {
                // The picture's unit square: (0, 0) is its bottom-left corner, (1, 0) its
                // bottom-right, (0, 1) its top-left, each mapped through the placement.
                let (width, height) = layout.stickers[placement.sticker].sizeInMillimetres
                let origin = layout.pagePoint(Point(x: 0, y: height), of: placement)
                let right = layout.pagePoint(Point(x: width, y: height), of: placement)
                let up = layout.pagePoint(Point(x: 0, y: 0), of: placement)
                let k = pointsPerMillimetre
                content +=
                    "q \(number((right.x - origin.x) * k)) \(number((origin.y - right.y) * k)) "
                    + "\(number((up.x - origin.x) * k)) \(number((origin.y - up.y) * k)) \(x(origin.x)) \(y(origin.y)) cm "
                    + "/Im\(placement.sticker) Do Q\n"
            }
            if options.registrationMarks {
                content += "0 0 0 1 k\n"
                for (left, top, width, height) in RegistrationMarks.rectangles(
                    pageWidth: pageWidth, pageHeight: pageHeight)
                {
                    content += "\(x(left)) \(y(top + height)) \(x(width)) \(x(height)) re f\n"
                }
            }
            content += "/Overprint gs /CutContour CS 1 SCN 0.25 w 1 j\n"
            for placement in onPage {
                let path = layout.pagePath(of: placement)
                content += "\(x(path.start.x)) \(y(path.start.y)) m\n"
                for segment in path.segments {
                    switch segment {
                    case .line(let end):
                        content += "\(x(end.x)) \(y(end.y)) l\n"
                    case .curve(let first, let second, let end):
                        content +=
                            "\(x(first.x)) \(y(first.y)) \(x(second.x)) \(y(second.y)) \(x(end.x)) \(y(end.y)) c\n"
                    }
                }
                content += "h S\n"
            }
            let contents = reserve()
            try object(contents, try stream("", deflating: Array(content.utf8)))
            let pictureNames = Set(onPage.map(\.sticker)).sorted().map { "/Im\($0) \(pictures[$0]) 0 R" }
            let pageObject = reserve()
            try object(
                pageObject,
                Data(
                    ("<< /Type /Page /Parent \(pages) 0 R /MediaBox [0 0 \(x(pageWidth)) \(x(pageHeight))] "
                        + "/TrimBox [0 0 \(x(pageWidth)) \(x(pageHeight))] /Contents \(contents) 0 R "
                        + "/Resources << /XObject << \(pictureNames.joined(separator: " ")) >> "
                        + "/ColorSpace << /CutContour \(cutColour) 0 R >> /ExtGState << /Overprint \(overprint) 0 R >> >> >>")
                        .utf8))
            pageObjects.append(pageObject)
        }
        try object(
            pages,
            Data(
                "<< /Type /Pages /Kids [\(pageObjects.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pageObjects.count) >>"
                    .utf8))

        let table = written
        var xref = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { xref += String(format: "%010d 00000 n \n", offset ?? 0) }
        xref +=
            "trailer\n<< /Size \(offsets.count + 1) /Root \(catalog) 0 R /Info \(info) 0 R >>\nstartxref\n\(table)\n%%EOF\n"
        try put(Data(xref.utf8))
    }

    /// A sticker's picture as the PDF holds it: its size, then its alpha and its colour, each
    /// Flate-compressed.
    private typealias CompressedPicture = (width: Int, height: Int, alpha: [UInt8], colour: [UInt8])

    private static func compressedPicture(of image: Bitmap) throws(PrintError) -> CompressedPicture {
        let count = image.width * image.height
        var colour = [UInt8](repeating: 0, count: count * 3)
        var alpha = [UInt8](repeating: 0, count: count)
        image.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<count {
                colour[index * 3] = pixels[index * 4]
                colour[index * 3 + 1] = pixels[index * 4 + 1]
                colour[index * 3 + 2] = pixels[index * 4 + 2]
                alpha[index] = pixels[index * 4 + 3]
            }
        }
        return (image.width, image.height, try deflated(alpha), try deflated(colour))
    }

    /// A stream object whose bytes are Flate-compressed.
    private static func stream(_ dictionary: String, deflating bytes: [UInt8]) throws(PrintError) -> Data {
        stream(dictionary, compressed: try deflated(bytes))
    }

    /// A stream object of bytes already Flate-compressed.
    private static func stream(_ dictionary: String, compressed: [UInt8]) -> Data {
        var data = Data("<< \(dictionary) /Filter /FlateDecode /Length \(compressed.count) >>\nstream\n".utf8)
        data.append(contentsOf: compressed)
        data.append(Data("\nendstream".utf8))
        return data
    }

    private static func deflated(_ bytes: [UInt8]) throws(PrintError) -> [UInt8] {
        var size = compressBound(uLong(bytes.count))
        var compressed = [UInt8](repeating: 0, count: Int(size))
        let status = compressed.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(target.baseAddress, &size, source.baseAddress, uLong(bytes.count), 6)
            }
        }
        guard status == Z_OK else { throw .unwritable("a sheet picture could not be compressed (zlib \(status))") }
        return Array(compressed.prefix(Int(size)))
    }

    /// A number as PDF writes it: at most three decimals, no exponent.
    static func number(_ value: Double) -> String {
        let text = String(format: "%.3f", value)
        var trimmed = text
        while trimmed.contains("."), trimmed.hasSuffix("0") { trimmed.removeLast() }
        if trimmed.hasSuffix(".") { trimmed.removeLast() }
        return trimmed == "-0" ? "0" : trimmed
    }

    /// A text string: UTF-16 with its byte-order mark, in hex, so any title is safe.
    static func pdfText(_ text: String) -> String {
        "<FEFF" + text.utf16.map { String(format: "%04X", $0) }.joined() + ">"
    }
}
