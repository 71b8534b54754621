import Foundation
import Storage
import TestSupport
import Testing

/// Issue 43 item 5: the OpenID provider asks a signed-in person before a public client's first grant and on
/// `prompt=consent` (the hosted page's consent view), remembers the grant, and checks a loopback redirect's port.
@Suite struct OpenIDConsentTests {
    @Test func aPublicClientsFirstGrantIsAskedThenRemembered() throws {
        let provider = try OpenIDProviderTests(consented: false)
        let query = OpenIDProviderTests.authorizeQuery()
        // Signed in, but never asked: the consent view, not a code.
        let first = try provider.authorize(query)
        #expect(first.status == 302 && OpenIDProviderTests.asksConsent(first), "\(first.headers["Location"] ?? "")")
        #expect(OpenIDProviderTests.parameters(first)["code"] == nil)
        // prompt=none cannot show it.
        let silent = try provider.authorize(OpenIDProviderTests.authorizeQuery(extra: [("prompt", "none")]))
        #expect(OpenIDProviderTests.parameters(silent)["error"] == "consent_required")
        // What the page shows comes from the server: the registered client's name, its scopes, the account.
        let asked = try provider.fixture.client.send("GET", "/oauth/consent?" + query, headers: provider.cookie)
        #expect(asked.status == 200, "\(asked.text)")
        #expect(asked.object["clientName"] as? String == "iOS app" && asked.object["clientId"] as? String == "ios")
        #expect(asked.object["username"] as? String == "olivia" && asked.object["scopes"] as? [String] == ["openid", "profile", "email"])
        // Allow: the code, to the registered redirect URI with the state.
        let allowed = try OpenIDProviderTests.allow(query, cookie: provider.cookie, with: provider.fixture.client)
        let redirect = try #require(allowed.object["redirect"] as? String, "\(allowed.text)")
        #expect(redirect.hasPrefix("com.example.app:/callback?code="))
        #expect(OpenIDProviderTests.parameters(location: redirect)["state"] == "st&ate=1")
        // Until the code is exchanged there is no grant, and the next request is asked again; after, it goes through.
        #expect(OpenIDProviderTests.asksConsent(try provider.authorize(query)))
        let code = try #require(OpenIDProviderTests.parameters(location: redirect)["code"])
        #expect(try provider.exchange(code).status == 200)
        #expect(OpenIDProviderTests.parameters(try provider.authorize(query))["code"] != nil, "the grant remembers the consent")
        // prompt=consent asks again, whatever is remembered.
        #expect(OpenIDProviderTests.asksConsent(try provider.authorize(OpenIDProviderTests.authorizeQuery(extra: [("prompt", "consent")]))))
        // Cancelling on the consent view is access_denied.
        let denied = try provider.authorize(query + "&passkeyd_cancel=1")
        #expect(OpenIDProviderTests.parameters(denied)["error"] == "access_denied")
    }

    @Test func aConfidentialClientIsAskedOnlyOnPromptConsent() throws {
        let provider = try OpenIDProviderTests(consented: false)
        let web = OpenIDProviderTests.authorizeQuery(
            client: "web",
            redirect: "https://web.example/callback",
            extra: [("scope", "openid email")],
            without: ["scope"]
        )
        #expect(OpenIDProviderTests.parameters(try provider.authorize(web))["code"] != nil)
        let prompted = web + "&prompt=consent"
        #expect(OpenIDProviderTests.asksConsent(try provider.authorize(prompted)))
        // prompt=login consent: a new sign-in first (the page keeps consent when it comes back).
        #expect(try provider.authorize(web + "&prompt=login%20consent").headers["Location"]?.hasPrefix("/oauth/sign-in?") == true)
        let allowed = try OpenIDProviderTests.allow(prompted, cookie: provider.cookie, with: provider.fixture.client)
        #expect((allowed.object["redirect"] as? String)?.hasPrefix("https://web.example/callback?code=") == true, "\(allowed.text)")
    }

    /// The "Allow" is a cookie-authenticated write: from a relying-party origin only, with a live session of a sign-in
    /// within `max_age`; a bearer token (an app's) cannot consent for the person; the request is checked again.
    @Test func consentIsRefusedWithoutItsConditions() throws {
        let provider = try OpenIDProviderTests(consented: false)
        let client = provider.fixture.client
        let query = OpenIDProviderTests.authorizeQuery()
        for origin in [nil, "https://evil.example"] {
            let reply = try OpenIDProviderTests.allow(query, cookie: provider.cookie, with: client, origin: origin)
            #expect(reply.status == 403 && reply.errorCode == "origin_mismatch", "\(origin ?? "no Origin"): \(reply.text)")
        }
        let bearer = try OpenIDProviderTests.allow(query, cookie: PasskeyClient.bearer(provider.account.token), with: client)
        #expect(bearer.status == 401 && bearer.errorCode == "not_signed_in", "\(bearer.text)")
        let stale = try OpenIDProviderTests.allow(query, cookie: [("Cookie", "__Host-passkeyd_session=stale")], with: client)
        #expect(stale.errorCode == "not_signed_in")
        #expect(
            try OpenIDProviderTests.allow(
                query.replacingOccurrences(of: "client_id=ios", with: "client_id=nobody"),
                cookie: provider.cookie,
                with: client
            ).errorCode == "invalid_client"
        )
        let elsewhere = query.replacingOccurrences(of: "com.example.app", with: "com.evil.app")
        #expect(try OpenIDProviderTests.allow(elsewhere, cookie: provider.cookie, with: client).errorCode == "invalid_redirect_uri")
        #expect(
            try OpenIDProviderTests.allow(query + "&code_challenge_method=plain", cookie: provider.cookie, with: client).errorCode
                == "invalid_request"
        )
        provider.fixture.clock.advance(by: 120)
        #expect(try OpenIDProviderTests.allow(query + "&max_age=60", cookie: provider.cookie, with: client).errorCode == "login_required")
        #expect(try client.send("GET", "/oauth/consent?" + query).errorCode == "not_signed_in")
        let grants = try provider.fixture.store.transaction { transaction throws(StorageError) in
            try transaction.oauthGrants(userID: provider.account.userID, clientID: "ios")
        }
        #expect(grants.isEmpty, "nothing was allowed")
    }

    /// RFC 8252 §7.3, §8.6: a loopback redirect on the app's port, a TCP port written plainly.
    @Test(arguments: [
        ("http://127.0.0.1:1/cb", true), ("http://127.0.0.1:65535/cb", true), ("http://127.0.0.1:49152/cb", true), ("http://127.0.0.1/cb", true),
        ("http://127.0.0.1:0/cb", false), ("http://127.0.0.1:99999/cb", false), ("http://127.0.0.1:65536/cb", false),
        ("http://127.0.0.1:/cb", false), ("http://127.0.0.1:080/cb", false), ("http://127.0.0.1:-1/cb", false), ("http://127.0.0.1:8o/cb", false),
    ])
    func loopbackRedirectPortsAreChecked(redirect: String, accepted: Bool) throws {
        let provider = try OpenIDProviderTests()
        let reply = try provider.authorize(OpenIDProviderTests.authorizeQuery(redirect: redirect))
        if accepted {
            #expect(reply.status == 302 && reply.headers["Location"]?.hasPrefix(redirect + "?") == true, "\(redirect): \(reply.status)")
        } else {
            #expect(reply.status == 400 && reply.headers["Location"] == nil, "\(redirect): \(reply.status) \(reply.headers["Location"] ?? "")")
            #expect(reply.text.contains("invalid_redirect_uri"), "\(redirect)")
        }
    }
}
