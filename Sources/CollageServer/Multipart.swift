import Foundation

/// One file part of a `multipart/form-data` upload, written out to its own temporary file.
package struct UploadedFile {
    /// The name the client gave, made safe to show and store.
    package let fileName: String
    /// Where the part's bytes were written.
    package let file: URL
}

/// Splits a `multipart/form-data` body (on disk) into its file parts.
package enum Multipart {
    /// The files in the body; other fields are ignored.
    /// - Throws: 400 naming the problem for a missing boundary or a truncated body.
    package static func files(in body: URL, contentType: String, into folder: URL) throws(HTTPError) -> [UploadedFile] {
        guard let boundary = boundary(contentType) else {
            throw HTTPError(.badRequest, "multipart upload without a boundary in its Content-Type")
        }
        let data: Data
        do {
            data = try Data(contentsOf: body, options: .alwaysMapped)
        } catch {
            throw HTTPError(.internalError, "the upload could not be read back")
        }
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var files: [UploadedFile] = []
        guard var position = data.range(of: delimiter)?.upperBound else {
            throw HTTPError(.badRequest, "the upload has no parts (boundary \(boundary) not found)")
        }
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if data[position..<min(position + 2, data.endIndex)] == Data("--".utf8) { break }
            guard let headersRange = data.range(of: headerEnd, in: position..<data.endIndex) else {
                throw HTTPError(.badRequest, "the upload is truncated: a part has no end of headers")
            }
            let headers = String(decoding: data[position..<headersRange.lowerBound], as: UTF8.self)
            let contentStart = headersRange.upperBound
            guard let next = data.range(of: Data("\r\n".utf8) + delimiter, in: contentStart..<data.endIndex) else {
                throw HTTPError(.badRequest, "the upload is truncated: a part has no closing boundary")
            }
            if let name = fileName(headers) {
                let safeName = Self.safeName(name)
                let target = folder.appendingPathComponent(UUID().uuidString)
                do {
                    try data[contentStart..<next.lowerBound].write(to: target)
                } catch {
                    throw HTTPError(.internalError, "the upload could not be stored")
                }
                files.append(UploadedFile(fileName: safeName, file: target))
            }
            position = next.upperBound
        }
        return files
    }

    static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 200 ? nil : value
            }
        }
        return nil
    }

    /// The last path component of a client's file name, as a name this file system takes: not
    /// `.` or `..`, and at most 200 bytes of UTF-8 (a file name may be 255), cut between characters.
    static func safeName(_ name: String) -> String {
        // Split by hand: a URL would resolve "." and ".." against this process's folder.
        var safe = String(name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "")
        safe.removeAll { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }
        if safe == "." || safe == ".." { safe = "" }
        while safe.utf8.count > 200 { safe.removeFirst() }
        return safe.isEmpty ? "photo" : safe
    }

    private static func fileName(_ headers: String) -> String? {
        for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            guard let range = line.range(of: "filename=\"") else { return nil }
            let rest = line[range.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            return String(rest[..<end])
        }
        return nil
    }
}
