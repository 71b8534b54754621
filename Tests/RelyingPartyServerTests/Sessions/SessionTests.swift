import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing
import WebAuthnCore

/// Sessions: Bearer or cookie, Origin checks on cookie-authenticated writes, expiry, hashed storage.
struct SessionTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    private static func cookie(_ token: String) -> (String, String) { ("Cookie", "__Host-passkeyd_session=\(token)") }

    @Test(arguments: [[], [("Origin", "https://evil.test")], [("Origin", "https://example.com:8443")], [("Origin", "null")]])
    func cookieAuthenticatedWritesNeedTheOwnOrigin(origin: [(String, String)]) throws {
        let account = try client.register("alice")
        let second = try client.addPasskey(token: account.token)
        let headers = [Self.cookie(account.token)] + origin
        let writes: [(String, String, [UInt8]?)] = [
            ("POST", "/logout", nil), ("DELETE", "/me", nil), ("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), nil),
            ("PATCH", "/me/passkeys/" + Base64URL.encode(second.id), Array(#"{"name":"x"}"#.utf8)),
            ("POST", "/webauthn/registration/options", Array("{}".utf8)),
        ]
        for (method, path, body) in writes {
            let reply = try client.send(method, path, json: body, headers: headers)
            #expect(reply.status == 403, "\(method) \(path)")
            #expect(reply.errorCode == "origin_mismatch", "\(method) \(path)")
        }
        // Nothing happened: the session, both passkeys and their names are intact.
        #expect(try client.send("GET", "/me", headers: [Self.cookie(account.token)]).status == 200)
        #expect(try store.credentials(userID: account.userID).map(\.name) == ["Passkey", "Passkey"])
    }

    @Test func cookieAuthenticatedWriteFromTheOwnOriginWorks() throws {
        let account = try client.register("alice")
        let second = try client.addPasskey(token: account.token)
        let headers = [Self.cookie(account.token), ("Origin", "https://example.com")]
        #expect(
            try client.send("PATCH", "/me/passkeys/" + Base64URL.encode(second.id), json: Array(#"{"name":"x"}"#.utf8), headers: headers).status
                == 200
        )
        #expect(try client.send("POST", "/logout", headers: headers).status == 200)
        #expect(try client.send("GET", "/me", headers: [Self.cookie(account.token)]).status == 401)
    }

    /// Issue 15: a cookie planted from a sibling subdomain (`Domain=example.com`) signed the victim into the attacker's
    /// account, because the cookie had no `__Host-` prefix and the first cookie won. A `__Host-` cookie cannot be set
    /// with a Domain, the old name is no session at all, and two session cookies are refused.
    @Test func theSessionCookieIsHostPrefixedAndTwoAreRefused() throws {
        let victim = try client.register("victim")
        let attacker = try client.register("attacker")
        let signIn = try client.signIn(victim.credential)
        let setCookie = try #require(signIn.headers["Set-Cookie"])
        #expect(setCookie.hasPrefix("__Host-passkeyd_session="))
        #expect(setCookie.contains("; Path=/;") && setCookie.contains("; Secure") && !setCookie.lowercased().contains("domain="))
        let token = try #require(signIn.object["token"] as? String)
        #expect(try client.send("GET", "/me", headers: [Self.cookie(token)]).status == 200)
        for headers in [
            [("Cookie", "__Host-passkeyd_session=\(attacker.token); __Host-passkeyd_session=\(token)")],
            [("Cookie", "__Host-passkeyd_session=\(token)"), ("Cookie", "__Host-passkeyd_session=\(attacker.token)")],
        ] {
            let reply = try client.send("GET", "/me", headers: headers)
            #expect(reply.status == 401)
            #expect(reply.errorCode == "not_signed_in")
            let adding = try client.send(
                "POST",
                "/webauthn/registration/options",
                json: Array("{}".utf8),
                headers: headers + [("Origin", "https://example.com")]
            )
            #expect(adding.status == 401, "no passkey is added to either account")
        }
        let planted = try client.send("GET", "/me", headers: [("Cookie", "passkeyd_session=\(attacker.token)")])
        #expect(planted.status == 401, "a cookie of another name is no session")
    }

    @Test func bearerAuthenticatedWriteWithoutOriginWorks() throws {
        let account = try client.register("alice")
        let second = try client.addPasskey(token: account.token)
        let reply = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), headers: PasskeyClient.bearer(account.token))
        #expect(reply.status == 200)
        #expect(try store.credential(id: second.id) == nil)
    }

    @Test func expiredSessionIsNotSignedIn() throws {
        let account = try client.register("alice")
        clock.advance(by: 604_800 - 1)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        clock.advance(by: 1)
        let bearer = try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token))
        #expect(bearer.status == 401)
        #expect(bearer.errorCode == "not_signed_in")
        let cookie = try client.send("GET", "/me", headers: [Self.cookie(account.token)])
        #expect(cookie.status == 401)
        #expect(cookie.errorCode == "not_signed_in")
        #expect(cookie.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=; Path=/; Max-Age=0") == true)
        // An expired session cannot add a passkey to the account either, nor fall back to making a new account.
        let options = try client.registrationOptions(username: "mallory", headers: PasskeyClient.bearer(account.token))
        #expect(options.status == 401)
        #expect(options.errorCode == "not_signed_in")
    }

    @Test func sessionLifetimeComesFromTheConfiguration() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "sessions": {"lifetimeSeconds": 60}}"#
        )
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration, clock: clock)))
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let reply = try client.registrationVerify(try client.answer(options).response)
        #expect(reply.headers["Set-Cookie"]?.contains("; Max-Age=60;") == true)
        let token = try #require(reply.object["token"] as? String)
        clock.advance(by: 60)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)
    }

    @Test func tokensAreDistinctPerSignIn() throws {
        let account = try client.register("alice")
        let first = try #require(try client.signIn(account.credential).object["token"] as? String)
        let second = try #require(try client.signIn(account.credential).object["token"] as? String)
        #expect(Set([account.token, first, second]).count == 3)
        // Signing out one session leaves the others.
        #expect(try client.send("POST", "/logout", headers: PasskeyClient.bearer(first)).status == 200)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(first)).status == 401)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(second)).status == 200)
    }

    @Test func sessionTokenIsStoredOnlyHashed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-session-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/passkeyd.sqlite"
        let store = try SQLiteStore(path: path)
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store)))
        let account = try client.register("alice")
        let signedIn = try #require(try client.signIn(account.credential).object["token"] as? String)
        let dump = try ChildProcess.run("/usr/bin/sqlite3", [path, ".dump"])
        #expect(dump.status == 0)
        let text = String(decoding: dump.output, as: UTF8.self)
        #expect(text.contains("CREATE TABLE sessions"))
        var files = Data()
        for suffix in ["", "-wal"] { files += FileManager.default.contents(atPath: path + suffix) ?? Data() }
        for token in [account.token, signedIn] {
            let hash = DigestAlgorithm.sha256.hash(Array(token.utf8))
            // The hash is there (so the search can find things), the token is not, in any form.
            #expect(text.contains("X'\(Hex.encode(hash))'"))
            #expect(!text.contains(token))
            #expect(!text.contains(Hex.encode(try PasskeyClient.bytes(token))))
            #expect(files.range(of: Data(hash)) != nil)
            #expect(files.range(of: Data(token.utf8)) == nil)
            #expect(files.range(of: Data(try PasskeyClient.bytes(token))) == nil)
        }
        store.close()
    }
}
