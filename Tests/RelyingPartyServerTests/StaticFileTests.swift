import Foundation
import Testing

/// The demo site: files inside `www` only, nothing hidden, nothing above it.
struct StaticFileTests {
    /// The repository's `www` folder, found from this file.
    static let repositoryWWW = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("www").path

    private func client(www: String) throws -> PasskeyClient {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": "\#(www)"}"#
        )
        return PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
    }

    @Test func rootServesIndexHTML() throws {
        let client = try client(www: Self.repositoryWWW)
        let reply = try client.send("GET", "/")
        #expect(reply.status == 200)
        #expect(reply.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(reply.body == Array(try Data(contentsOf: URL(fileURLWithPath: Self.repositoryWWW + "/index.html"))))
        #expect(reply.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        let script = try client.send("GET", "/passkeys.js")
        #expect(script.status == 200)
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
    }

    @Test func nothingOutsideOrHiddenIsServed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-www-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/site/.git", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/site/sub", withIntermediateDirectories: true)
        try Data("<p>hi</p>".utf8).write(to: URL(fileURLWithPath: folder + "/site/index.html"))
        try Data("[core]".utf8).write(to: URL(fileURLWithPath: folder + "/site/.git/config"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/site/.env"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: folder + "/Package.swift"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/site/sub/x"))
        let client = try client(www: folder + "/site")
        #expect(try client.send("GET", "/sub/x").status == 200)
        // The paths arrive percent-decoded from the HTTP layer: "/%2e%2e/x" is "/../x".
        for path in [
            "/../Package.swift", "/.git/config", "/.env", "/../x", "/sub/../index.html", "/sub/", "/sub", "//index.html",
            "/sub\\..\\index.html", "/./index.html",
        ] {
            let reply = try client.send("GET", path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.errorCode == "not_found", "\(path)")
            #expect(reply.headers["Content-Type"] == "application/json", "\(path)")
        }
    }

    @Test func repositoryFilesAboveWWWAreNotServed() throws {
        let client = try client(www: Self.repositoryWWW)
        #expect(FileManager.default.fileExists(atPath: Self.repositoryWWW + "/../Package.swift"))
        for path in ["/../Package.swift", "/../README.md", "/%2e%2e/Package.swift"] {
            #expect(try client.send("GET", path).status == 404, "\(path)")
        }
    }

    @Test func missingFileIsJSON404() throws {
        let reply = try client(www: Self.repositoryWWW).send("GET", "/missing.html")
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
        #expect(reply.headers["Content-Type"] == "application/json")
    }

    @Test func noSiteWhenWWWIsNull() throws {
        let reply = try PasskeyClient(DirectTransport(handler: try TestServerFactory.make())).send("GET", "/")
        #expect(reply.status == 404)
        #expect(reply.errorCode == "not_found")
    }
}
