import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Access tokens: every sign-in answer carries one, `POST /session/token` mints one for a live session only, its claims
/// are RFC 9068's with the session's `sid`, `auth_time` and `amr`, it verifies with the served JWKS, it stands for its
/// session only on the read-only routes, and every refusal (forged, expired, foreign, dead session) holds.
@Suite struct AccessTokenTests {
    @Test func signInAnswersCarryAnAccessTokenWithTheSessionsClaims() throws {
        let fixture = try TokenFixture()
        let registered = try fixture.client.registrationVerify(
            try fixture.client.answer(try fixture.client.registrationOptions(username: "ada").decode(PublicKeyCredentialCreationOptionsJSON.self)).1
        )
        #expect(registered.status == 200)
        let token = try #require(registered.object["accessToken"] as? String)
        #expect(registered.object["accessTokenExpiresAt"] is String)
        let decoded = try DecodedToken(token)
        #expect(decoded.header["typ"] as? String == "at+jwt")
        #expect(decoded.header["alg"] as? String == "ES256")
        let user = try #require(registered.object["user"] as? [String: Any])
        let userID = try #require(user["id"] as? String)
        let session = try #require(try fixture.sessions(of: try PasskeyClient.bytes(userID)).first)
        let now = Int64(fixture.clock.now.timeIntervalSince1970)
        let claims = decoded.claims
        #expect(claims["iss"] as? String == "https://example.com")
        #expect(claims["aud"] as? String == "example.com")
        #expect(claims["sub"] as? String == userID)
        #expect(claims["sid"] as? String == Base64URL.encode(session.id))
        #expect(claims["sid"] as? String != registered.object["token"] as? String)
        #expect((claims["iat"] as? Int64) == now && (claims["nbf"] as? Int64) == now && (claims["exp"] as? Int64) == now + 900)
        #expect((claims["auth_time"] as? Int64) == Int64(session.authenticatedAt.timeIntervalSince1970))
        #expect(claims["amr"] as? [String] == ["pop", "user", "mfa"])
        #expect(claims["username"] as? String == "ada")
        #expect(claims["client_id"] as? String == "example.com")
        #expect((claims["jti"] as? String).flatMap(Base64URL.decode)?.count == 16)
        #expect(claims["email"] == nil)
        // It verifies with the served JWKS, under the key its kid names.
        let keyID = try #require(decoded.keyID)
        let key = try #require(try fixture.jwks()[keyID])
        #expect(try CompactJWS(token).verifySignature(with: key, allowedAlgorithms: ["ES256"]))
    }

