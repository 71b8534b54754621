import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

/// Access tokens and the account lifecycle: the merge answer carries one for the session that goes on, and once a
/// merge or Apple's consent-revoked ended a session, `POST /session/token` refuses it, its access tokens stop working
/// here and introspect as inactive. The lifecycle's account routes refuse a live access token (403), and a stale one
/// is 401 everywhere, as a stale session token is.
@Suite("Access tokens through the account lifecycle")
struct AccessTokenLifecycleTests {
    static func fixture() throws -> AppleFixture { try AppleFixture(extraConfiguration: TokenFixture.backends + ",") }

    static func accessToken(_ reply: ServerReply) throws -> String { try #require(reply.object["accessToken"] as? String) }

    static func sessionID(_ accessToken: String) throws -> String { try #require(try DecodedToken(accessToken).claims["sid"] as? String) }

    /// A fresh access token for the session `token`.
    static func mint(_ fixture: AppleFixture, _ token: String) throws -> String {
        let reply = try TokenFixture.mint(PasskeyClient.bearer(token), with: fixture.client)
        #expect(reply.status == 200, "\(reply.text)")
        return try accessToken(reply)
    }

    static func isInactive(_ fixture: AppleFixture, _ token: String) throws -> Bool {
        try TokenFixture.introspect(token, with: fixture.client).text == #"{"active":false}"#
    }

    /// Keeping either account: the answer's access token names the survivor (with the Apple email it received) and the
    /// session the answer stands for (the signed-in one that goes on, or the new one); the absorbed account's session
    /// mints nothing more, and its access tokens are refused here and inactive, at once.
    @Test(arguments: ["current", "other"])
    func aMergeAnswersWithAnAccessTokenAndEndsTheAbsorbedAccountsTokens(keep: String) throws {
        let fixture = try Self.fixture()
        let accounts = try MergeTests.accounts(fixture)
        let currentAccess = try Self.mint(fixture, accounts.current.token)
        let otherAccess = try Self.mint(fixture, accounts.otherSession)
        let reply = try fixture.merge(try fixture.appleProof(), keep: keep, token: accounts.current.token)
        #expect(reply.status == 200, "\(reply.text)")
        let survivor = keep == "current" ? accounts.current.userID : accounts.otherID
        let accessToken = try Self.accessToken(reply)
        #expect(reply.object["accessTokenExpiresAt"] is String)
        let claims = try DecodedToken(accessToken).claims
        #expect(claims["sub"] as? String == Base64URL.encode(survivor))
        #expect(claims["email"] as? String == AppleTokenMinter.email)
        let (goneSession, goneAccess): (String, String)
        if keep == "current" {
            #expect(reply.object["token"] == nil)
            #expect(try Self.sessionID(accessToken) == (try Self.sessionID(currentAccess)), "the signed-in session goes on")
            (goneSession, goneAccess) = (accounts.otherSession, otherAccess)
        } else {
            let token = try #require(reply.object["token"] as? String)
            let session = try TokenFixture.introspect(token, with: fixture.client)
            #expect(session.object["active"] as? Bool == true)
            #expect(try Self.sessionID(accessToken) == session.object["sid"] as? String, "the new session's")
            (goneSession, goneAccess) = (accounts.current.token, currentAccess)
        }
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accessToken))
        #expect(me.status == 200 && (me.object["user"] as? [String: Any])?["id"] as? String == Base64URL.encode(survivor))
        let refused = try TokenFixture.mint(PasskeyClient.bearer(goneSession), with: fixture.client)
        #expect(refused.status == 401 && refused.errorCode == "not_signed_in", "\(refused.text)")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(goneAccess)).errorCode == "not_signed_in")
        #expect(try Self.isInactive(fixture, goneAccess) && Self.isInactive(fixture, goneSession))
        #expect(try TokenFixture.introspect(accessToken, with: fixture.client).object["active"] as? Bool == true)
    }

