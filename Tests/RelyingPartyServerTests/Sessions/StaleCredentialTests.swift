import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// A request that carries a session (bearer or cookie) that does not resolve is `401 not_signed_in` on every endpoint,
/// before its handler runs; only a request without credentials may act signed out (and create an account).
@Suite("Stale credentials")
struct StaleCredentialTests {
    /// Every kind of stale credential: bogus, expired, signed out, of a deleted account, empty.
    enum Staleness: String, CaseIterable {
        case bogus, expired, signedOut, accountDeleted, empty
    }

    /// A token of `staleness` for a fresh account of `fixture`.
    static func staleToken(_ staleness: Staleness, _ fixture: AppleFixture) throws -> String {
        switch staleness {
        case .bogus:
            return Base64URL.encode(SystemRandom().bytes(count: 32))
        case .empty:
            return ""
        case .expired:
            let account = try fixture.client.register("expired-\(UUID().uuidString.prefix(8))")
            fixture.clock.advance(by: 604_800)
            // A week on, Apple's keys have expired too; the worker would have refreshed them by now.
            try fixture.fetchKeys()
            return account.token
        case .signedOut:
            let account = try fixture.client.register("out-\(UUID().uuidString.prefix(8))")
            _ = try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(account.token))
            return account.token
        case .accountDeleted:
            let account = try fixture.client.register("gone-\(UUID().uuidString.prefix(8))")
            _ = try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token))
            return account.token
        }
    }

    /// Every route that resolves sessions refuses a stale bearer and a stale cookie (clearing it) with 401 before its
    /// handler (which would otherwise answer 400, 404 or 200); the routes that ignore sessions run as without one.
    @Test func everyRouteRefusesAStaleSessionBeforeItsHandler() throws {
        let fixture = try AppleFixture()
        let token = try Self.staleToken(.bogus, fixture)
        for route in RelyingPartyServer.routes {
            let path = route.path.replacingOccurrences(of: "{id}", with: "AAAA")
            for header in [("Authorization", "Bearer \(token)"), ("Cookie", "__Host-passkeyd_session=\(token)")] {
                let request = HTTPRequest(
                    method: route.method,
                    path: path,
                    headers: HTTPHeaders([("Content-Type", "application/json"), ("Origin", "https://example.com"), header]),
                    body: Array("{}".utf8)
                )
                let reply = ServerReply(fixture.server.handle(request))
                if route.flags.contains(.sessionIgnored) {
                    #expect(reply.errorCode != "not_signed_in", "\(route.method) \(route.path)")
                } else {
                    #expect(reply.status == 401 && reply.errorCode == "not_signed_in", "\(route.method) \(route.path) with \(header.0)")
                    #expect((reply.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=;") == true) == (header.0 == "Cookie"))
                }
            }
        }
    }

    /// The second kind of bearer over the whole table: a live access token stands for its session on the routes that
    /// allow one (their handler runs), is `403 insufficient_scope` on every other route that resolves sessions, and is
    /// not looked at where sessions are ignored; once its session is gone, and for a forged JWT, it is `401
    /// not_signed_in` wherever sessions are resolved.
    @Test func everyRouteTakesALiveAccessTokenOnlyWhereItMayAndRefusesAStaleOne() throws {
        let fixture = try AppleFixture()
        let account = try fixture.client.register("jwt-\(UUID().uuidString.prefix(8))")
        let live = try #require(
            try fixture.client.send("POST", "/session/token", headers: PasskeyClient.bearer(account.token)).object["accessToken"] as? String
        )
        let forged = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.e30.AAAA"
        let send = { (route: Route, token: String) in
            let request = HTTPRequest(
                method: route.method,
                path: route.path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "AAAA", options: .regularExpression),
                headers: HTTPHeaders([("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")]),
                body: Array("{}".utf8)
            )
            return ServerReply(fixture.server.handle(request))
        }
        for route in RelyingPartyServer.routes where route.path != "/logout" {
            let reply = send(route, live)
            let label = "\(route.method) \(route.path): \(reply.text)"
            if route.flags.contains(.allowsAccessToken) || route.flags.contains(.sessionIgnored) {
                #expect(reply.errorCode != "insufficient_scope" && reply.errorCode != "not_signed_in", "\(label)")
            } else {
                #expect(reply.status == 403 && reply.errorCode == "insufficient_scope", "\(label)")
            }
        }
        #expect(try fixture.client.send("POST", "/logout", headers: PasskeyClient.bearer(account.token)).status == 200)
        for token in [live, forged] {
            for route in RelyingPartyServer.routes where !route.flags.contains(.sessionIgnored) {
                let reply = send(route, token)
                #expect(reply.status == 401 && reply.errorCode == "not_signed_in", "\(route.method) \(route.path): \(reply.text)")
            }
        }
    }

    /// `POST /auth/apple` with any stale bearer or cookie is 401 and creates nothing; the same token without the
    /// credential creates the account.
    @Test(arguments: Staleness.allCases)
    func appleSignInWithAStaleSessionNeverCreatesAnAccount(_ staleness: Staleness) throws {
        let fixture = try AppleFixture()
        let token = try Self.staleToken(staleness, fixture)
        let usersBefore = try fixture.store.allEvents().filter { $0.type == "user.created" }.count
        for headers in [PasskeyClient.bearer(token), [("Cookie", "__Host-passkeyd_session=\(token)"), ("Origin", "https://example.com")]] {
            let raw = AppleFixture.rawNonce()
            let reply = try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw, headers: headers)
            #expect(reply.status == 401 && reply.errorCode == "not_signed_in", "\(staleness): \(reply.text)")
            #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject) == nil)
            #expect(try fixture.store.allEvents().filter { $0.type == "user.created" }.count == usersBefore)
            // The nonce was not used: the same token signs in without the stale credential.
            if headers.count == 2 {
                #expect(try fixture.signIn(token: try fixture.identityToken(rawNonce: raw), rawNonce: raw).status == 200)
            }
        }
    }

    /// Registration options with a stale session are 401 (never a new account), with a clearing cookie for a cookie.
    @Test(arguments: Staleness.allCases)
    func registrationOptionsWithAStaleSessionAre401(_ staleness: Staleness) throws {
        let fixture = try AppleFixture()
        let token = try Self.staleToken(staleness, fixture)
        let bearer = try fixture.client.registrationOptions(username: "newcomer", headers: PasskeyClient.bearer(token))
        #expect(bearer.status == 401 && bearer.errorCode == "not_signed_in")
        let cookie = try fixture.client.registrationOptions(
            username: "newcomer",
            headers: [("Cookie", "__Host-passkeyd_session=\(token)"), ("Origin", "https://example.com")]
        )
        #expect(cookie.status == 401 && cookie.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=; Path=/; Max-Age=0") == true)
        #expect(try fixture.client.registrationOptions(username: "newcomer").status == 200, "without credentials it may")
    }

    /// A proxy's `Authorization: Basic` is not a session credential.
    @Test func anotherAuthorizationSchemeIsNoCredential() throws {
        let fixture = try AppleFixture()
        let reply = try fixture.client.registrationOptions(username: "carol", headers: [("Authorization", "Basic dXNlcjpwYXNz")])
        #expect(reply.status == 200)
    }
}
