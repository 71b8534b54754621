import CryptoCore
import Foundation
import HTTPServer
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Sign in with Apple's web flow without sockets: `GET /auth/apple/start` and `POST /auth/apple/callback` through
/// `handle`, with identity tokens signed by the stand-in's key; every refusal (state, binding cookie, nonce, audience,
/// Apple's own error) and the open-redirect guard of the return paths.
@Suite("Apple web flow")
struct AppleWebFlowTests {
    static let returnPath = "/oauth/authorize?client_id=web&state=x"
    static let cancelPath = "/oauth/sign-in?client_id=web&state=x"

    let fixture: AppleFixture

    init() throws {
        fixture = try AppleFixture()
    }

    /// A started flow: Apple's query and the binding cookie.
    struct Started {
        let apple: [String: String]
        let cookie: String
        var state: String { apple["state"] ?? "" }
        var nonce: String { apple["nonce"] ?? "" }
    }

    func start(_ query: String = "return=\(FormFields.encode(returnPath))&cancel=\(FormFields.encode(cancelPath))") throws -> Started {
        let reply = try fixture.client.send("GET", "/auth/apple/start?" + query)
        #expect(reply.status == 302, "\(reply.text)")
        let location = try #require(reply.headers["Location"])
        let query = try #require(location.split(separator: "?", maxSplits: 1).last)
        let setCookie = try #require(reply.headers.values("set-cookie").first { $0.hasPrefix(AppleWebFlow.style.cookieName + "=") })
        let cookie = String(setCookie.split(separator: ";")[0])
        return Started(apple: FormFields(String(query)).values, cookie: cookie)
    }

    func callback(_ fields: [(String, String)], cookie: String?) throws -> ServerReply {
        let body = fields.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let cookie { headers.append(("Cookie", cookie)) }
        return try fixture.client.send("POST", "/auth/apple/callback", json: Array(body.utf8), headers: headers)
    }

    /// A token as Apple's web flow makes it: for the Services ID, with the flow's nonce as sent.
    func token(nonce: String, audience: String = AppleTokenMinter.servicesID, subject: String = "001999.web.0001") throws -> String {
        var claims = AppleTokenMinter.identityClaims(now: fixture.clock.now, rawNonce: "", subject: subject, audience: audience)
        claims["nonce"] = nonce
        return try AppleTokenMinter.sign(claims)
    }

    static func sessionCookie(_ reply: ServerReply) -> String? {
        reply.headers.values("set-cookie").first { $0.hasPrefix(SessionService.cookieName + "=") && !$0.contains("Max-Age=0") }
            .map { String($0.split(separator: ";")[0]) }
    }

    static func errorCode(_ reply: ServerReply) -> String? {
        guard let start = reply.text.range(of: "<code>"), let end = reply.text.range(of: "</code>") else { return nil }
        return String(reply.text[start.upperBound..<end.lowerBound])
    }

    @Test func startSendsTheBrowserToAppleWithAStateANonceAndTheBindingCookie() throws {
        let reply = try fixture.client.send("GET", "/auth/apple/start?return=%2F")
        #expect(reply.headers["Location"]?.hasPrefix("https://appleid.apple.com/auth/authorize?") == true)
        let cookie = try #require(reply.headers.values("set-cookie").first)
        #expect(cookie.contains("HttpOnly") && cookie.contains("Secure") && cookie.contains("SameSite=None") && cookie.contains("Path=/"))
        let started = try start()
        #expect(started.apple["client_id"] == AppleTokenMinter.servicesID)
        #expect(started.apple["redirect_uri"] == "https://example.com/auth/apple/callback")
        #expect(started.apple["response_type"] == "code id_token")
        #expect(started.apple["response_mode"] == "form_post")
        #expect(started.apple["scope"] == "name email")
        #expect(started.nonce.count == 64 && started.state.count == 43)
        // Each flow has its own state, nonce and binding.
        let other = try start()
        #expect(other.state != started.state && other.nonce != started.nonce && other.cookie != started.cookie)
    }

