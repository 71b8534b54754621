import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import Testing

/// `POST /session/handoff` and `GET /session/handoff?code=…`: a signed-in app hands its session to a web view with a
/// single-use 60-second link; the bearer token never appears in a URL.
@Suite("Session hand-off")
struct SessionHandoffTests {
    static let configured = #""sessions": {"handoffRedirect": "/account?from=app"},"#

    /// The path and query of a hand-off URL.
    static func pathAndQuery(_ url: String) throws -> (path: String, code: String) {
        let components = try #require(URLComponents(string: url))
        return (components.path, try #require(components.queryItems?.first { $0.name == "code" }?.value))
    }

    @Test(arguments: [false, true])
    func aLinkSignsTheWebViewInOnceAndRedirects(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(extraConfiguration: Self.configured, overHTTPS: overHTTPS)
        let alice = try fixture.client.register("alice")
        let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(alice.token))
        #expect(started.status == 200 && started.headers["Cache-Control"] == "no-store")
        let url = try #require(started.object["url"] as? String)
        #expect(url.hasPrefix("https://example.com/session/handoff?code=") && !url.contains(alice.token))
        #expect(started.object["expiresAt"] is String)
        let (path, code) = try Self.pathAndQuery(url)
        // A web view that still holds a dead cookie is not refused: the link replaces it.
        let opened = try fixture.client.send("GET", "\(path)?code=\(code)", headers: [("Cookie", "__Host-passkeyd_session=stale")])
        #expect(opened.status == 303)
        #expect(opened.headers["Location"] == "/account?from=app")
        #expect(opened.headers["Referrer-Policy"] == "no-referrer")
        let cookie = try #require(opened.headers["Set-Cookie"])
        #expect(cookie.hasPrefix("__Host-passkeyd_session=") && cookie.contains("HttpOnly; Secure; SameSite=Strict"))
        let webToken = String(cookie.dropFirst("__Host-passkeyd_session=".count).prefix { $0 != ";" })
        #expect(webToken != alice.token, "a session of its own")
        let me = try fixture.client.send("GET", "/me", headers: [("Cookie", "__Host-passkeyd_session=\(webToken)")])
        #expect(try PasskeyClient.bytes((me.object["user"] as? [String: Any])?["id"] as? String ?? "") == alice.userID)
        let session = try #require(
            try fixture.store.sessions(userID: alice.userID, now: fixture.clock.now).first {
                $0.tokenHash == DigestAlgorithm.sha256.hash(Array(webToken.utf8))
            }
        )
        #expect(session.method == .passkey && session.credentialID == alice.credential.id, "it continues the app's session")
        let reused = try fixture.client.send("GET", "\(path)?code=\(code)")
        #expect(reused.status == 400 && reused.errorCode == "handoff_code_invalid", "single-use")
    }

    @Test func aLinkExpiresAfterAMinuteAndDiesWithItsSession() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        func link() throws -> String {
            let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(alice.token))
            let (path, code) = try Self.pathAndQuery(try #require(started.object["url"] as? String))
            return "\(path)?code=\(code)"
        }
        let late = try link()
        fixture.clock.advance(by: 60)
        #expect(try fixture.client.send("GET", late).errorCode == "handoff_code_invalid")
        let orphan = try link()
        _ = try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(alice.token))
        #expect(try fixture.client.send("GET", orphan).errorCode == "handoff_code_invalid", "the app signed out meanwhile")
        #expect(try fixture.client.send("GET", "/session/handoff?code=").errorCode == "handoff_code_invalid")
        #expect(try fixture.client.send("GET", "/session/handoff?code=" + String(repeating: "A", count: 4000)).errorCode == "handoff_code_invalid")
        #expect(try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8)).status == 401, "only a signed-in app")
    }

    @Test func theDefaultRedirectIsTheRoot() throws {
        let fixture = try AppleFixture()
        let alice = try fixture.client.register("alice")
        let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(alice.token))
        let (path, code) = try Self.pathAndQuery(try #require(started.object["url"] as? String))
        #expect(try fixture.client.send("GET", "\(path)?code=\(code)").headers["Location"] == "/")
    }

    /// `sessions.handoffRedirect` is a path of this origin, checked at start-up.
    @Test(arguments: ["//evil.example/x", "https://evil.example/", "account", "/\\evil.example", "/a b", "/a\u{7}", ""])
    func anotherOriginIsRefusedAtStartUp(_ redirect: String) throws {
        let json = try JSONSerialization.data(withJSONObject: ["sessions": ["handoffRedirect": redirect]])
        #expect(throws: ConfigurationError.self) { _ = try ServerConfiguration(json: json) }
        do {
            _ = try ServerConfiguration(json: json)
        } catch {
            #expect(error.code == .invalidValue && error.description.contains("sessions.handoffRedirect"))
        }
    }
}
