import CollageCore
import CollageKit
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

@testable import CollageLibrary
@testable import CollageServer

/// What the API answers, asked of the app in process (``AppClient``); what needs a real
/// connection (Host and body-size rules as sent on the wire, clients that vanish, many clients at
/// once) is asked of a live server.
@Suite("Editor API")
struct APITests {
    @Test func templatesPresetsSessionAndOpenAPI() throws {
        let live = try AppClient()
        let templates = try live.send("GET", "/api/templates")
        #expect(templates.status == 200 && templates.json.count == Template.catalog.count)
        #expect(templates.json[0]["unitSlots"].count == 4)
        #expect(try live.send("GET", "/api/canvas-presets").json.count == CanvasPreset.all.count)
        let session = try live.send("GET", "/api/session").json
        #expect(session["token"].string == live.token)
        // The editor's keys of drawn items start with it, so a redrawn look is fetched again.
        #expect(session["drawingGeneration"].string == StickerEffects.drawingGeneration)
        let openAPI = try live.send("GET", "/api/openapi.json")
        #expect(openAPI.json["openapi"].string == "3.0.3")
        // Every route is documented, and every documented path answers (not 404).
        let paths = openAPI.json["paths"]
        for route in CollageApp.router.routes {
            #expect(paths[route.path][route.method.lowercased()]["operationId"].string == route.operationID)
        }
        #expect(paths.count == Set(CollageApp.router.routes.map(\.path)).count)
    }