    @Test func returnPathsOnOtherSitesAreRefusedWithoutARedirect() throws {
        for path in ["//evil.example/x", "https://evil.example/", "/\\evil.example", "evil", "/a b", "/\r\nSet-Cookie:x", "javascript:alert(1)"] {
            for member in ["return", "cancel"] {
                let reply = try fixture.client.send("GET", "/auth/apple/start?\(member)=\(FormFields.encode(path))")
                #expect(reply.status == 400, "\(member)=\(path)")
                #expect(reply.headers["Location"] == nil)
                #expect(Self.errorCode(reply) == "invalid_return_path")
            }
        }
        #expect(ReturnPath("/%0d%0a") != nil)
        #expect(ReturnPath("/\r\n") == nil)
    }

    @Test func theCallbackSignsInCreatesTheAccountAndContinuesSameSite() throws {
        let started = try start()
        let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@example.com"}"#
        let reply = try callback(
            [("state", started.state), ("code", "c.1"), ("id_token", try token(nonce: started.nonce)), ("user", user)],
            cookie: started.cookie
        )
        #expect(reply.status == 200, "\(reply.text)")
        let escaped = Self.returnPath.replacingOccurrences(of: "&", with: "&amp;")
        #expect(reply.text.contains("content=\"0;url=\(escaped)\""))
        #expect(reply.headers["X-Frame-Options"] == "DENY")
        #expect(reply.headers.values("set-cookie").contains(AppleWebFlow.style.clearingCookie))
        let session = try #require(Self.sessionCookie(reply))
        let me = try fixture.client.send("GET", "/me", headers: [("Cookie", session)]).object
        let account = try #require(me["user"] as? [String: Any])
        #expect(account["displayName"] as? String == "Ada Lovelace")
        // The same identity through a second flow signs in to the same account.
        let again = try start()
        let second = try callback([("state", again.state), ("id_token", try token(nonce: again.nonce))], cookie: again.cookie)
        let secondSession = try #require(Self.sessionCookie(second))
        let meAgain = try fixture.client.send("GET", "/me", headers: [("Cookie", secondSession)]).object
        #expect((meAgain["user"] as? [String: Any])?["id"] as? String == account["id"] as? String)
    }

    /// The web flow's code is exchanged off the request path like an app's, for the Services ID and with the flow's
    /// redirect URI (Apple's token endpoint requires it for a web code), and the refresh token it gives is kept: it is
    /// what is revoked when the account is deleted.
    @Test func theWebFlowsCodeIsExchangedWithItsRedirectURI() throws {
        let started = try start()
        let reply = try callback(
            [("state", started.state), ("code", "c.web-1"), ("id_token", try token(nonce: started.nonce))],
            cookie: started.cookie
        )
        #expect(reply.status == 200, "\(reply.text)")
        #expect(fixture.standIn.calls(to: "/auth/token").isEmpty, "nothing happens on the request path")
        fixture.server.processDueAppleWork()
        let call = try #require(fixture.standIn.calls(to: "/auth/token").first)
        #expect(call.form["code"] == "c.web-1")
        #expect(call.form["client_id"] == AppleTokenMinter.servicesID)
        #expect(call.form["redirect_uri"] == "https://example.com/auth/apple/callback")
        #expect(call.form["grant_type"] == "authorization_code")
        #expect(try fixture.store.appleRefreshTokens(subject: "001999.web.0001").map(\.clientID) == [AppleTokenMinter.servicesID])
    }

    @Test func aMissingWrongOrUsedStateIsRefused() throws {
        let started = try start()
        let token = try token(nonce: started.nonce)
        let missing = try callback([("id_token", token)], cookie: started.cookie)
        #expect(missing.status == 400 && Self.errorCode(missing) == "apple_state_invalid")
        let wrong = try callback([("state", Base64URL.encode(SystemRandom().bytes(count: 32))), ("id_token", token)], cookie: started.cookie)
        #expect(wrong.status == 400 && Self.errorCode(wrong) == "apple_state_invalid")
        #expect(Self.sessionCookie(wrong) == nil)
        let first = try callback([("state", started.state), ("id_token", token)], cookie: started.cookie)
        #expect(first.status == 200)
        let reused = try callback([("state", started.state), ("id_token", token)], cookie: started.cookie)
        #expect(reused.status == 400 && Self.errorCode(reused) == "apple_state_invalid")
        #expect(Self.sessionCookie(reused) == nil)
    }