    /// consent-revoked ends the Apple identity's sessions: they mint nothing more and their access tokens stop at once
    /// (here and by introspection); the account's passkey session is not touched.
    @Test func consentRevokedEndsTheIdentitysTokens() throws {
        let fixture = try Self.fixture()
        let first = try fixture.signInFresh()
        let appleSession = try #require(first.object["token"] as? String)
        let appleAccess = try Self.accessToken(first)
        #expect(try DecodedToken(appleAccess).claims["amr"] as? [String] == ["apple"])
        let passkey = try fixture.client.addPasskey(token: appleSession)
        let passkeySession = try #require(try fixture.client.signIn(passkey).object["token"] as? String)
        _ = try Self.mint(fixture, appleSession)
        #expect(try fixture.notify(AppleFixture.event("consent-revoked")).status == 200)
        let refused = try TokenFixture.mint(PasskeyClient.bearer(appleSession), with: fixture.client)
        #expect(refused.status == 401 && refused.errorCode == "not_signed_in", "\(refused.text)")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(appleAccess)).errorCode == "not_signed_in")
        #expect(try Self.isInactive(fixture, appleAccess) && Self.isInactive(fixture, appleSession))
        let passkeyAccess = try Self.mint(fixture, passkeySession)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(passkeyAccess)).status == 200, "not the passkey's")
    }

    /// Merging, declining a link suggestion, unlinking Apple, handing the session to a web view and linking an Apple ID
    /// all manage the account: a live access token gets `403 insufficient_scope` (naming the scope it lacks, RFC 6750)
    /// and changes nothing; once its session is gone the same token is `401 not_signed_in` there too.
    @Test func theLifecyclesAccountRoutesRefuseAnAccessToken() throws {
        let fixture = try Self.fixture()
        let accounts = try MergeTests.accounts(fixture)
        let access = try Self.mint(fixture, accounts.current.token)
        let raw = AppleFixture.rawNonce()
        let routes: [(String, String, [UInt8]?)] = [
            ("POST", "/me/merge", try AppleTokenMinter.json(["proof": try fixture.appleProof(), "keep": "current"])),
            ("POST", "/me/link-suggestion/decline", Array("{}".utf8)),
            ("DELETE", "/me/apple/\(AppleTokenMinter.subject)", nil),
            ("POST", "/session/handoff", Array("{}".utf8)),
            ("POST", "/auth/apple", try AppleTokenMinter.json(["identityToken": try fixture.identityToken(rawNonce: raw), "rawNonce": raw])),
        ]
        for (method, path, body) in routes {
            let reply = try fixture.client.send(method, path, json: body, headers: PasskeyClient.bearer(access))
            #expect(reply.status == 403 && reply.errorCode == "insufficient_scope", "\(method) \(path): \(reply.text)")
            #expect(reply.headers["WWW-Authenticate"] == #"Bearer error="insufficient_scope""#, "\(method) \(path)")
        }
        #expect(try fixture.store.user(id: accounts.otherID) != nil && fixture.store.user(id: accounts.current.userID) != nil)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.userID == accounts.otherID)
        #expect(try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(accounts.current.token)).status == 200)
        for (method, path, body) in routes + [("DELETE", "/me", nil), ("GET", "/me", nil)] {
            let reply = try fixture.client.send(method, path, json: body, headers: PasskeyClient.bearer(access))
            #expect(reply.status == 401 && reply.errorCode == "not_signed_in", "stale, \(method) \(path): \(reply.text)")
        }
    }

    /// A recovery code's restricted session is no sign-in for the app's API: its answer carries no access token and
    /// `POST /session/token` refuses it, so no token claims an account whose owner has not added a passkey yet. The
    /// passkey it registers answers with a full session and its access token.
    @Test func aRecoverySessionGetsNoAccessToken() throws {
        let fixture = try TokenFixture()
        let (account, _) = try fixture.register("rita")
        let codes = try fixture.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(account.token))
        let code = try #require((codes.object["codes"] as? [String])?.first)
        let recovered = try fixture.client.send(
            "POST",
            "/auth/recovery",
            json: try AppleTokenMinter.json(["username": "rita", "code": code])
        )
        #expect(recovered.status == 200 && recovered.object["restricted"] as? Bool == true, "\(recovered.text)")
        #expect(recovered.object["accessToken"] == nil && recovered.object["accessTokenExpiresAt"] == nil)
        let token = try #require(recovered.object["token"] as? String)
        let refused = try fixture.mint(PasskeyClient.bearer(token))
        #expect(refused.status == 403 && refused.errorCode == "recovery_session_restricted", "\(refused.text)")
        let passkey = try fixture.client.addPasskey(token: token)
        let signedIn = try fixture.client.signIn(passkey)
        #expect(signedIn.status == 200 && signedIn.object["accessToken"] is String, "\(signedIn.text)")
    }
}