    @Test func collageLifecycle() throws {
        let live = try AppClient()
        let upload = try live.upload([
            ("red.jpg", try live.photoData([220, 20, 20])), ("green.jpg", try live.photoData([20, 200, 20])),
        ])
        #expect(upload.status == 201, "\(upload.text)")
        let ids = (0..<2).compactMap { upload.json["photos"][$0]["id"].string }
        #expect(ids.count == 2)

        let created = try live.json(
            "POST", "/api/collages",
            #"{"title": "Trip", "template": "sideBySide", "aspect": "16:9", "photos": ["\#(ids[0])", "\#(ids[1])"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created.json["collage"]["id"].string)
        #expect(created.json["version"].number == 1)
        #expect(created.json["media"][ids[0]]["width"].number == 320)

        let list = try live.send("GET", "/api/collages")
        #expect(list.json[0]["id"].string == id && list.json[0]["items"].number == 2)

        let edited = try live.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 1, "edits": [{"op": "rotateItem", "id": "i1", "degrees": 15}]}"#)
        #expect(edited.status == 200 && edited.json["version"].number == 2)
        #expect(edited.json["collage"]["items"][0]["rotation"].number == 15)

        // A stale version is refused with the current document, so the page can catch up.
        let stale = try live.json(
            "POST", "/api/collages/\(id)/edits", #"{"version": 1, "edits": [{"op": "rename", "title": "x"}]}"#)
        #expect(stale.status == 409)
        #expect(stale.json["error"]["current"]["version"].number == 2)
        #expect(stale.json["error"]["current"]["collage"]["title"].string == "Trip")

        let refused = try live.json(
            "POST", "/api/collages/\(id)/edits", #"{"version": 2, "edits": [{"op": "removeItem", "id": "nope"}]}"#)
        #expect(refused.status == 422 && refused.json["error"]["message"].string?.contains("nope") == true)
        // A slot the layout does not have is named, with the slots it does have.
        let noSlot = try live.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": 2, "edits": [{"op": "placeInSlot", "id": "i1", "slot": 5}]}"#)
        #expect(noSlot.status == 422)
        #expect(
            noSlot.json["error"]["message"].string?.contains("no slot 5 in this layout: its slots are 0 to 1") == true)

        let renamed = try live.json("PATCH", "/api/collages/\(id)", #"{"title": "Renamed"}"#)
        #expect(renamed.json["collage"]["title"].string == "Renamed" && renamed.json["version"].number == 3)

        // Undo sends back an earlier document.
        let earlier = try #require(created.json["collage"].value)
        let replaced = try live.json(
            "PUT", "/api/collages/\(id)", #"{"version": 3, "collage": \#(earlier.serialized(pretty: false))}"#)
        #expect(replaced.status == 200 && replaced.json["collage"]["title"].string == "Trip")
        #expect(replaced.json["collage"]["items"][0]["rotation"].number == 0 && replaced.json["version"].number == 4)

        let copy = try live.send("POST", "/api/collages/\(id)/duplicate")
        #expect(copy.status == 201 && copy.json["collage"]["title"].string == "Trip copy")

        let thumbnail = try live.send("GET", "/api/collages/\(id)/thumbnail")
        #expect(thumbnail.status == 200 && thumbnail.headers["content-type"] == "image/jpeg")
        let etag = try #require(thumbnail.headers["etag"])
        #expect(try live.send("GET", "/api/collages/\(id)/thumbnail", headers: ["If-None-Match": etag]).status == 304)
        // A thumbnail is kept for the version the library shows; the earlier versions' go as
        // soon as a newer one is made (they piled up, one per edit), and all go with the collage.
        let thumbnails = live.library.derivedFolder.appendingPathComponent("collage-thumbnails")
        let kept = { (try? FileManager.default.contentsOfDirectory(atPath: thumbnails.path)) ?? [] }
        #expect(kept().filter { $0.hasPrefix("\(id)-v4-") }.count == 1, "\(kept())")
        _ = try live.json("PATCH", "/api/collages/\(id)", #"{"title": "Holiday"}"#)
        _ = try live.json("PATCH", "/api/collages/\(id)", #"{"title": "Trip"}"#)
        #expect(try live.send("GET", "/api/collages/\(id)/thumbnail").status == 200)
        #expect(kept().filter { $0.hasPrefix("\(id)-") }.map { $0.prefix(id.count + 4) } == ["\(id)-v6-"], "\(kept())")

        let export = try live.send("GET", "/api/collages/\(id)/export?format=png&size=640")
        #expect(export.status == 200 && export.headers["content-type"] == "image/png")
        #expect(export.headers["content-disposition"] == "attachment; filename=\"Trip.png\"")
        #expect(export.headers["x-image-width"] == "640" && export.headers["x-image-height"] == "360")
        #expect(try live.send("GET", "/api/collages/\(id)/export?format=gif").status == 422)

        #expect(try live.send("DELETE", "/api/collages/\(id)").status == 204)
        #expect(try live.send("GET", "/api/collages/\(id)").status == 404)
        #expect(kept().filter { $0.hasPrefix("\(id)-") }.isEmpty, "\(kept())")
    }

    /// A see-through PNG's thumbnail and preview are WebPs with alpha, at URLs of their own: the
    /// images are cached as immutable, and the white-backed JPEG an earlier version served at
    /// the plain URL would have stayed in a browser for a year. A JPEG's stay JPEGs there.
    @Test func aSeeThroughPhotosImagesAreWebPAtURLsOfTheirOwn() throws {
        let live = try AppClient()
        let folder = try TemporaryFolder("api-webp")
        let file = folder.file("clear.png")
        try Bitmap(width: 320, height: 240, color: [30, 160, 90, 0]).write(to: file, format: .png)
        let upload = try live.upload([
            ("clear.png", try Data(contentsOf: file)), ("camera.jpg", try live.photoData([200, 120, 20])),
        ])
        #expect(upload.status == 201, "\(upload.text)")
        let png = upload.json["photos"][0], jpeg = upload.json["photos"][1]
        let thumbnail = try #require(png["thumbnail"].string)
        #expect(
            thumbnail.hasSuffix("/thumbnail?format=webp") && png["preview"].string?.hasSuffix("?format=webp") == true)
        let image = try live.send("GET", thumbnail)
        #expect(image.status == 200 && image.headers["content-type"] == "image/webp")
        #expect(image.body.prefix(4) == Data("RIFF".utf8))
        #expect(jpeg["thumbnail"].string?.hasSuffix("/thumbnail") == true)
        let photo = try live.send("GET", try #require(jpeg["thumbnail"].string))
        #expect(photo.headers["content-type"] == "image/jpeg")
    }

    @Test func aNewCollageWithoutATitleIsNamedAfterTheDay() throws {
        let live = try AppClient()
        let before = NewCollageRequest.defaultTitle()
        let created = try live.json("POST", "/api/collages", #"{"template": "grid2x2"}"#)
        #expect(created.status == 201, "\(created.text)")
        let title = try #require(created.json["collage"]["title"].string)
        #expect([before, NewCollageRequest.defaultTitle()].contains(title) && title != "Untitled")
        // The day's second and third collages are numbered: three of one name could not be told apart.
        let blank = try live.json("POST", "/api/collages", #"{"title": "   "}"#)
        #expect(blank.json["collage"]["title"].string == "\(title) (2)")
        let third = try live.json("POST", "/api/collages", #"{}"#)
        #expect(third.json["collage"]["title"].string == "\(title) (3)")
        #expect(try live.json("POST", "/api/collages", #"{"title": "Trip"}"#).json["collage"]["title"].string == "Trip")
        // The day as people write it, in any time zone.
        let day = Date(timeIntervalSince1970: 1_796_299_200)  // 2026-12-03 12:00 UTC
        #expect(
            NewCollageRequest.defaultTitle(on: day, timeZone: TimeZone(identifier: "UTC") ?? .current)
                == "3 December 2026")
    }

    @Test func anUploadAnswersBeforeThePreviewsWhichAreMadeSoonAfter() throws {
        let live = try AppClient()
        let upload = try live.upload([("wide.jpg", try live.photoData([200, 120, 20], width: 3000, height: 2000))])
        #expect(upload.status == 201, "\(upload.text)")
        let photo = try live.library.photo(try #require(upload.json["photos"][0]["id"].string))
        // Made in the background, unasked (a page asking first has it made then).
        let preview = live.library.derivedPath(of: photo, kind: "previews", size: Library.previewSize)
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: preview.path) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(FileManager.default.fileExists(atPath: preview.path), "the preview was made after the upload")
        let served = try live.send("GET", "/api/photos/\(photo.id)/preview")
        let made = try Data(contentsOf: preview)
        #expect(served.status == 200 && served.body == made)
    }

    @Test func photoImagesCarryETagsAndCaching() throws {
        let live = try AppClient()
        let upload = try live.upload([("blue.jpg", try live.photoData([20, 20, 220], width: 3000, height: 2000))])
        let id = try #require(upload.json["photos"][0]["id"].string)
        let thumbnail = try live.send("GET", "/api/photos/\(id)/thumbnail")
        #expect(thumbnail.status == 200 && thumbnail.headers["cache-control"]?.contains("immutable") == true)
        let etag = try #require(thumbnail.headers["etag"])
        #expect(try live.send("GET", "/api/photos/\(id)/thumbnail", headers: ["If-None-Match": etag]).status == 304)
        let preview = try live.send("GET", "/api/photos/\(id)/preview")
        #expect(preview.status == 200 && preview.body.count > thumbnail.body.count)
        #expect(try live.send("GET", "/api/photos").json[0]["width"].number == 3000)
        #expect(try live.send("GET", "/api/photos/ffffffffffff/thumbnail").status == 404)
    }

    @Test func uploadsReportPerFileErrorsAndLimits() throws {
        let live = try AppClient()
        let mixed = try live.upload([("good.jpg", try live.photoData([1, 2, 3])), ("bad.jpg", Data("nope".utf8))])
        #expect(mixed.status == 201)
        #expect(mixed.json["photos"].count == 1 && mixed.json["errors"][0]["file"].string == "bad.jpg")
        #expect(mixed.json["errors"][0]["message"].string?.contains("bad.jpg") == true)
        #expect(mixed.json["errors"][0]["message"].string?.contains("Vips") == false, "no libvips class names")
        let allBad = try live.upload([("bad.jpg", Data("nope".utf8))])
        #expect(allBad.status == 422)
        let notMultipart = try live.json("POST", "/api/photos", "{}")
        #expect(notMultipart.status == 415)
        // A body that stops before its closing boundary.
        var truncated = MultipartBody.make([("cut.jpg", try live.photoData([5, 5, 5]))])
        truncated = truncated.prefix(truncated.count - 40)
        let cut = try live.send(
            "POST", "/api/photos", body: truncated,
            headers: ["Content-Type": "multipart/form-data; boundary=collage-test-boundary"])
        #expect(cut.status == 400 && cut.text.contains("truncated"))
        #expect(try live.send("GET", "/api/photos").json.count == 1, "nothing from the failed uploads")
    }

    @Test func safetyRules() throws {
        let live = try LiveServer()
        // DNS rebinding: another name for this address is refused.
        let rebinding = try live.send("GET", "/api/collages", host: "attacker.example:\(live.port)")
        #expect(rebinding.status == 421 && rebinding.text.contains("Host header"))
        #expect(try live.send("GET", "/api/collages", host: "localhost:\(live.port)").status == 200)
        // CSRF: changes need the page's token.
        let noToken = try live.json("POST", "/api/collages", "{}", token: false)
        #expect(noToken.status == 403 && noToken.text.contains("token"))
        let wrongToken = try live.send(
            "DELETE", "/api/collages/x", headers: ["X-Collage-Token": "0123456789abcdef"], token: false)
        #expect(wrongToken.status == 403)
        // Traversal, raw and encoded, is refused before anything touches the disk.
        for path in ["/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/..%2fPackage.swift"] {
            let response = try live.send("GET", path)
            #expect([400, 404].contains(response.status), "\(path): \(response.status)")
            #expect(!response.text.contains("root:"))
        }
        #expect(try live.send("GET", "/static/nope.js").status == 404)
        #expect(try live.send("GET", "/static/app.js").headers["content-type"]?.contains("javascript") == true)
        // Malformed JSON names the problem.
        let malformed = try live.json("POST", "/api/collages", #"{"title": }"#)
        #expect(malformed.status == 400 && malformed.text.contains("line 1, column 11"))
        let badEdit = try live.json("POST", "/api/collages/x/edits", #"{"version": 1, "edits": [{"op": "fly"}]}"#)
        #expect(badEdit.status == 422 && badEdit.text.contains("unknown operation"))
        // Oversized bodies.
        let huge = Data(repeating: UInt8(ascii: " "), count: 3 * 1024 * 1024)
        let tooLarge = try live.send("POST", "/api/collages", body: huge, headers: ["Content-Type": "application/json"])
        #expect(tooLarge.status == 413)
        #expect(try live.send("PATCH", "/api/templates").status == 405)
        // The page gets its token and a strict content security policy.
        let page = try live.send("GET", "/")
        #expect(
            page.text.contains(live.token)
                && page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
    }

    @Test func aClientThatVanishesMidUploadLeavesNothing() throws {
        let live = try LiveServer()
        let photo = try live.photoData([9, 9, 9], width: 2000, height: 1500)
        let body = MultipartBody.make([("big.jpg", photo)])
        let head = """
            POST /api/photos HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nX-Collage-Token: \(live.token)\r\n\
            Content-Type: multipart/form-data; boundary=collage-test-boundary\r\nContent-Length: \(body.count)\r\n\r\n
            """
        // The server spools a body to its scratch folder as it arrives…
        func spooled() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: ScratchSpace.folder.path)) ?? [])
                .filter { $0.hasPrefix("upload-") || $0.hasPrefix("parts-") }
        }
        let before = Set(spooled())
        let socket = try live.connect()
        let half = Data(head.utf8) + body.prefix(body.count / 2)
        _ = half.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        #expect(Waiting.until { !Set(spooled()).subtracting(before).isEmpty }, "the body was never spooled")
        // …and removes it when the client vanishes halfway.
        close(socket)
        #expect(Waiting.until { Set(spooled()).subtracting(before).isEmpty }, "\(spooled())")
        #expect(try live.send("GET", "/api/photos").json.count == 0)
        #expect(try live.send("GET", "/api/collages").status == 200, "still serving")
    }

    @Test func aLiftWhoseClientLeavesStopsAndStoresNothing() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let live = try LiveServer(model: model)
        var photo = Bitmap(width: 2400, height: 1800, color: [236, 234, 228])
        for y in 300..<1500 { for x in 600..<1800 { photo[x, y] = [200, 40, 60] } }
        let file = live.directory.appendingPathComponent("square.png")
        try photo.write(to: file, format: .png)
        let uploaded = try live.upload([("square.png", try Data(contentsOf: file))])
        let id = try #require(uploaded.json["photos"][0]["id"].string, "\(uploaded.text)")
        let body = #"{"shadow": true, "outline": 12, "effect": "puffy"}"#
        let head = """
            POST /api/photos/\(id)/stickers HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\n\
            X-Collage-Token: \(live.token)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n
            """
        let socket = try live.connect()
        let request = Data((head + body).utf8)
        _ = request.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        // The person presses Escape once the lift is under way.
        #expect(Waiting.until { live.server.app.lifts.runningNow == 1 }, "the lift never started")
        close(socket)
        #expect(Waiting.until { live.server.app.lifts.runningNow == 0 }, "the lift never stopped")
        #expect(try live.library.stickers().isEmpty, "a lift nobody waited for was stored")

        // The same lift, waited for, is made: the photo was liftable.
        let lifted = try live.json("POST", "/api/photos/\(id)/stickers", body)
        #expect(lifted.status == 201, "\(lifted.text)")
        #expect(try live.library.stickers().count == 1)
        // The model's own edge is another sticker; an edge that is neither is named in the error.
        let plain = try live.json("POST", "/api/photos/\(id)/stickers", #"{"edges": "plain"}"#)
        #expect(plain.status == 201, "\(plain.text)")
        #expect(try live.library.stickers().count == 2)
        let bad = try live.json("POST", "/api/photos/\(id)/stickers", #"{"edges": "sharp"}"#)
        #expect(bad.status == 422 && bad.text.contains("edges"), "\(bad.text)")
    }

    @Test func manyConcurrentClientsAreServed() throws {
        let live = try LiveServer()
        let created = try live.json("POST", "/api/collages", #"{"title": "Busy"}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let results = Counter()
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let ok: Bool
            if index.isMultiple(of: 5) {
                ok = (try? live.json("PATCH", "/api/collages/\(id)", #"{"title": "Busy \#(index)"}"#).status) == 200
            } else {
                ok = (try? live.send("GET", "/api/collages/\(id)").status) == 200
            }
            if ok { results.increment() }
        }
        #expect(results.value == 50)
        #expect(try live.send("GET", "/api/collages/\(id)").json["version"].number == 11)
    }

    @Test func stickersNeedTheModelAndSayWhenThereIsNoSubject() throws {
        let live = try AppClient()
        let upload = try live.upload([("flat.jpg", try live.photoData([128, 128, 128]))])
        let id = try #require(upload.json["photos"][0]["id"].string)
        let withoutModel = try live.json("POST", "/api/photos/\(id)/stickers", "{}")
        #expect(withoutModel.status == 503 && withoutModel.text.contains("scripts/fetch-model"))

        let model = try SubjectModel()
        let withModel = try AppClient(model: model)
        let flat = try withModel.upload([("flat.jpg", try withModel.photoData([128, 128, 128]))])
        let flatID = try #require(flat.json["photos"][0]["id"].string)
        let none = try withModel.json("POST", "/api/photos/\(flatID)/stickers", "{}")
        #expect(none.status == 422 && none.text.contains("no subject"))

        let scene = try TestPhotos.subjectPNG(
            width: 600, height: 400, center: (300, 200), radii: (120, 150), color: [200, 40, 40])
        let subject = try withModel.upload([("scene.png", scene)])
        let subjectID = try #require(subject.json["photos"][0]["id"].string)
        let lifted = try withModel.json("POST", "/api/photos/\(subjectID)/stickers", #"{"at": {"x": 0.5, "y": 0.5}}"#)
        #expect(lifted.status == 201, "\(lifted.text)")
        // The lift says how long it took the server (a browser's network panel shows it).
        let timing = try #require(lifted.headers["server-timing"])
        #expect(timing.hasPrefix("lift;dur=") && Double(timing.dropFirst("lift;dur=".count)).map { $0 > 0 } == true)
        let image = try withModel.send("GET", try #require(lifted.json["image"].string))
        #expect(image.status == 200 && image.headers["content-type"] == "image/png")
        let missed = try withModel.json("POST", "/api/photos/\(subjectID)/stickers", #"{"at": {"x": 0.02, "y": 0.02}}"#)
        #expect(missed.status == 422 && missed.text.contains("no subject at"))
        // And in words for the editor to show, without the file's name or pixels.
        #expect(
            missed.json["error"]["plain"].string
                == "There is no subject just there. Click or tap the subject itself, or choose Every subject.")
    }
}

final class Counter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }

    @Test func anExportIsNamedAfterItsTitleInAnyLanguage() throws {
        let client = try AppClient()
        let created = try client.json("POST", "/api/collages", #"{"title": "Été à Paris ✿", "template": "grid2x2"}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let export = try client.send("GET", "/api/collages/\(id)/export?format=png&size=200")
        #expect(export.status == 200)
        let disposition = try #require(export.headers["content-disposition"])
        let ascii = disposition.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(ascii, "header bytes stay ASCII: \(disposition)")
        #expect(disposition.contains(#"filename="Ete a Paris.png""#))
        #expect(disposition.contains("filename*=UTF-8''%C3%89t%C3%A9%20%C3%A0%20Paris.png"))
        let plain = try client.json("POST", "/api/collages", #"{"title": "Summer 2026", "template": "grid2x2"}"#)
        let plainID = try #require(plain.json["collage"]["id"].string)
        let plainExport = try client.send("GET", "/api/collages/\(plainID)/export?format=jpeg&size=200")
        #expect(plainExport.headers["content-disposition"] == #"attachment; filename="Summer 2026.jpg""#)
    }
}

extension APITests {
    /// The refine brush's API: the photo under a sticker, strokes that make a refined copy, and a
    /// sticker item switched to it by an edit; bad strokes are named.
    @Test func aStickerIsRefinedWithStrokesAndItsItemShowsTheRefinedCopy() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let live = try LiveServer(model: model)
        var photo = Bitmap(width: 600, height: 450, color: [236, 234, 228])
        for y in 100..<350 { for x in 150..<450 { photo[x, y] = [200, 40, 60] } }
        let file = live.directory.appendingPathComponent("square.png")
        try photo.write(to: file, format: .png)
        let uploaded = try live.upload([("square.png", try Data(contentsOf: file))])
        let photoID = try #require(uploaded.json["photos"][0]["id"].string, "\(uploaded.text)")
        let lifted = try live.json("POST", "/api/photos/\(photoID)/stickers", "{}")
        #expect(lifted.status == 201, "\(lifted.text)")
        let sticker = try #require(lifted.json["id"].string)
        let (width, height) = (try #require(lifted.json["width"].number), try #require(lifted.json["height"].number))

        let under = try live.send("GET", "/api/stickers/\(sticker)/photo")
        #expect(under.status == 200 && under.headers["content-type"] == "image/png", "\(under.text.prefix(200))")
        let underFile = live.directory.appendingPathComponent("under.png")
        try under.body.write(to: underFile)
        let underImage = try Bitmap.read(underFile)
        // The picture reaches past the sticker (the brush may restore there); the header says
        // where the sticker lies in it.
        let at = (under.headers["x-collage-sticker-at"] ?? "").split(separator: ",").compactMap { Int($0) }
        #expect(at.count == 2 && at[0] > 0 && at[1] > 0, "\(under.headers)")
        let (atX, atY) = (at.first ?? 0, at.last ?? 0)
        #expect(Double(underImage.width) > width && Double(underImage.height) > height)
        #expect(underImage[atX + Int(width / 2), atY + Int(height / 2)] == [200, 40, 60])
        #expect(underImage[max(0, atX - 5), atY + Int(height / 2)] == [236, 234, 228], "the photo beside the sticker")

        // Erase a corner of the square: a new sticker with a clear corner, where the first was.
        let strokes = #"{"strokes": [{"mode": "erase", "size": 60, "softness": 0, "points": [[0, 0], [40, 40]]}]}"#
        let refined = try live.json("POST", "/api/stickers/\(sticker)/refine", strokes)
        #expect(refined.status == 201, "\(refined.text)")
        let refinedID = try #require(refined.json["id"].string)
        let offset = (Int(refined.json["offset"][0].number ?? 99), Int(refined.json["offset"][1].number ?? 99))
        #expect(refinedID != sticker && abs(offset.0) <= 4 && abs(offset.1) <= 4, "\(refined.text)")
        let image = try live.send("GET", "/api/stickers/\(refinedID)/image")
        let refinedFile = live.directory.appendingPathComponent("refined.png")
        try image.body.write(to: refinedFile)
        let refinedImage = try Bitmap.read(refinedFile)
        #expect(refinedImage[30 - offset.0, 30 - offset.1][3] == 0, "\(refinedImage[30 - offset.0, 30 - offset.1])")
        #expect(refinedImage[Int(width / 2) - offset.0, Int(height / 2) - offset.1][3] == 255)

        // Restore a dab of the photo left of the sticker: the sticker grows to keep it.
        let beside = #"{"strokes": [{"mode": "restore", "size": 10, "softness": 0, "points": [[-12, 60]]}]}"#
        let grown = try live.json("POST", "/api/stickers/\(sticker)/refine", beside)
        #expect(grown.status == 201, "\(grown.text)")
        #expect(
            (grown.json["offset"][0].number ?? 0) <= -12 && (grown.json["width"].number ?? 0) > width, "\(grown.text)")

        // A collage's sticker item shows the refined copy after one edit, and undo brings the first back.
        let created = try live.json("POST", "/api/collages", #"{"title": "Refined"}"#)
        let collage = try #require(created.json["collage"]["id"].string)
        let added = try live.json(
            "POST", "/api/collages/\(collage)/edits",
            #"{"version": 1, "edits": [{"op": "addItem", "id": "s", "content": {"type": "sticker", "ref": "\#(sticker)"}}]}"#
        )
        #expect(added.status == 200, "\(added.text)")
        let replaced = try live.json(
            "POST", "/api/collages/\(collage)/edits",
            #"{"version": 2, "edits": [{"op": "replaceSticker", "id": "s", "sticker": "\#(refinedID)"}]}"#)
        #expect(replaced.status == 200, "\(replaced.text)")
        #expect(replaced.json["collage"]["items"][0]["content"]["ref"].string == refinedID)
        let unknown = try live.json(
            "POST", "/api/collages/\(collage)/edits",
            #"{"version": 3, "edits": [{"op": "replaceSticker", "id": "s", "sticker": "nope"}]}"#)
        #expect(unknown.status == 404 && unknown.text.contains("nope"), "\(unknown.text)")

        // Bad strokes, each named; nothing is stored for them.
        let count = try live.library.stickers().count
        for (body, named) in [
            (#"{"strokes": []}"#, "strokes"),
            (#"{"strokes": [{"mode": "smudge", "size": 10, "points": [[1, 1]]}]}"#, "strokes[0].mode"),
            (#"{"strokes": [{"mode": "erase", "size": 1e300, "points": [[1, 1]]}]}"#, "strokes[0].size"),
            (#"{"strokes": [{"mode": "erase", "size": 10, "points": [[1e300, 1]]}]}"#, "strokes[0].points[0]"),
            (
                #"{"strokes": [{"mode": "erase", "size": 20, "points": ["#
                    + Array(repeating: "[10, 10]", count: 20_001).joined(separator: ", ") + "]}]}",
                "at most 20000 points"
            ),
        ] {
            let bad = try live.json("POST", "/api/stickers/\(sticker)/refine", body)
            #expect(bad.status == 422 && bad.text.contains(named), "\(body.prefix(80)): \(bad.text)")
        }
        #expect(try live.library.stickers().count == count)
        let missing = try live.json("POST", "/api/stickers/nope/refine", strokes)
        #expect(missing.status == 404, "\(missing.text)")
    }
}
