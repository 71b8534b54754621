import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

/// The relying-party server over real HTTPS on 127.0.0.1, driven by curl.
@Suite(.serialized) struct LoopbackTests {
    @Test func healthzOverHTTPS() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let result = try ChildProcess.run("/usr/bin/curl", ["-sk", "--max-time", "10", "-D", "-", "https://127.0.0.1:\(server.port)/healthz"])
        #expect(result.status == 0)
        let text = String(decoding: result.output, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(text.contains("Content-Type: application/json\r\n"))
        #expect(text.hasSuffix(#"{"status":"ok"}"#))
    }

    @Test func accountFlowOverHTTPS() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let client = PasskeyClient(CurlTransport(port: server.port))

        let account = try client.register("alice")
        let discoverable = try client.signIn(account.credential)
        #expect(discoverable.status == 200)
        #expect(discoverable.headers["Set-Cookie"]?.contains("; HttpOnly; Secure; SameSite=Strict") == true)
        let named = try client.signIn(account.credential, username: "alice")
        #expect(named.status == 200)
        let session = try #require(named.object["token"] as? String)

        let second = try client.addPasskey(token: session)
        let me = try client.send("GET", "/me", headers: PasskeyClient.bearer(session))
        #expect(me.status == 200)
        #expect((me.object["passkeys"] as? [[String: Any]])?.count == 2)

        let cookieWrite = try client.send(
            "DELETE",
            "/me/passkeys/" + Base64URL.encode(account.credential.id),
            headers: [("Cookie", "__Host-passkeyd_session=\(session)"), ("Origin", "https://evil.test")]
        )
        #expect(cookieWrite.status == 403)
        #expect(cookieWrite.errorCode == "origin_mismatch")
        let deleted = try client.send(
            "DELETE",
            "/me/passkeys/" + Base64URL.encode(account.credential.id),
            headers: [("Cookie", "__Host-passkeyd_session=\(session)"), ("Origin", "https://example.com")]
        )
        #expect(deleted.status == 200)
        let after = try client.send("GET", "/me", headers: PasskeyClient.bearer(session))
        #expect((after.object["passkeys"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [Base64URL.encode(second.id)])
        #expect(try client.signIn(account.credential).errorCode == "verification_failed")
        #expect(try client.signIn(second, username: "alice").status == 200)

        let last = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), headers: PasskeyClient.bearer(session))
        #expect(last.status == 409)
        #expect(last.errorCode == "last_credential")
    }

    @Test func errorsOverHTTPSAreJSON() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let client = PasskeyClient(CurlTransport(port: server.port))
        let unknown = try client.send("GET", "/nope")
        #expect(unknown.status == 404)
        #expect(unknown.errorCode == "not_found")
        let media = try client.send("POST", "/webauthn/registration/options", json: Array("{}".utf8), headers: [("Content-Type", "text/plain")])
        #expect(media.status == 415)
        #expect(media.errorCode == "unsupported_media_type")
        let traversal = try ChildProcess.run(
            "/usr/bin/curl",
            [
                "-sk", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}",
                "https://127.0.0.1:\(server.port)/%2e%2e/Package.swift",
            ]
        )
        #expect(String(decoding: traversal.output, as: UTF8.self) == "404")
    }
}
