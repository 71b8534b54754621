import CryptoCore
import Foundation
import OutboundHTTP
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The identity providers' web flow (authorization code with PKCE): `GET /auth/{provider}/start` to the Google
/// stand-in's authorization endpoint over real HTTP, its redirect back to `GET /auth/{provider}/callback`, and the code
/// exchanged at the stand-in's token endpoint.
@Suite struct GoogleWebFlowTests {
    let fixture: GoogleFixture

    init() throws {
        fixture = try GoogleFixture()
    }

    init(fixture: GoogleFixture) {
        self.fixture = fixture
    }

    /// A started flow: the provider's authorization URL and its query, and the binding cookie.
    struct Started {
        let authorizeURL: String
        let query: [String: String]
        let cookie: String
    }

    func start(_ provider: String = "google", query: String = "return=%2Fhome&cancel=%2Flogin") throws -> Started {
        let reply = try fixture.client.send("GET", "/auth/\(provider)/start?" + query)
        #expect(reply.status == 302)
        let location = try #require(reply.headers["location"])
        let setCookie = try #require(reply.headers.values("set-cookie").first { $0.hasPrefix(OpenIDWebFlow.style.cookieName + "=") })
        let components = try #require(URLComponents(string: location))
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        return Started(authorizeURL: location, query: query, cookie: String(setCookie.split(separator: ";")[0]))
    }

    /// The stand-in's answer to the browser at its authorization endpoint: the callback path and query it redirects to.
    func authorize(_ started: Started) throws -> String {
        let reply = try fixture.outbound.sendAndWait(HTTPClientRequest(url: started.authorizeURL, deadlineSeconds: 5))
        #expect(reply.status == 302)
        let location = try #require(reply.headers["location"])
        #expect(location.hasPrefix("https://example.com/auth/google/callback?"))
        return String(location.dropFirst("https://example.com".count))
    }

    func callback(_ pathAndQuery: String, cookie: String?) throws -> ServerReply {
        try fixture.client.send("GET", pathAndQuery, headers: cookie.map { [("Cookie", $0)] } ?? [])
    }