    @Test func aSignInWithoutUserVerificationIsNotMultiFactor() throws {
        let fixture = try TokenFixture()
        let account = try fixture.client.register("bob")
        let reply = try fixture.client.signIn(account.credential, .init(flags: [.userPresent], signCount: 1))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try DecodedToken(try #require(reply.object["accessToken"] as? String)).claims["amr"] as? [String] == ["pop", "user"])
    }

    @Test func sessionTokenMintsAFreshTokenForALiveSessionOnly() throws {
        let fixture = try TokenFixture()
        let (account, first) = try fixture.register("carol")
        let minted = try fixture.mint(PasskeyClient.bearer(account.token))
        #expect(minted.status == 200, "\(minted.text)")
        #expect(minted.headers["Cache-Control"] == "no-store")
        #expect(minted.object["tokenType"] as? String == "Bearer")
        let second = try #require(minted.object["accessToken"] as? String)
        #expect(try DecodedToken(second).claims["jti"] as? String != (try DecodedToken(first).claims["jti"] as? String))
        #expect(try DecodedToken(second).claims["sid"] as? String == (try DecodedToken(first).claims["sid"] as? String))
        // The cookie works with the site's Origin, and not without it (a write by cookie).
        let cookie = ("Cookie", "__Host-passkeyd_session=\(account.token)")
        #expect(try fixture.mint([cookie, ("Origin", "https://example.com")]).status == 200)
        #expect(try fixture.mint([cookie]).errorCode == "origin_mismatch")
        #expect(try fixture.mint([cookie, ("Origin", "https://evil.example")]).status == 403)
        // An access token cannot mint another: a leaked one dies with its lifetime.
        let refused = try fixture.mint(PasskeyClient.bearer(first))
        #expect(refused.status == 403)
        #expect(refused.errorCode == "insufficient_scope")
        #expect(try fixture.mint([]).errorCode == "not_signed_in")
        // After logout the session is gone: no more tokens, and the ones it had stop working here.
        #expect(try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try fixture.mint(PasskeyClient.bearer(account.token)).errorCode == "not_signed_in")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(second)).errorCode == "not_signed_in")
    }

    @Test func anAccessTokenReadsTheAccountButManagesNothing() throws {
        let fixture = try TokenFixture()
        let (account, token) = try fixture.register("dave")
        let bearer = PasskeyClient.bearer(token)
        let me = try fixture.client.send("GET", "/me", headers: bearer)
        #expect(me.status == 200)
        #expect((me.object["user"] as? [String: Any])?["name"] as? String == "dave")
        #expect(try fixture.client.send("GET", "/me/passkeys", headers: bearer).status == 200)
        let credentialID = Base64URL.encode(account.credential.id)
        for (method, path, body) in [
            ("DELETE", "/me", nil), ("PATCH", "/me/passkeys/\(credentialID)", Array(#"{"name": "x"}"#.utf8)),
            ("DELETE", "/me/passkeys/\(credentialID)", nil), ("POST", "/logout", nil), ("POST", "/session/token", nil),
            ("POST", "/webauthn/registration/options", Array("{}".utf8)),
        ] as [(String, String, [UInt8]?)] {
            let reply = try fixture.client.send(method, path, json: body, headers: bearer)
            #expect(reply.status == 403, "\(method) \(path): \(reply.text)")
            #expect(reply.errorCode == "insufficient_scope", "\(method) \(path)")
        }
        // Nothing changed: the account, its passkey and its session are all there.
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try fixture.store.credential(id: account.credential.id) != nil)
        // A token that does not verify is no credential at all, on every route.
        var tampered = Array(token.utf8)
        tampered[tampered.count - 3] = tampered[tampered.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let bad = PasskeyClient.bearer(String(decoding: tampered, as: UTF8.self))
        #expect(try fixture.client.send("DELETE", "/me", headers: bad).errorCode == "not_signed_in")
        #expect(try fixture.client.send("GET", "/me", headers: bad).errorCode == "not_signed_in")
    }

    @Test func anAccessTokenEndsWithItsLifetimeItsSessionAndItsAccount() throws {
        let fixture = try TokenFixture()
        let (account, token) = try fixture.register("erin")
        fixture.clock.advance(by: 899)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        fixture.clock.advance(by: 1)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).errorCode == "not_signed_in")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)

        let fresh = try #require(try fixture.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(fresh)).errorCode == "not_signed_in")
        #expect(try fixture.mint(PasskeyClient.bearer(account.token)).errorCode == "not_signed_in", "no token for a deleted account")
    }

    @Test func noTokenOutlivesItsSession() throws {
        let json = TokenFixture.configuration.replacingOccurrences(of: #""www": null,"#, with: #""www": null, "sessions": {"lifetimeSeconds": 120},"#)
        let fixture = try TokenFixture(json)
        let (_, token) = try fixture.register("fay")
        let claims = try DecodedToken(token).claims
        #expect((claims["exp"] as? Int64) == (claims["iat"] as? Int64).map { $0 + 120 })
    }

    /// Tokens the server did not sign as it signs them: alg none, HS256 keyed with the public JWK, another key under a
    /// served kid, another issuer or audience signed by the deployment's own key, an unknown kid, no typ.
    @Test func forgedTokensAreRefused() throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let fixture = try TokenFixture(store: store, clock: clock)
        let (_, token) = try fixture.register("gus")
        let decoded = try DecodedToken(token)
        let signature = String(token.split(separator: ".")[2])
        let refused = { (forged: String, label: String) throws in
            let reply = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(forged))
            #expect(reply.errorCode == "not_signed_in", "\(label): \(reply.text)")
            #expect(try fixture.introspect(forged).object as NSDictionary == ["active": false] as NSDictionary, "\(label)")
        }
        var none = decoded.header
        none["alg"] = "none"
        try refused(try DecodedToken.forge(header: none, claims: decoded.claims, signature: ""), "alg none")
        try refused(try DecodedToken.forge(header: none, claims: decoded.claims, signature: signature), "alg none with a signature")
        var hmac = decoded.header
        hmac["alg"] = "HS256"
        try refused(
            try DecodedToken.forge(header: hmac, claims: decoded.claims, signature: Base64URL.encode([UInt8](repeating: 1, count: 32))),
            "HS256"
        )
        var noType = decoded.header
        noType["typ"] = nil
        try refused(try DecodedToken.forge(header: noType, claims: decoded.claims, signature: signature), "no typ")
        var unknown = decoded.header
        unknown["kid"] = "not-a-served-kid"
        try refused(try DecodedToken.forge(header: unknown, claims: decoded.claims, signature: signature), "unknown kid")
        var longer = decoded.claims
        longer["exp"] = (longer["exp"] as! Int64) + 86_400
        try refused(try DecodedToken.forge(header: decoded.header, claims: longer, signature: signature), "a changed exp")

        // Another key under the served kid.
        let foreign = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: try #require(decoded.keyID))
        try refused(
            try CompactJWS.sign(payload: Array(try JSONSerialization.data(withJSONObject: decoded.claims)), type: "at+jwt", with: foreign),
            "a foreign key"
        )

