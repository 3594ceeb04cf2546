import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Stickers
import Testing

@testable import CollageServer

/// The editor's background analysis: uploaded photos become ready to lift without a request.
@Suite("Subjects found in the background", .serialized)
struct AnalysisAPITests {
    @Test func uploadedPhotosBecomeReadyAndTheListSaysSo() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let client = try AppClient(model: model)
        client.app.startAnalysingPhotos()
        defer { client.app.stopAnalysingPhotos() }
        var disc = Bitmap(width: 320, height: 240, color: [236, 234, 228])
        for y in 0..<240 {
            for x in 0..<320 where pow(Double(x) - 160, 2) / 6400 + pow(Double(y) - 120, 2) / 4900 <= 1 {
                disc[x, y] = [30, 90, 200]
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("disc-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try disc.write(to: file, format: .png)
        let uploaded = try client.upload([("disc.png", try Data(contentsOf: file))])
        #expect(uploaded.status == 201 || uploaded.status == 200, "\(uploaded.text)")
        var subject: String?
        for _ in 0..<300 {
            subject = try client.send("GET", "/api/photos").json[0]["subject"].string
            if subject != "pending" { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(subject == "ready")
        let photo = try #require(try client.library.photos().first)
        #expect(model.readiness(of: photo, in: client.library) == .ready)

        // A photo imported by another process (`collage import` while the editor runs) is found
        // too, without an upload to wake the analyser.
        let other = try Library(root: client.library.root)
        var second = disc
        for y in 100..<140 { for x in 0..<320 { second[x, y] = [200, 60, 40] } }
        try second.write(to: file, format: .png)
        let imported = try other.importPhoto(from: file).photo
        other.close()
        var found: SubjectReadiness = .pending
        for _ in 0..<300 {
            guard let record = try client.library.photos().first(where: { $0.id == imported.id }) else { break }
            found = model.readiness(of: record, in: client.library)
            if found != .pending { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(found != .pending, "a photo imported elsewhere was never analysed")
    }

    /// A request never waits for the model: a collage of photos not analysed yet is made at once
    /// with them centred (the page and exports alike), and crops around their subjects once the
    /// background analysis has found them.
    @Test func collagesOfPhotosNotAnalysedAreMadeWithoutTheModel() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let client = try AppClient(model: model)
        defer { client.app.stopAnalysingPhotos() }
        // A disc on the left of a wide photo: its subject is left of centre.
        let photo = try TestPhotos.subjectPNG(width: 480, height: 240, center: (110, 120), radii: (80, 80))
        let uploaded = try client.upload([("left-disc.png", photo)])
        let id = try #require(uploaded.json["photos"][0]["id"].string, "\(uploaded.text)")

        let created = try client.json(
            "POST", "/api/collages", #"{"template": "grid2x2", "aspect": "1:1", "photos": ["\#(id)"]}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["media"][id]["focus"].value == nil, "the model ran inside the request")
        #expect(created.json["media"][id]["focusPending"].value == nil, "nothing will find it: the page need not ask")
        #expect(try client.library.cachedFocus(photoID: id, model: model.sha256) == nil)
        let collage = try #require(created.json["collage"]["id"].string)

        client.app.startAnalysingPhotos()
        var latest = try client.send("GET", "/api/collages/\(collage)")
        #expect(latest.json["media"][id]["focusPending"].bool == true || latest.json["media"][id]["focus"].value != nil)
        for _ in 0..<300 where latest.json["media"][id]["focus"].value == nil {
            Thread.sleep(forTimeInterval: 0.1)
            latest = try client.send("GET", "/api/collages/\(collage)")
        }
        let focus = try #require(latest.json["media"][id]["focus"]["x"].number, "never analysed: \(latest.text)")
        #expect(focus < 0.4)
        #expect(latest.json["media"][id]["focusPending"].value == nil)
        // The page draws the crop the export uses: the square's source starts at the left edge.
        #expect(latest.json["layout"]["items"][0]["source"]["x"].number == 0)
    }

    /// Without background analysis (`--no-analyse`) no photo is said to be on its way to ready:
    /// nothing would make it so, and the tray said "Getting 1 photo ready to lift…" for good.
    @Test func withoutBackgroundAnalysisNoPhotoIsPending() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let client = try AppClient(model: model)
        let photo = try TestPhotos.subjectPNG(width: 320, height: 240, center: (160, 120), radii: (70, 60))
        let uploaded = try client.upload([("disc.png", photo)])
        let id = try #require(uploaded.json["photos"][0]["id"].string, "\(uploaded.text)")
        let listed = try client.send("GET", "/api/photos")
        #expect(listed.status == 200)
        #expect(listed.json[0]["id"].string == id)
        #expect(listed.json[0]["subject"].value == nil, "\(listed.text)")
    }

    /// Without background analysis (`--no-analyse`), a lift finds the photo's subject, and with it
    /// the focal point its smart crop uses: the collage then crops around the subject.
    @Test func aLiftGivesThePhotoItsSmartCropWithoutBackgroundAnalysis() throws {
        guard let model = try? SubjectModel() else {
            Issue.record("the subject model is not installed (scripts/fetch-model)")
            return
        }
        let client = try AppClient(model: model)
        let photo = try TestPhotos.subjectPNG(width: 480, height: 240, center: (110, 120), radii: (80, 80))
        let uploaded = try client.upload([("left-disc.png", photo)])
        let id = try #require(uploaded.json["photos"][0]["id"].string, "\(uploaded.text)")
        let created = try client.json(
            "POST", "/api/collages", #"{"template": "grid2x2", "aspect": "1:1", "photos": ["\#(id)"]}"#)
        let collage = try #require(created.json["collage"]["id"].string)
        #expect(created.json["media"][id]["focus"].value == nil)
        let thumbnailBefore = try client.send("GET", "/api/collages/\(collage)/thumbnail")

        let lifted = try client.json("POST", "/api/photos/\(id)/stickers", "{}")
        #expect(lifted.status == 201, "\(lifted.text)")
        let after = try client.send("GET", "/api/collages/\(collage)")
        let focus = try #require(after.json["media"][id]["focus"]["x"].number, "\(after.text)")
        #expect(focus < 0.4)
        // The thumbnail is made again: it was kept while the subject was still to be found.
        let thumbnailAfter = try client.send("GET", "/api/collages/\(collage)/thumbnail")
        #expect(thumbnailBefore.headers["etag"] != thumbnailAfter.headers["etag"])
    }
}
