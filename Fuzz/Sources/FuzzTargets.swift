import CSQLite
import CollageCore
import CollageKit
import CollageLibrary
import CollageLicence
import CollageRender
import CollageServer
import Foundation
import Stickers

/// Every parser that reads bytes from outside: what a hostile page, file or library can hand
/// Collage. Each target feeds the bytes to the code a command or the server runs on them and
/// goes on with what it parsed, so a value that parses but breaks later is found too. A target
/// may answer with an error, never trap, leak or read out of bounds.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// A collage document (`collage render`, the API's PUT).
    case document
    /// A list of edits (`collage edit`, the API's edits), applied to a collage.
    case edits
    /// A licence key as pasted.
    case licence
    /// A `multipart/form-data` upload body; its first line is the boundary.
    case multipart
    /// An HTTP request (request line, headers, body) admitted and answered by the editor's server.
    case request
    /// An ICC profile embedded in a photo.
    case icc
    /// An entry of the subject-focus cache.
    case focus
    /// A library cell: its first byte picks the table and column, its second how the rest is stored.
    case cells
    /// A photo file (JPEG, or whatever the bytes are) in a collage of two, whose cells are decoded
    /// ahead: a JPEG's crop goes through the renderer's own libjpeg reader.
    case photo

    /// Feeds `data` to the target.
    func run(_ data: Data) {
        switch self {
        case .document: Self.document(data)
        case .edits: Self.edits(data)
        case .licence: _ = try? Licence(key: String(decoding: data, as: UTF8.self))
        case .multipart: Self.multipart(data)
        case .request: Self.request(data)
        case .icc: Self.icc(data)
        case .focus: Self.focus(data)
        case .cells: Self.cells(data)
        case .photo: Self.photo(data)
        }
    }

    private static func document(_ data: Data) {
        guard let collage = try? CollageDocument.decode(data) else { return }
        let issues = CollageDocument.issues(in: collage)
        _ = try? CollageDocument.decode(CollageDocument.encode(collage))
        // What a valid document goes on to: its template's frames and the hit tests of the editor.
        guard issues.isEmpty else { return }
        _ = collage.template.map { $0.frames(for: collage) }
        _ = collage.items.map { collage.topmostItem(at: $0.frame.center) }
    }

    /// A collage of every kind of item, for edits to work on.
    private static let sample: Collage = {
        var collage = Collage(
            id: "c", title: "Fuzz", created: Date(timeIntervalSince1970: 0), canvas: Size(width: 1200, height: 900))
        let edits: [Edit] = [
            .applyTemplate(id: "grid2x2"), .addItem(id: "p", content: .photo("photo"), frame: nil),
            .addItem(id: "s", content: .sticker("sticker"), frame: Rect(x: 100, y: 100, width: 200, height: 200)),
            .addItem(
                id: "t", content: .text(TextBlock(text: "Hello")), frame: Rect(x: 10, y: 10, width: 300, height: 80)),
        ]
        for edit in edits { collage = (try? collage.applying(edit)) ?? collage }
        return collage
    }()

    private static func edits(_ data: Data) {
        guard let edits = try? EditCodec.decode(data), let edited = try? sample.applying(edits) else { return }
        _ = CollageDocument.issues(in: edited)
        _ = CollageDocument.encode(edited)
    }

    /// A folder of this process's own for the targets that write files.
    private static let scratch: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "collage-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    private static func multipart(_ data: Data) {
        let newline = data.firstIndex(of: 10) ?? data.endIndex
        let boundary = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
        let body = scratch.appendingPathComponent("body")
        let parts = scratch.appendingPathComponent("parts", isDirectory: true)
        try? FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parts) }
        guard (try? data[min(newline + 1, data.endIndex)...].write(to: body)) != nil else { return }
        let files = try? Multipart.files(
            in: body, contentType: "multipart/form-data; boundary=\(boundary)", into: parts)
        for file in files ?? [] { try? FileManager.default.removeItem(at: file.file) }
    }

    /// The editor's server over a library of its own, new for each input (so a finding replays
    /// alone), as a hostile page on the machine reaches it.
    private static func freshApp() -> (CollageApp, Library)? {
        let root = scratch.appendingPathComponent("request-library")
        try? FileManager.default.removeItem(at: root)
        guard let library = try? Library(root: root) else { return nil }
        let app = CollageApp(
            workspace: Workspace(
                library: library, model: nil, licences: LicenceStore(folder: scratch.appendingPathComponent("licence"))),
            allowedHosts: ["127.0.0.1:8080"], token: "fuzz-token",
            homeNetwork: PairingDesk(
                settings: HomeNetworkSettings(address: "192.168.1.20", port: 8443), port: 8443, fingerprint: "AB"))
        return (app, library)
    }

    /// Removes the files the targets wrote (called when the process ends).
    static func removeScratch() { try? FileManager.default.removeItem(at: scratch) }

    /// "METHOD /target?query\nname: value\n…\n\nbody". An `x-fuzz-from: ADDRESS` header sends it
    /// from another device on the home network (a cookie, a pairing code and the rest of it then
    /// meet the pairing gate).
    private static func request(_ data: Data) {
        guard let (app, library) = freshApp() else { return }
        defer { library.close() }
        let separator = data.range(of: Data("\n\n".utf8))
        let head = String(decoding: data[data.startIndex..<(separator?.lowerBound ?? data.endIndex)], as: UTF8.self)
        let body = separator.map { Data(data[$0.upperBound...]) } ?? Data()
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.isEmpty else { return }
        let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 1)
        guard requestLine.count == 2 else { return }
        let target = String(requestLine[1])
        let components = URLComponents(string: target)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = ["host": "127.0.0.1:8080", "content-length": "\(body.count)"]
        for line in lines {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces)
        }
        var request = HTTPRequest(
            method: String(requestLine[0]), path: components?.percentEncodedPath.removingPercentEncoding ?? target,
            query: query, headers: headers, body: body)
        if let address = headers["x-fuzz-from"] {
            request.clientAddress = address
            request.arrivedOnHomeNetwork = true
            request.isSecure = true
        }
        let response = app.admit(request) ?? app.handle(request)
        if let file = response.bodyFile, file.isTemporary { try? FileManager.default.removeItem(at: file.url) }
    }

    private static func icc(_ data: Data) {
        guard let profile = ICCProfile([UInt8](data)) else { return }
        _ = (profile.colorSpace, profile.connectionSpace, profile.isSRGB)
    }

    private static func focus(_ data: Data) {
        let cache = FocusCache(folder: scratch.appendingPathComponent("focus", isDirectory: true))
        let photo = Data("photo".utf8)
        cache.store(nil, ofPhoto: photo, model: "model")
        let entries =
            (try? FileManager.default.contentsOfDirectory(at: cache.folder, includingPropertiesForKeys: nil)) ?? []
        for entry in entries { try? data.write(to: entry) }
        _ = cache.focus(ofPhoto: photo, model: "model")
    }

    private static func photo(_ data: Data) {
        let folder = scratch.appendingPathComponent("photo", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard (try? data.write(to: folder.appendingPathComponent("fuzz.jpg"))) != nil else { return }
        var collage = Collage(id: "f", title: "f", created: Date(), canvas: Size(width: 120, height: 60))
        for (index, frame) in [Rect(x: 0, y: 0, width: 60, height: 60), Rect(x: 60, y: 10, width: 60, height: 40)]
            .enumerated()
        {
            guard let next = try? collage.applying(.addItem(id: "i\(index)", content: .photo("fuzz.jpg"), frame: frame))
            else { return }
            collage = next
        }
        // The input's length picks the crop and the size, so crops start inside the photo and
        // every shrink-on-load scale is reached, without spending bytes of the file on them.
        let zoom = [1, 1.7, 3.1][data.count % 3]
        let focus = Point(x: Double(data.count % 7) / 6, y: Double(data.count % 5) / 4)
        collage = (try? collage.applying(.setCrop(id: "i1", crop: Crop(focus: focus, zoom: zoom)))) ?? collage
        let side = [96, 320, 900][data.count / 3 % 3]
        _ = try? CollageRenderer().render(
            collage, photos: DirectoryPhotoSource(baseDirectory: folder),
            options: RenderOptions(size: .longSide(side), format: .png), to: folder.appendingPathComponent("out.png"))
    }

    /// A library with a photo, a sticker and a collage with history, copied afresh for each input.
    private static let cellTemplate: URL? = {
        let root = scratch.appendingPathComponent("cells-template")
        guard let library = try? Library(root: root) else { return nil }
        defer { library.close() }
        let photo = scratch.appendingPathComponent("photo.png")
        guard (try? Bitmap(width: 64, height: 48, color: [200, 60, 40]).write(to: photo, format: .png)) != nil,
            let record = try? library.importPhoto(from: photo).photo,
            let sticker = try? library.saveSticker(
                id: "sticker", photoID: record.id, selection: "all", outlineWidth: 2, shadow: false,
                image: Bitmap(width: 16, height: 16, color: [1, 2, 3, 255])),
            let made = try? library.createCollage(
                title: "Cells", templateID: "grid2x2", aspect: .square, photoIDs: [record.id])
        else { return nil }
        _ = try? library.apply([.addItem(id: "s", content: .sticker(sticker.id), frame: nil)], to: made.collage.id)
        _ = try? library.apply([.rename(title: "Again")], to: made.collage.id)
        return root
    }()

    /// The tables and columns a cell input can land in.
    private static let columns: [(table: String, column: String)] = [
        ("photos", "width"), ("photos", "height"), ("photos", "byte_size"), ("photos", "extension"), ("photos", "id"),
        ("photos", "imported_at"), ("collages", "version"), ("collages", "canvas_width"), ("collages", "title"),
        ("collages", "arrangement"), ("collages", "background"), ("collages", "spacing"), ("items", "z"),
        ("items", "x"), ("items", "width"), ("items", "rotation"), ("items", "crop_zoom"), ("items", "slot"),
        ("items", "text"), ("items", "kind"), ("items", "ref"), ("items", "shadow"), ("stickers", "width"),
        ("stickers", "photo_id"), ("collage_history", "position"), ("collage_history", "document"),
        ("photo_subjects", "focus_x"), ("settings", "value"),
    ]

    private static func cells(_ data: Data) {
        guard data.count >= 2, let template = cellTemplate else { return }
        let root = scratch.appendingPathComponent("cells")
        try? FileManager.default.removeItem(at: root)
        guard (try? FileManager.default.copyItem(at: template, to: root)) != nil else { return }
        let (table, column) = columns[Int(data[data.startIndex]) % columns.count]
        let rest = Data(data.dropFirst(2))
        var handle: OpaquePointer?
        guard sqlite3_open(root.appendingPathComponent(Library.databaseName).path, &handle) == SQLITE_OK else { return }
        var statement: OpaquePointer?
        if sqlite3_prepare_v2(handle, "UPDATE \"\(table)\" SET \"\(column)\" = ?", -1, &statement, nil) == SQLITE_OK {
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            switch data[data.startIndex + 1] % 5 {
            case 0:
                _ = rest.withUnsafeBytes { sqlite3_bind_text(statement, 1, $0.baseAddress, Int32($0.count), transient) }
            case 1:
                _ = rest.withUnsafeBytes { sqlite3_bind_blob(statement, 1, $0.baseAddress, Int32($0.count), transient) }
            case 2:
                sqlite3_bind_int64(statement, 1, Int64(bitPattern: rest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }))
            case 3:
                sqlite3_bind_double(
                    statement, 1, Double(bitPattern: rest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }))
            default: sqlite3_bind_null(statement, 1)
            }
            _ = sqlite3_step(statement)
        }
        sqlite3_finalize(statement)
        sqlite3_close(handle)
        guard let library = try? Library(root: root) else { return }
        defer { library.close() }
        let collages = (try? library.collages()) ?? []
        for summary in collages {
            _ = try? library.collage(summary.id)
            _ = try? library.historyState(of: summary.id)
            _ = try? library.undo(summary.id)
            _ = try? library.apply([.rename(title: "Edited")], to: summary.id)
        }
        _ = try? library.photos()
        _ = try? library.stickers()
        _ = try? library.cleanUp(dryRun: true)
        _ = try? library.checkHealth(repair: true)
        _ = try? library.collages()
    }
}

/// libFuzzer's entry point: the target is named by `COLLAGE_FUZZ_TARGET`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let target = FuzzTarget.chosen else { fatalError("set COLLAGE_FUZZ_TARGET to one of \(FuzzTarget.names)") }
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    target.run(data)
    return 0
}

extension FuzzTarget {
    /// The target `COLLAGE_FUZZ_TARGET` names.
    static let chosen: FuzzTarget? = ProcessInfo.processInfo.environment["COLLAGE_FUZZ_TARGET"].flatMap(FuzzTarget.init)

    /// Every target's name, for messages.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
