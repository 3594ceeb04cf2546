import CollageCore
import CollageLibrary
import CollageRender
import CollageTestSupport
import Foundation
import Synchronization
import Testing

@testable import CollageServer

/// The findings of the attack on `collage serve`, each replayed against a live server: every one
/// answers a 4xx naming the problem, and the server keeps answering afterwards.
@Suite("Hostile input on a live server", .serialized)
struct HostileInputTests {
    /// A server with one photo and a collage showing it.
    static func serverWithCollage() throws -> (LiveServer, id: String, version: Int) {
        let live = try LiveServer()
        let upload = try live.upload([("red.jpg", try live.photoData([220, 20, 20]))])
        let photo = try #require(upload.json["photos"][0]["id"].string)
        let created = try live.json(
            "POST", "/api/collages", #"{"title": "Trip", "template": "grid2x2", "photos": ["\#(photo)"]}"#)
        let id = try #require(created.json["collage"]["id"].string)
        let version = Int(try #require(created.json["version"].number))
        return (live, id, version)
    }

    static func stillServing(_ live: LiveServer) throws {
        #expect(try live.send("GET", "/api/collages").status == 200, "the server still answers")
    }

    @Test func absurdExportSizesAreRefusedAndExportsNeedTheToken() throws {
        let (live, id, _) = try Self.serverWithCollage()
        // What a cross-site <img> could send: no token, so no work starts.
        let crossSite = try live.send("GET", "/api/collages/\(id)/export?print=1e300x1e300in@300", token: false)
        #expect(crossSite.status == 403 && crossSite.text.contains("token"))
        for query in [
            "print=1e300x1e300in@300", "print=6x4in@1e300", "print=200x200in@1200", "scale=1e300", "scale=-1e300",
            "scale=nan", "size=99999999999999999999", "size=-5", "size=1e300", "size=40000", "quality=1e300",
            "quality=0", "quality=abc", "format=gif", "scale=2&size=100",
        ] {
            let response = try live.send("GET", "/api/collages/\(id)/export?\(query)")
            #expect(response.status == 422, "\(query): \(response.status) \(response.text)")
            #expect(response.json["error"]["message"].string?.isEmpty == false)
        }
        try Self.stillServing(live)
        let fine = try live.send("GET", "/api/collages/\(id)/export?size=300&quality=80")
        #expect(fine.status == 200 && fine.headers["x-image-width"] == "300")
    }

    @Test func hugeNumbersWhereIntegersBelongAreRefused() throws {
        let (live, id, _) = try Self.serverWithCollage()
        // Out of range is 422, as every option out of range is; a string where a number belongs is 400.
        for version in ["1e300", "-1e300", "1.5", "0", "9223372036854775808", "\"3\""] {
            let status = version.hasPrefix("\"") ? 400 : 422
            let patch = try live.json("PATCH", "/api/collages/\(id)", #"{"title": "x", "version": \#(version)}"#)
            #expect(
                patch.status == status && patch.text.contains("version"), "PATCH version \(version): \(patch.text)")
            let edits = try live.json(
                "POST", "/api/collages/\(id)/edits",
                #"{"version": \#(version), "edits": [{"op": "rename", "title": "y"}]}"#)
            #expect(edits.status == status && edits.text.contains("version"), "edits version \(version)")
        }
        let photo = try #require(try live.send("GET", "/api/photos").json[0]["id"].string)
        for body in [
            #"{"instance": 1e300}"#, #"{"instance": -1e300}"#, #"{"instance": 0}"#, #"{"outline": 1e300}"#,
            #"{"outline": 5000}"#, #"{"outline": -1}"#, #"{"shadow": 1}"#, #"{"at": {"x": 1e300, "y": 0}}"#,
        ] {
            let lift = try live.json("POST", "/api/photos/\(photo)/stickers", body)
            #expect(lift.status == (body.contains("shadow") ? 400 : 422), "\(body): \(lift.status) \(lift.text)")
        }
        try Self.stillServing(live)
    }

    @Test func aPoisonCollageCannotBeStoredAndAnOldOneStillLoads() throws {
        let (live, id, version) = try Self.serverWithCollage()
        let current = try live.send("GET", "/api/collages/\(id)").json["collage"]
        var document = try #require(current.value?.objectMembers)
        var items = try #require(document["items"]?.arrayElements)
        var item = try #require(items[0].objectMembers)
        item["frame"] = JSONValue.object([
            "x": .number(0), "y": .number(0), "width": .number(1e300), "height": .number(1e300),
        ])
        items[0] = .object(item)
        document["items"] = .array(items)
        let body = JSONValue.object(["version": .number(Double(version)), "collage": .object(document)])
        let put = try live.json("PUT", "/api/collages/\(id)", body.serialized(pretty: false))
        #expect(put.status == 422 && put.text.contains("items[0].frame.width"), "\(put.text)")

        let aspect = try live.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [{"op": "setAspect", "aspect": "1e308:1"}]}"#)
        #expect(aspect.status == 422 && aspect.text.contains("aspect"))

        let many = (0..<10_000).map {
            #"{"op": "addItem", "id": "flood\#($0)", "content": {"type": "photo", "ref": "x"}}"#
        }
        let flood = try live.json(
            "POST", "/api/collages/\(id)/edits",
            #"{"version": \#(version), "edits": [\#(many.joined(separator: ","))]}"#)
        #expect(flood.status == 422 && flood.text.contains("at most 200 items"), "\(flood.text.prefix(300))")

        // A collage stored before these checks existed: the page and the list still load, its
        // thumbnail and export say what is wrong.
        try Self.sql(live, "UPDATE items SET width = 1e300, height = 1e300")
        #expect(try live.send("GET", "/api/collages").status == 200)
        #expect(try live.send("GET", "/api/collages/\(id)").status == 200)
        let thumbnail = try live.send("GET", "/api/collages/\(id)/thumbnail")
        #expect(thumbnail.status == 422 && thumbnail.text.contains("cannot be rendered"), "\(thumbnail.text)")
        #expect(try live.send("GET", "/api/collages/\(id)/export").status == 422)
        try Self.stillServing(live)
    }

    /// Changes the library database behind the server's back, as an older Collage could have.
    static func sql(_ live: LiveServer, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let database = live.library.root.appendingPathComponent(Library.databaseName).path
        process.arguments = [
            "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
            database, statement,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func theServersEdgesHold() throws {
        let live = try LiveServer()
        let host = "127.0.0.1:\(live.port)"
        func raw(_ text: String) throws -> LiveServer.Response { try live.raw(Data(text.utf8)) }
        // A NUL (or any control character) in the path no longer cuts it short.
        for path in ["/api/collages/abc%00/export", "/static/app.js%00.png", "/api/collages%0a", "/%7f"] {
            let response = try raw("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
            #expect(response.status == 400 && response.text.contains("control character"), "\(path)")
        }
        let twoHosts = try raw(
            "GET /api/collages HTTP/1.1\r\nHost: \(host)\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        #expect(twoHosts.status == 400 && twoHosts.text.contains("more than one host"))
        // The token is not enough when the browser says the request comes from another site.
        let foreign = try live.send(
            "POST", "/api/collages", body: Data("{}".utf8),
            headers: ["Content-Type": "application/json", "Origin": "http://evil.example"])
        #expect(foreign.status == 403 && foreign.text.contains("evil.example"))
        let crossSite = try live.send(
            "POST", "/api/collages", body: Data("{}".utf8),
            headers: ["Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403)
        let sameOrigin = try live.send(
            "POST", "/api/collages", body: Data("{}".utf8),
            headers: ["Content-Type": "application/json", "Origin": "http://\(host)", "Sec-Fetch-Site": "same-origin"])
        #expect(sameOrigin.status == 201)
        // Nothing may frame the editor.
        for path in ["/", "/api/collages", "/nothing-here"] {
            let response = try live.send("GET", path)
            #expect(response.headers["x-frame-options"] == "DENY", "\(path)")
            #expect(response.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true, "\(path)")
        }
    }

    @Test func bodiesAreJudgedBeforeAByteIsStored() throws {
        let live = try LiveServer()
        let host = "127.0.0.1:\(live.port)"
        let before = try Self.scratchFiles()
        // A declared 2 GB body is refused from its headers, without waiting for it.
        let started = ContinuousClock.now
        let huge = try live.raw(
            Data(
                ("POST /api/photos HTTP/1.1\r\nHost: \(host)\r\nX-Collage-Token: \(live.token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 2147483648\r\n\r\n").utf8))
        #expect(huge.status == 413 && huge.text.contains("over the limit"))
        #expect(ContinuousClock.now - started < .seconds(5))
        // An upload without the token is refused before its body is read: nothing reaches the disk.
        let socket = try live.connect()
        defer { close(socket) }
        let body = Data(repeating: 0x41, count: 8 * 1024 * 1024)
        let head =
            "POST /api/photos HTTP/1.1\r\nHost: \(host)\r\nContent-Type: multipart/form-data; boundary=x\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        _ = Data(head.utf8).withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(socket, &buffer, buffer.count)
        let answer = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 403"), "\(answer)")
        #expect(try Self.scratchFiles() == before, "no upload file was written")
        let json = try live.send(
            "POST", "/api/collages", body: Data(repeating: 0x20, count: 3 * 1024 * 1024),
            headers: ["Content-Type": "application/json"])
        #expect(json.status == 413)
        // Only the upload route streams a body to disk: a page or a JSON route refuses multipart
        // (and a page any body) from the headers, with no token needed to find out.
        for (method, path, status) in [("GET", "/static/app.js", 400), ("POST", "/api/collages", 415)] {
            let refused = try live.raw(
                Data(
                    ("\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nX-Collage-Token: \(live.token)\r\n"
                        + "Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 304087040\r\n\r\n").utf8))
            #expect(refused.status == status, "\(method) \(path): \(refused.text)")
        }
        #expect(try Self.scratchFiles() == before, "no upload file was written")
    }

    static func scratchFiles() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: ScratchSpace.folder.path))
    }

    @Test func slowClientsCannotStarveOthers() throws {
        let live = try LiveServer()
        let host = "127.0.0.1:\(live.port)"
        // 300 connections from one client, each sending half a request line and stopping there.
        var slow: [Int32] = []
        defer { slow.forEach { close($0) } }
        for _ in 0..<300 {
            let socket = try live.connect(from: "127.0.0.2")
            _ = Data("GET /api/coll".utf8).withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            slow.append(socket)
        }
        // Everyone else is still served (before, the 257th connection waited for a free slot).
        let response = try live.send("GET", "/api/session")
        #expect(response.status == 200)
        // And the slow connections are closed once the header deadline passes.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        let probe = slow[0]
        setsockopt(probe, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        // Closed by the server (0 or a reset), not timed out waiting (EAGAIN after 20 s).
        let got = read(probe, &byte, 1)
        #expect(got == 0 || (got == -1 && errno == ECONNRESET), "closed by the server, errno \(errno)")
        _ = host
    }

    @Test func aBodyTrickledAByteAtATimeIsCutOff() throws {
        let live = try LiveServer()
        let socket = try live.connect()
        defer { close(socket) }
        let head =
            "POST /api/collages HTTP/1.1\r\nHost: 127.0.0.1:\(live.port)\r\nX-Collage-Token: \(live.token)\r\n"
            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        _ = Data(head.utf8).withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
        // A byte a second: enough for an idle timeout never to fire, far too slow for a body.
        var closedAfter: Int?
        for second in 0..<40 {
            let chunk = Data("1\r\n \r\n".utf8)
            let sent = chunk.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if sent < 0 || (poll(&descriptor, 1, 1000) == 1 && descriptor.revents & Int16(POLLIN | POLLHUP) != 0) {
                var byte: UInt8 = 0
                if sent < 0 || read(socket, &byte, 1) <= 0 {
                    closedAfter = second
                    break
                }
            }
        }
        let seconds = try #require(closedAfter, "the trickling body was never cut off")
        #expect(seconds >= 14 && seconds <= 25, "cut off after \(seconds) s")
        // Others are served meanwhile and after.
        #expect(try live.send("GET", "/api/session").status == 200)
    }

    @Test func expensiveWorkWaitsItsTurnThenIsRefused() throws {
        let gate = WorkGate(name: "exports", running: 1, waiting: 1, patience: .seconds(5))
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            _ = try? gate.run { () throws(HTTPError) in
                started.signal()
                release.wait()
            }
        }
        started.wait()
        DispatchQueue.global().async(group: group) { _ = try? gate.run { () throws(HTTPError) in } }
        #expect(Waiting.until { gate.waitingNow == 1 }, "the second job never queued")
        do {
            _ = try gate.run { () throws(HTTPError) in Issue.record("a third job ran") }
        } catch {
            #expect(error.status == .unavailable && error.headers["Retry-After"] != nil)
            #expect(error.message.contains("too many exports"))
        }
        release.signal()
        group.wait()
        #expect(gate.runningNow == 0)
    }

    @Test func uploadsAreImportedOneAtATime() throws {
        let client = try AppClient()
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        // Another upload's import holds the turn.
        DispatchQueue.global().async(group: group) {
            _ = try? client.app.imports.run { () throws(HTTPError) in
                started.signal()
                release.wait()
            }
        }
        started.wait()
        let answer = Mutex<Int?>(nil)
        let photo = try client.photoData([10, 200, 90])
        DispatchQueue.global().async(group: group) {
            let status = try? client.upload([("waits.jpg", photo)]).status
            answer.withLock { $0 = status }
        }
        #expect(Waiting.until { client.app.imports.waitingNow == 1 }, "the upload never queued for its turn")
        // Its files are stored, but nothing is decoded or imported until the turn is free.
        #expect(try client.library.photos().isEmpty)
        #expect(answer.withLock { $0 } == nil)
        release.signal()
        group.wait()
        #expect(answer.withLock { $0 } == 201)
        #expect(try client.library.photos().count == 1)
        #expect(client.app.imports.runningNow == 0)
    }

    @Test func aCancelledRenderStopsAndWritesNothing() throws {
        let folder = try TemporaryFolder("cancel")
        let directory = folder.url
        try Bitmap(width: 2000, height: 1500, color: [30, 90, 200]).write(
            to: directory.appendingPathComponent("p.jpg"), format: .jpeg)
        var collage = Collage(id: "c", title: "Big", created: Date(), canvas: Size(width: 1200, height: 1200))
        collage = try collage.applying(.addItem(id: "a", content: .photo("p.jpg"), frame: nil))
        collage = try collage.applying(.rotateItem(id: "a", degrees: 10))
        let output = directory.appendingPathComponent("out.png")
        let cancellation = RenderCancellation()
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            cancellation.cancel()
        }
        #expect(throws: RenderError.cancelled) {
            try CollageRenderer().render(
                collage, photos: DirectoryPhotoSource(baseDirectory: directory),
                options: RenderOptions(size: .longSide(9000), format: .png), to: output, cancellation: cancellation)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// With several photos they are decoded up front, side by side: a cancel reaches those
    /// decodes too, and the render still stops with nothing written.
    @Test func aCancelledRenderOfSeveralPhotosStopsWhileDecoding() throws {
        let folder = try TemporaryFolder("cancel-several")
        let directory = folder.url
        var collage = Collage(id: "c", title: "Eight", created: Date(), canvas: Size(width: 1200, height: 600))
        // Eight, so the decodes outlast the moment of the cancel on a fast machine too (two
        // were done, and the collage written, before it came).
        for index in 0..<8 {
            // PNGs cannot be shrunk while they load: each decode takes a while.
            try Bitmap(width: 4000, height: 3000, color: [30, UInt8(90 + index * 20), 200]).write(
                to: directory.appendingPathComponent("p\(index).png"), format: .png)
            collage = try collage.applying(.addItem(id: "i\(index)", content: .photo("p\(index).png"), frame: nil))
        }
        let output = directory.appendingPathComponent("out.jpg")
        let cancellation = RenderCancellation()
        // On a thread of its own: with the tests running side by side, Dispatch's shared threads
        // can all be busy, and a cancel queued there came after the render had finished.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.1)
            cancellation.cancel()
        }
        #expect(throws: RenderError.cancelled) {
            try CollageRenderer().render(
                collage, photos: DirectoryPhotoSource(baseDirectory: directory),
                options: RenderOptions(size: .longSide(2400), format: .jpeg), to: output, cancellation: cancellation)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

extension JSONValue {
    fileprivate var objectMembers: [String: JSONValue]? {
        if case .object(let members) = self { members } else { nil }
    }

    fileprivate var arrayElements: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }
}

@Suite("Upload file names")
struct UploadNameTests {
    @Test func namesAreSafeAndFitTheFileSystem() {
        #expect(Multipart.safeName(".") == "photo" && Multipart.safeName("..") == "photo")
        #expect(Multipart.safeName("../../etc/passwd") == "passwd")
        #expect(Multipart.safeName("C:\\photos\\cat.jpg") == "cat.jpg")
        let long = String(repeating: "写真", count: 40) + ".jpg"
        let safe = Multipart.safeName(long)
        #expect(safe.utf8.count <= 200 && safe.hasSuffix(".jpg"))
    }

    @Test func aLongNonLatinNameUploads() throws {
        let live = try LiveServer()
        let name = String(repeating: "猫", count: 76) + ".jpg"
        let upload = try live.upload([(name, try live.photoData([10, 200, 30]))])
        #expect(upload.status == 201, "\(upload.text)")
    }
}