    /// Where a continue page sends the browser.
    static func continuesTo(_ reply: ServerReply) -> String? {
        guard let start = reply.text.range(of: "id=\"continue\" href=\""), let end = reply.text[start.upperBound...].range(of: "\"") else {
            return nil
        }
        return String(reply.text[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func aBrowserSignsInWithTheCodeFlowAndPKCE() throws {
        let started = try start()
        #expect(started.query["response_type"] == "code")
        #expect(started.query["client_id"] == GoogleStandIn.webClientID)
        #expect(started.query["redirect_uri"] == "https://example.com/auth/google/callback")
        #expect(started.query["code_challenge_method"] == "S256")
        #expect(started.query["code_challenge"]?.count == 43 && started.query["nonce"]?.count == 64)
        #expect(started.query["scope"] == "openid email profile")
        let reply = try callback(try authorize(started), cookie: started.cookie)
        #expect(reply.status == 200)
        #expect(Self.continuesTo(reply) == "/home")
        let session = try #require(reply.headers.values("set-cookie").first { $0.hasPrefix("__Host-passkeyd_session=") })
        #expect(!session.isEmpty)
        #expect(reply.headers.values("set-cookie").contains(OpenIDWebFlow.style.clearingCookie))
        let identity = try fixture.store.transaction { transaction throws(StorageError) in
            try transaction.federatedIdentity(issuer: GoogleStandIn.issuer, subject: "110169484474386276334")
        }
        #expect(identity?.provider == "google")
    }

    @Test func aStateIsUsedOnceByTheBrowserThatStartedItWithItsProvider() throws {
        let started = try start()
        let back = try authorize(started)
        // Another browser (no cookie, or another flow's).
        #expect(try callback(back, cookie: nil).status == 400)
        let stateless = try callback(back.replacingOccurrences(of: "state=", with: "x="), cookie: started.cookie)
        #expect(stateless.status == 400)
        #expect(stateless.text.contains("identity_state_invalid"))
        // The state was spent by the foreign attempt: the right browser cannot use it any more.
        #expect(try callback(back, cookie: started.cookie).status == 400)
        // A state of the google flow at another provider's callback (a mix-up) is refused.
        let second = try start()
        let mixed = try authorize(second).replacingOccurrences(of: "/auth/google/callback", with: "/auth/corp/callback")
        let refused = try callback(mixed, cookie: second.cookie)
        #expect(refused.status == 400)
        #expect(refused.text.contains("identity_state_invalid"))
    }

    @Test func aResponseFromAnotherIssuerIsAMixUp() throws {
        fixture.standIn.responseIssuer = "https://evil.example"
        let started = try start()
        let reply = try callback(try authorize(started), cookie: started.cookie)
        #expect(Self.continuesTo(reply) == "/login?passkeyd_identity_error=identity_issuer_mismatch")
        #expect(!reply.headers.values("set-cookie").contains { $0.hasPrefix("__Host-passkeyd_session=") })
        // Without iss (a provider that does not send it), the flow completes.
        fixture.standIn.responseIssuer = nil
        let plain = try start()
        #expect(Self.continuesTo(try callback(try authorize(plain), cookie: plain.cookie)) == "/home")
    }

    @Test func theProvidersErrorAndARefusedCodeGoBackToTheAppsPage() throws {
        let cancelled = try start(query: "return=%2Fhome&cancel=%2Flogin&x=1")
        let back = try authorize(cancelled).replacingOccurrences(of: "code=", with: "error=access_denied&ignored=")
        let reply = try callback(back, cookie: cancelled.cookie)
        #expect(Self.continuesTo(reply) == "/login?passkeyd_identity_error=identity_sign_in_cancelled")
        // A code the provider did not issue (or already exchanged) is refused by its token endpoint.
        let started = try start()
        let forged = try authorize(started).replacingOccurrences(of: "code=", with: "code=forged")
        #expect(Self.continuesTo(try callback(forged, cookie: started.cookie)) == "/login?passkeyd_identity_error=invalid_identity_token")
    }

    @Test func aCodeIssuedToAnotherClientIsRefused() throws {
        let standIn = fixture.standIn
        // A second provider at the same issuer under another client ID: its code, delivered to google's callback.
        let corp =
            #""corp": {"type": "oidc", "issuer": "https://accounts.google.com", "clientID": "\#(GoogleStandIn.iosClientID)", "#
            + #""discoveryURL": "\#(standIn.discoveryURL)"},"#
        let both = try GoogleFixture(extraProviders: corp)
        try both.awaitKeyFetches(1, "corp")
        let flow = GoogleWebFlowTests(fixture: both)
        let google = try flow.start()
        let corpFlow = try flow.start("corp")
        let corpBack = try both.outbound.sendAndWait(HTTPClientRequest(url: corpFlow.authorizeURL, deadlineSeconds: 5)).headers["location"] ?? ""
        let corpCode = try #require(URLComponents(string: corpBack)?.queryItems?.first { $0.name == "code" }?.value)
        let googleBack = try flow.authorize(google)
        let swapped = googleBack.replacingOccurrences(of: "code=", with: "code=\(FormFields.encode(corpCode))&unused=")
        let reply = try flow.callback(swapped, cookie: google.cookie)
        #expect(Self.continuesTo(reply) == "/login?passkeyd_identity_error=invalid_identity_token")
        #expect(both.log.contains { $0.contains("the token endpoint answered 400") })
    }

    @Test func anUnknownProviderOrAnOpenRedirectIsAnErrorPage() throws {
        #expect(try fixture.client.send("GET", "/auth/nobody/start").status == 404)
        for path in ["//evil.example/x", "https://evil.example/", "/\\evil.example"] {
            let reply = try fixture.client.send("GET", "/auth/google/start?return=\(FormFields.encode(path))")
            #expect(reply.status == 400)
            #expect(reply.headers["location"] == nil)
        }
    }
}
