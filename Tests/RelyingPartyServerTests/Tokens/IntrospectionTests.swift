import CryptoCore
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Storage

/// `POST /introspect` (RFC 7662) for the app's backends: the backend key, both kinds of token, the transitions to
/// inactive on logout and deletion (merge and consent-revoked: `AccessTokenLifecycleTests`), and the same work for
/// every unknown token.
@Suite struct IntrospectionTests {
    @Test func onlyAConfiguredBackendKeyMayIntrospect() throws {
        let fixture = try TokenFixture()
        let (account, _) = try fixture.register("lee")
        for headers in [
            [], [("Authorization", "Bearer wrong-key")], [("Authorization", "Bearer \(account.token)")],
            [("Authorization", "Basic \(TokenFixture.backendKey)")],
        ] {
            let reply = try fixture.client.send(
                "POST",
                "/introspect",
                json: Array("token=\(account.token)".utf8),
                headers: headers + [("Content-Type", "application/x-www-form-urlencoded")]
            )
            #expect(reply.status == 401, "\(headers)")
            #expect(reply.errorCode == "invalid_backend_key")
            #expect(reply.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        }
        // Without any backends configured, nothing may introspect.
        let bare = try TokenFixture(TestServerFactory.baseConfiguration)
        #expect(try bare.introspect(account.token).errorCode == "invalid_backend_key")
        #expect(
            try fixture.client.send(
                "POST",
                "/introspect",
                json: Array("x=1".utf8),
                headers: [("Authorization", "Bearer \(TokenFixture.backendKey)"), ("Content-Type", "application/x-www-form-urlencoded")]
            ).errorCode == "invalid_request"
        )
        #expect(
            try fixture.client.send(
                "POST",
                "/introspect",
                json: Array("token=a".utf8),
                headers: [("Authorization", "Bearer \(TokenFixture.backendKey)"), ("Content-Type", "text/plain")]
            ).errorCode == "unsupported_media_type"
        )
    }

    @Test func liveTokensAreActiveWithTheirFacts() throws {
        let fixture = try TokenFixture()
        let (account, accessToken) = try fixture.register("mia")
        let claims = try DecodedToken(accessToken).claims
        let session = try fixture.introspect(account.token)
        #expect(session.status == 200)
        #expect(session.headers["Cache-Control"] == "no-store")
        #expect(session.object["active"] as? Bool == true)
        #expect(session.object["token_use"] as? String == "session" && session.object["token_type"] as? String == "Bearer")
        #expect(session.object["sub"] as? String == Base64URL.encode(account.userID))
        #expect(session.object["username"] as? String == "mia")
        #expect(session.object["sid"] as? String == claims["sid"] as? String)
        #expect(session.object["exp"] is Int && session.object["iat"] is Int)
        for form in [true, false] {
            let access = try fixture.introspect(accessToken, form: form)
            #expect(access.object["active"] as? Bool == true, "\(access.text)")
            #expect(access.object["token_use"] as? String == "access")
            #expect(access.object["sub"] as? String == claims["sub"] as? String)
            #expect(access.object["exp"] as? Int64 == claims["exp"] as? Int64)
            #expect(access.object["iss"] as? String == "https://example.com" && access.object["aud"] as? [String] == ["example.com"])
            #expect(access.object["sid"] as? String == claims["sid"] as? String && access.object["username"] as? String == "mia")
        }
        for unknown in ["", "x", "not.a.token", Base64URL.encode(SystemRandom().bytes(count: 32))] where !unknown.isEmpty {
            #expect(try fixture.introspect(unknown).text == #"{"active":false}"#, "\(unknown)")
        }
        fixture.clock.advance(by: 900)
        #expect(try fixture.introspect(accessToken).text == #"{"active":false}"#, "expired")
        #expect(try fixture.introspect(account.token).object["active"] as? Bool == true)
    }

    @Test func logoutAndDeletionMakeTokensInactiveAtOnce() throws {
        let fixture = try TokenFixture()
        let (loggedOut, loggedOutAccess) = try fixture.register("nia")
        #expect(try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(loggedOut.token)).status == 200)
        #expect(try fixture.introspect(loggedOut.token).text == #"{"active":false}"#)
        #expect(try fixture.introspect(loggedOutAccess).text == #"{"active":false}"#)

        let (deleted, deletedAccess) = try fixture.register("oli")
        #expect(try fixture.introspect(deletedAccess).object["active"] as? Bool == true)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(deleted.token)).status == 200)
        #expect(try fixture.introspect(deleted.token).text == #"{"active":false}"#)
        #expect(try fixture.introspect(deletedAccess).text == #"{"active":false}"#)

        // A merge (`POST /me/merge`) and Apple's consent-revoked: AccessTokenLifecycleTests.
    }

    /// A restricted session speaks for nobody to a backend: a recovery code's session token is inactive, and so is an
    /// access token whose session is restricted (none is minted for one; the check fails closed all the same).
    @Test func restrictedSessionsAreInactive() throws {
        let store = InMemoryStore()
        let fixture = try TokenFixture(store: store)
        let (account, accessToken) = try fixture.register("uma")
        let codes = try fixture.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(account.token))
        let code = try #require((codes.object["codes"] as? [String])?.first)
        let recovered = try fixture.client.send("POST", "/auth/recovery", json: Array(#"{"username": "uma", "code": "\#(code)"}"#.utf8))
        let recoveryToken = try #require(recovered.object["token"] as? String)
        #expect(try fixture.introspect(recoveryToken).text == #"{"active":false}"#)
        #expect(try fixture.introspect(accessToken).object["active"] as? Bool == true)
        store.state.withLock { state in
            for (hash, session) in state.sessions where session.userID == account.userID && session.method == .passkey {
                state.sessions[hash]?.method = .recoveryCode
            }
        }
        #expect(try fixture.introspect(accessToken).text == #"{"active":false}"#, "an access token of a restricted session")
        #expect(try fixture.introspect(account.token).text == #"{"active":false}"#)
    }

    /// Unknown tokens of four kinds, introspected in alternating rounds: garbage, an opaque token that is no session's,
    /// a well-formed JWT naming an unknown kid, and one naming the served kid with a wrong signature. Each costs one
    /// signature verification and two lookups, so their typical times agree within a factor of two (a shortcut for
    /// garbage would make it several times faster than a verification). The typical time is each kind's lower
    /// quartile over 150 rounds whose order rotates: a busy machine (the parallel suite) only adds time, so a low
    /// quantile is what the kind itself costs, where the median moved by up to 2.06× under the parallel suite.
    @Test func unknownTokensTakeTheSameTime() throws {
        let fixture = try TokenFixture()
        let (_, token) = try fixture.register("ray")
        let decoded = try DecodedToken(token)
        var unknownKid = decoded.header
        unknownKid["kid"] = "AAAAAAAAAAAAAAAA"
        let kinds = [
            "garbage": "%%%",
            "opaque": Base64URL.encode(SystemRandom().bytes(count: 32)),
            "unknown kid": try DecodedToken.forge(header: unknownKid, claims: decoded.claims, signature: String(token.split(separator: ".")[2])),
            "wrong signature": try DecodedToken.forge(
                header: decoded.header,
                claims: decoded.claims,
                signature: Base64URL.encode([UInt8](repeating: 7, count: 64))
            ),
        ]
        let order = kinds.keys.sorted()
        var samples: [String: [UInt64]] = [:]
        for round in 0..<150 {
            for offset in order.indices {
                let kind = order[(round + offset) % order.count]
                let candidate = kinds[kind]!
                let start = DispatchTime.now().uptimeNanoseconds
                let reply = try fixture.introspect(candidate)
                samples[kind, default: []].append(DispatchTime.now().uptimeNanoseconds - start)
                #expect(reply.text == #"{"active":false}"#, "\(kind)")
            }
        }
        let lowerQuartiles = samples.mapValues { $0.sorted()[$0.count / 4] }
        let (fastest, slowest) = (lowerQuartiles.values.min()!, lowerQuartiles.values.max()!)
        #expect(Double(slowest) / Double(fastest) < 2, "lower quartile ns per kind: \(lowerQuartiles)")
    }
}
