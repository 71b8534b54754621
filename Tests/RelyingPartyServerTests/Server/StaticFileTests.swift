import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The demo site: files inside `www` only, nothing hidden, nothing above it.
struct StaticFileTests {
    /// The repository's `www` folder, found from this file.
    static let repositoryWWW = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
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

    @Test func aPathWithoutAnExtensionIsItsHTMLPage() throws {
        let client = try client(www: Self.repositoryWWW)
        let page = try client.send("GET", "/enroll?token=abc")
        #expect(page.status == 200 && page.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.body == Array(try Data(contentsOf: URL(fileURLWithPath: Self.repositoryWWW + "/enroll.html"))))
        #expect(try client.send("GET", "/enroll.js").headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(try client.send("GET", "/nothing").status == 404)
        #expect(try client.send("GET", "/.hidden").status == 404)
        #expect(try client.send("GET", "/enroll/").status == 404)
    }

    /// A new temporary folder holding `files` (path inside it: contents), their folders made as needed.
    private func makeFolder(_ files: [String: String]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for (path, contents) in files {
            let url = URL(fileURLWithPath: folder.path + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: url)
        }
        return folder
    }

    @Test func nothingOutsideOrHiddenIsServed() throws {
        let temporary = try makeFolder([
            "/site/index.html": "<p>hi</p>", "/site/.git/config": "[core]", "/site/.env": "secret", "/Package.swift": "outside",
            "/site/sub/x": "x",
        ])
        let folder = temporary.path
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

    /// Issue 15: `/index.html%00.png` was served as `image/png` (the NUL cut the file name, the extension named the type).
    /// The HTTP layer answers it with 400; the site itself refuses a NUL in a path it is handed.
    @Test func encodedNULInThePathIsNeverServed() throws {
        let client = try client(www: Self.repositoryWWW)
        for path in ["/index.html\u{0}.png", "/\u{0}", "/index.html\u{0}"] {
            let reply = try client.send("GET", path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.headers["Content-Type"] == "application/json", "\(path)")
        }
        let server = try LoopbackServer(
            configuration: try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": "\#(Self.repositoryWWW)"}"#
            )
        )
        defer { server.stop() }
        let overHTTPS = try CurlTransport(port: server.port).send("GET", "/index.html%00.png", body: nil, headers: [])
        #expect(overHTTPS.status == 400)
        #expect(overHTTPS.errorCode == "bad_request")
        #expect(overHTTPS.headers["Content-Type"] == "application/json")
        #expect(try CurlTransport(port: server.port).send("GET", "/index.html", body: nil, headers: []).status == 200)
    }

    /// Issue 22: the hosted sign-in page is served at /oauth/sign-in with the provider's page policy alone (no framing,
    /// no script but passkeyd's own, no referrer), and its script and the web client module beside it.
    @Test func theHostedSignInPageIsServedWithItsPolicy() throws {
        let client = try client(www: Self.repositoryWWW)
        let page = try client.send("GET", "/oauth/sign-in?client_id=web&state=x")
        #expect(page.status == 200)
        #expect(page.text.contains(#"src="/oauth/sign-in.js""#))
        #expect(page.headers.values("content-security-policy").count == 1)
        let policy = page.headers["Content-Security-Policy"] ?? ""
        #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'") && policy.contains("object-src 'none'"))
        #expect(page.headers["X-Frame-Options"] == "DENY")
        #expect(page.headers.values("referrer-policy") == ["no-referrer"])
        #expect(page.headers["Cache-Control"] == "no-store")
        let script = try client.send("GET", "/oauth/sign-in.js")
        #expect(script.status == 200 && script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.text.contains(#"from "/passkeyd.js""#))
        #expect(try client.send("GET", "/passkeyd.js").status == 200)
    }

    /// Issue 15: a symbolic link inside `www` to a file outside it served `/etc/passwd`. A link is followed only when
    /// it resolves inside the (resolved) root; the file is opened from the root one component at a time without
    /// following links, so a link swapped in after the check is not followed either.
    @Test func symbolicLinksOutOfTheRootAreNotFollowed() throws {
        let temporary = try makeFolder(["/site/index.html": "<p>hi</p>", "/site/sub/.keep": "", "/outside/secret.txt": "secret"])
        let folder = temporary.path
        let links = [
            ("/site/passwd.txt", "/etc/passwd"), ("/site/secret.txt", folder + "/outside/secret.txt"),
            ("/site/relative.txt", "../outside/secret.txt"), ("/site/out", folder + "/outside"), ("/site/sub/up", "../.."),
            ("/site/inside.html", "index.html"), ("/site/sub/home.html", "../index.html"),
        ]
        for (link, target) in links {
            try FileManager.default.createSymbolicLink(atPath: folder + link, withDestinationPath: target)
        }
        let client = try client(www: folder + "/site")
        for path in ["/passwd.txt", "/secret.txt", "/relative.txt", "/out/secret.txt", "/sub/up/outside/secret.txt"] {
            let reply = try client.send("GET", path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.errorCode == "not_found", "\(path)")
        }
        // Links that stay inside the root are served.
        for path in ["/inside.html", "/sub/home.html"] {
            let reply = try client.send("GET", path)
            #expect(reply.status == 200, "\(path)")
            #expect(reply.body == Array("<p>hi</p>".utf8), "\(path)")
        }
        // The root itself may be reached through a link (an administrator's choice, like /usr/share/passkeyd/www).
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked-site", withDestinationPath: folder + "/site")
        #expect(try self.client(www: folder + "/linked-site").send("GET", "/index.html").status == 200)
        #expect(try self.client(www: folder + "/linked-site").send("GET", "/secret.txt").status == 404)
    }

    /// Only regular files: a FIFO inside `www` is not opened (which would block), a folder is no page.
    @Test func onlyRegularFilesAreServed() throws {
        let temporary = try makeFolder(["/dir/.keep": ""])
        let folder = temporary.path
        #expect(mkfifo(folder + "/pipe.txt", 0o600) == 0)
        let client = try client(www: folder)
        #expect(try client.send("GET", "/pipe.txt").status == 404)
        #expect(try client.send("GET", "/dir").status == 404)
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