        // The deployment's own key, but another issuer, or another audience (a second server on the same store and secret).
        for (label, member) in [
            ("another issuer", #""tokens": {"issuer": "https://evil.example"}"#), ("another audience", #""tokens": {"audiences": ["other-app"]}"#),
        ] {
            let other = try TokenFixture(
                TokenFixture.configuration.replacingOccurrences(of: #""www": null,"#, with: #""www": null, \#(member),"#),
                store: store,
                clock: clock
            )
            let account = try other.client.register("\(label.split(separator: " ").last!)-user")
            let otherToken = try #require(try other.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
            #expect(try DecodedToken(otherToken).keyID == decoded.keyID, "\(label): one key for the store")
            try refused(otherToken, label)
        }
    }

    /// ECDSA malleability: the high-S twin `(r, n - s)` of an issued ES256 token verifies under OpenSSL, but passkeyd
    /// issues only low-S signatures and refuses the twin of its own token (`GET /me`, introspection).
    @Test func theHighSTwinOfAnIssuedTokenIsRefused() throws {
        let fixture = try TokenFixture()
        for index in 0..<8 {
            let (_, token) = try fixture.register("twin-\(index)")
            let parts = token.split(separator: ".").map(String.init)
            let raw = try #require(Base64URL.decode(parts[2]))
            #expect(ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256), "issued low")
            let twin = parts[0] + "." + parts[1] + "." + Base64URL.encode(ECDSAHighSTwin.of(raw))
            let verifies = try fixture.jwks().values.contains { key in
                key.verify(
                    signature: try #require(ECDSASignatureEncoding.derEncoded(raw: ECDSAHighSTwin.of(raw), curve: .p256)),
                    message: Array((parts[0] + "." + parts[1]).utf8),
                    algorithm: .ecdsaSHA256
                )
            }
            #expect(verifies, "the twin is a valid ECDSA signature")
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(twin)).errorCode == "not_signed_in")
            #expect(try fixture.introspect(twin).text == #"{"active":false}"#)
            #expect(try fixture.introspect(token).object["active"] as? Bool == true)
        }
    }

    /// An earlier release issued high-S tokens as often as low ones: a token issued before this server started (an
    /// upgrade) verifies in either form until it expires; one issued since does not (the test above).
    @Test func highSIsToleratedOnlyForTokensIssuedBeforeTheServerStarted() throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let before = try TokenFixture(store: store, clock: clock)
        let (_, token) = try before.register("upgraded")
        let parts = token.split(separator: ".").map(String.init)
        let twin = parts[0] + "." + parts[1] + "." + Base64URL.encode(ECDSAHighSTwin.of(try #require(Base64URL.decode(parts[2]))))
        clock.advance(by: 60)
        let after = try TokenFixture(store: store, clock: clock)
        #expect(try after.introspect(twin).object["active"] as? Bool == true, "issued before this server started")
        #expect(try after.introspect(token).object["active"] as? Bool == true)
        #expect(try before.introspect(twin).text == #"{"active":false}"#, "the server that issued it refuses it")
        let (_, fresh) = try after.register("fresh")
        let freshParts = fresh.split(separator: ".").map(String.init)
        let freshTwin =
            freshParts[0] + "." + freshParts[1] + "." + Base64URL.encode(ECDSAHighSTwin.of(try #require(Base64URL.decode(freshParts[2]))))
        #expect(try after.introspect(freshTwin).text == #"{"active":false}"#)
    }

    @Test func appleSignInsCarryAnAccessTokenWithTheAppleEmail() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.signInFresh()
        let claims = try DecodedToken(try #require(reply.object["accessToken"] as? String)).claims
        #expect(claims["amr"] as? [String] == ["apple"])
        #expect(claims["email"] as? String == AppleTokenMinter.email)
        #expect(claims["email_verified"] as? Bool == true)
        #expect(reply.object["accessTokenExpiresAt"] is String)
    }

    /// A server whose server secret is not the one the keys were sealed under opens none of them and mints nothing,
    /// rather than making keys of its own beside them.
    @Test func keysSealedUnderAnotherSecretAreNotUsed() throws {
        let store = InMemoryStore()
        let fixture = try TokenFixture(store: store)
        let (account, _) = try fixture.register("hal")
        let lines = AppleFixture.LogLines()
        let other = try TokenFixture(store: store, secret: Array(repeating: 0x11, count: 32), log: .messages { lines.append($0) })
        let reply = try other.mint(PasskeyClient.bearer(account.token))
        #expect(reply.status == 503, "\(reply.text)")
        #expect(lines.all.contains { $0.contains("cannot be opened: crypto.decryptionFailed") })
        #expect(try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }.count == 2, "the key and its standby")
    }
}
