import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import Testing

/// Issue 43 item 4, login CSRF through the hand-off link: a browser holding a live session of another account is
/// asked (a page), not switched; only the page's form, posted from this origin, switches it. A browser that came
/// from another site (its `SameSite=Strict` cookie not sent) goes round once through this origin first.
@Suite("Session hand-off: another account")
struct SessionHandoffChoiceTests {
    let fixture: AppleFixture
    let victim: PasskeyClient.Account
    let attacker: PasskeyClient.Account

    init() throws {
        fixture = try AppleFixture(extraConfiguration: SessionHandoffTests.configured)
        victim = try fixture.client.register("victim")
        attacker = try fixture.client.register("attacker")
    }

    /// A hand-off link of `account`, as its path and query.
    func link(of account: PasskeyClient.Account) throws -> String {
        let started = try fixture.client.send("POST", "/session/handoff", json: Array("{}".utf8), headers: PasskeyClient.bearer(account.token))
        let (path, code) = try SessionHandoffTests.pathAndQuery(try #require(started.object["url"] as? String))
        return "\(path)?code=\(code)"
    }

    var victimCookie: [(String, String)] { [("Cookie", "__Host-passkeyd_session=\(victim.token)")] }

    @Test func anotherAccountsLinkAsksInsteadOfSwitching() throws {
        let opened = try fixture.client.send("GET", try link(of: attacker), headers: victimCookie)
        #expect(opened.status == 200 && opened.headers["Set-Cookie"] == nil, "not switched: \(opened.status)")
        #expect(opened.headers["X-Frame-Options"] == "DENY" && opened.headers["Cache-Control"] == "no-store")
        #expect(opened.text.contains("signed in here as <strong>victim</strong>") && opened.text.contains("/session/handoff/switch"))
        #expect(try fixture.client.send("GET", "/me", headers: victimCookie).status == 200, "the victim's session goes on")
        // The page's form carries a new code; another site's form cannot post it.
        let code = try #require(opened.text.components(separatedBy: "name=\"code\" value=\"").dropFirst().first?.prefix { $0 != "\"" })
        for origin in [nil, "https://evil.example"] {
            let forged = try switchWith(String(code), origin: origin)
            #expect(forged.status == 403 && forged.headers["Set-Cookie"] == nil, "\(origin ?? "no Origin"): \(forged.text)")
        }
        // The person chooses to switch, from the page: the other account's session.
        let switched = try switchWith(String(code), origin: "https://example.com")
        #expect(switched.status == 303 && switched.headers["Location"] == "/account?from=app")
        let cookie = try #require(switched.headers["Set-Cookie"])
        let token = String(cookie.dropFirst("__Host-passkeyd_session=".count).prefix { $0 != ";" })
        let me = try fixture.client.send("GET", "/me", headers: [("Cookie", "__Host-passkeyd_session=\(token)")])
        #expect(try PasskeyClient.bytes((me.object["user"] as? [String: Any])?["id"] as? String ?? "") == attacker.userID)
        #expect(try switchWith(String(code), origin: "https://example.com").errorCode == "handoff_code_invalid", "single-use")
    }

    @Test func theSameAccountsLinkOrNoSessionSignsInAsBefore() throws {
        let own = try fixture.client.send("GET", try link(of: victim), headers: victimCookie)
        #expect(own.status == 303 && own.headers["Set-Cookie"] != nil)
        let fresh = try fixture.client.send("GET", try link(of: attacker))
        #expect(fresh.status == 303 && fresh.headers["Set-Cookie"] != nil, "a web view without a session")
    }

    /// From another site the cookie is not sent, so the server cannot see the victim's session: it answers a page that
    /// opens the link again from this origin (the code unspent), where the cookie comes and the choice is asked.
    @Test func aNavigationFromAnotherSiteGoesRoundThroughThisOrigin() throws {
        let path = try link(of: attacker)
        let bounced = try fixture.client.send("GET", path, headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(bounced.status == 200 && bounced.headers["Set-Cookie"] == nil)
        #expect(bounced.text.contains("url=\(path)\""), "\(bounced.text)")
        let again = try fixture.client.send("GET", path, headers: victimCookie + [("Sec-Fetch-Site", "same-origin")])
        #expect(again.status == 200 && again.headers["Set-Cookie"] == nil && again.text.contains("Switch account?"))
    }

    func switchWith(_ code: String, origin: String?) throws -> ServerReply {
        try fixture.client.send(
            "POST",
            "/session/handoff/switch",
            json: Array("code=\(code)".utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + (origin.map { [("Origin", $0)] } ?? [])
        )
    }
}