    @Test func anExpiredStateIsRefused() throws {
        let started = try start()
        fixture.clock.advance(by: WebSignInController.stateLifetime + 1)
        let reply = try callback([("state", started.state), ("id_token", try token(nonce: started.nonce))], cookie: started.cookie)
        #expect(reply.status == 400 && Self.errorCode(reply) == "apple_state_invalid")
    }

    @Test func anotherBrowsersAnswerIsRefused() throws {
        let started = try start()
        let other = try start()
        let token = try token(nonce: started.nonce)
        let withoutCookie = try callback([("state", started.state), ("id_token", token)], cookie: nil)
        #expect(withoutCookie.status == 400 && Self.errorCode(withoutCookie) == "apple_state_invalid")
        // The state was used up by the refusal: an attacker's answer cannot be replayed into the victim's browser either.
        let retried = try callback([("state", started.state), ("id_token", token)], cookie: started.cookie)
        #expect(retried.status == 400)
        let third = try start()
        let wrongCookie = try callback([("state", third.state), ("id_token", try self.token(nonce: third.nonce))], cookie: other.cookie)
        #expect(wrongCookie.status == 400 && Self.errorCode(wrongCookie) == "apple_state_invalid")
        #expect(Self.sessionCookie(wrongCookie) == nil)
    }

    @Test func aWrongNonceIsRefused() throws {
        let started = try start()
        let other = try start()
        let reply = try callback([("state", started.state), ("id_token", try token(nonce: other.nonce))], cookie: started.cookie)
        #expect(reply.status == 401 && Self.errorCode(reply) == "invalid_identity_token")
        #expect(Self.sessionCookie(reply) == nil)
    }

    @Test func aTokenForAnotherAudienceIsRefused() throws {
        // The team's app (a bundle ID the native flow accepts) is not the web flow's Services ID.
        let started = try start()
        let reply = try callback(
            [("state", started.state), ("id_token", try token(nonce: started.nonce, audience: AppleTokenMinter.bundleID))],
            cookie: started.cookie
        )
        #expect(reply.status == 401 && Self.errorCode(reply) == "invalid_identity_token")
        let foreign = try start()
        let stranger = try callback(
            [("state", foreign.state), ("id_token", try token(nonce: foreign.nonce, audience: "com.other.web"))],
            cookie: foreign.cookie
        )
        #expect(stranger.status == 401 && Self.sessionCookie(stranger) == nil)
    }

    @Test func applesErrorReturnsToTheCancelPathWithoutASession() throws {
        let started = try start()
        let reply = try callback([("state", started.state), ("error", "user_cancelled_authorize")], cookie: started.cookie)
        #expect(reply.status == 200)
        let expected = (Self.cancelPath + "&passkeyd_apple_error=apple_sign_in_cancelled").replacingOccurrences(of: "&", with: "&amp;")
        #expect(reply.text.contains("url=\(expected)\""), "\(reply.text)")
        #expect(Self.sessionCookie(reply) == nil)
        // The cancel used the state up.
        let after = try callback([("state", started.state), ("id_token", try token(nonce: started.nonce))], cookie: started.cookie)
        #expect(after.status == 400)
    }

    @Test func withoutAppleTheStartIsAnErrorPage() throws {
        let plain = try TokenFixture(OpenIDProviderTests.configuration)
        let reply = try plain.client.send("GET", "/auth/apple/start")
        #expect(reply.status == 400 && Self.errorCode(reply) == "apple_not_configured")
        #expect(reply.headers["Location"] == nil)
    }
}
