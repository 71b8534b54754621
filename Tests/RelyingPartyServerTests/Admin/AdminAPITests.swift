import CryptoCore
import Foundation
import Storage
import Synchronization
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The admin API (`listen.admin`): every call and every refusal, through `AdminAPI` as the admin listener serves it.
struct AdminAPITests {
    static let adminKey = "test-admin-key-0123456789"
    static let configuration = """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         "listen": {"https": "127.0.0.1:0", "admin": "127.0.0.1:0"},
         "admin": {"keys": [{"name": "ops-console", "keySHA256": "\(Hex.encode(DigestAlgorithm.sha256.hash(Array(adminKey.utf8))))"}]}}
        """

    let clock = ManualClock()
    let store = InMemoryStore()
    let logged = RecordedLog()
    let server: RelyingPartyServer
    /// The public listener's client.
    let client: PasskeyClient
    /// The admin listener's client.
    let admin: PasskeyClient

    init() throws {
        let recorded = logged
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(Self.configuration),
            store: store,
            clock: clock,
            log: .messages { line in recorded.lines.withLock { $0.append(line) } }
        )
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    static let key = [("Authorization", "Bearer \(adminKey)")]

    func call(_ method: String, _ path: String, _ body: String? = nil) throws -> ServerReply {
        try admin.send(method, path, json: body.map { Array($0.utf8) }, headers: Self.key)
    }

    var log: [String] { logged.lines.withLock { $0 } }

    @Test func everyCallNeedsAnAdminKeyAndIsLoggedWithItsName() throws {
        let account = try client.register("alice")
        let path = "/admin/users/" + Base64URL.encode(account.userID)
        for headers in [[], [("Authorization", "Bearer wrong-key")], [("Authorization", "Basic \(Self.adminKey)")], [("Authorization", "Bearer ")]] {
            for (method, target) in [("GET", path), ("DELETE", path), ("GET", "/admin/users"), ("GET", "/admin/nothing-here")] {
                let reply = try admin.send(method, target, headers: headers)
                #expect(reply.status == 401, "\(method) \(target) \(headers)")
                #expect(reply.errorCode == "admin_unauthorized")
            }
        }
        #expect(try store.user(id: account.userID) != nil, "nothing was deleted")
        #expect(try call("GET", path).status == 200)
        #expect(try call("GET", "/admin/nothing-here").status == 404)
        #expect(try call("PUT", path).status == 405)
        let lines = log
        #expect(lines.contains("admin ops-console GET /admin/users/{id} 200"))
        #expect(lines.contains("admin (refused: no key) DELETE /admin/users/{id} 401 admin_unauthorized"))
        #expect(lines.contains("admin (refused: wrong key) GET /admin/users 401 admin_unauthorized"))
        #expect(lines.contains("admin ops-console GET (unrouted) 404 not_found"))
        // Never the key, the path's user handle or the username.
        #expect(!lines.contains { $0.contains(Self.adminKey) || $0.contains(Base64URL.encode(account.userID)) || $0.contains("alice") })
    }

    @Test func thePublicListenerNeverServesTheAdminAPI() throws {
        let account = try client.register("alice")
        for (method, path) in [
            ("GET", "/admin/users"), ("GET", "/admin/users/" + Base64URL.encode(account.userID)),
            ("DELETE", "/admin/users/" + Base64URL.encode(account.userID)),
            ("GET", "/admin"), ("GET", "/admin/"), ("GET", "/admin/export"),
        ] {
            let reply = try client.send(method, path, headers: Self.key)
            #expect(reply.status == 404 || reply.status == 401, "\(method) \(path)")
            #expect(reply.errorCode == "not_found" || reply.errorCode == "not_signed_in", "\(method) \(path)")
        }
        #expect(try store.user(id: account.userID) != nil)
        let publicPaths = Set(RelyingPartyServer.routes.map(\.path))
        #expect(publicPaths.allSatisfy { !$0.hasPrefix("/admin") })
        #expect(
            RelyingPartyServer.adminRoutes.allSatisfy { ($0.path.hasPrefix("/admin/") || $0.path == "/metrics") && !publicPaths.contains($0.path) }
        )
        #expect(try client.send("GET", "/metrics").status == 404, "the public listener does not serve the metrics")
        // And the admin listener serves nothing of the public API.
        #expect(try call("GET", "/me").status == 404)
        #expect(try call("POST", "/webauthn/registration/options", #"{"username":"x"}"#).status == 404)
    }

    @Test func createShowUpdateAndDeleteAnAccount() throws {
        let created = try call("POST", "/admin/users", #"{"username": "invitee", "email": "Invitee@Example.com", "emailVerified": true}"#)
        #expect(created.status == 201)
        let user = try #require(created.object["user"] as? [String: Any])
        let id = try #require(user["id"] as? String)
        #expect(user["username"] as? String == "invitee" && user["email"] as? String == "Invitee@Example.com")
        #expect(user["emailVerified"] as? Bool == true)
        #expect(try call("POST", "/admin/users", #"{"username": "invitee"}"#).errorCode == "username_taken")
        #expect(try call("POST", "/admin/users", #"{"username": ""}"#).errorCode == "invalid_username")
        #expect(try call("POST", "/admin/users", #"{"username": "x", "email": "no-at-sign"}"#).errorCode == "invalid_request")

        let shown = try call("GET", "/admin/users/\(id)")
        #expect(shown.status == 200)
        #expect((shown.object["passkeys"] as? [Any])?.isEmpty == true && shown.object["recoveryCodesLeft"] as? Int == 0)

        let updated = try call("PATCH", "/admin/users/\(id)", #"{"displayName": "Ivy", "email": "ivy@example.com"}"#)
        #expect(updated.status == 200)
        let after = try #require(updated.object["user"] as? [String: Any])
        #expect(after["displayName"] as? String == "Ivy" && after["email"] as? String == "ivy@example.com")
        #expect(after["emailVerified"] as? Bool == false, "a new email is unverified unless said")
        #expect(
            try call("PATCH", "/admin/users/\(id)", #"{"emailVerified": true}"#).object["user"].flatMap { $0 as? [String: Any] }?["emailVerified"]
                as? Bool == true
        )
        #expect(try call("PATCH", "/admin/users/\(id)", #"{"username": "renamed"}"#).status == 200)
        #expect(try store.user(name: "renamed") != nil)

        #expect(try call("DELETE", "/admin/users/\(id)").status == 200)
        for (method, body) in [("GET", nil), ("DELETE", nil), ("PATCH", #"{"displayName": "x"}"#), ("POST", nil)] as [(String, String?)] {
            let path = method == "POST" ? "/admin/users/\(id)/sessions/revoke" : "/admin/users/\(id)"
            #expect(try call(method, path, body).errorCode == "user_not_found", "\(method)")
        }
        #expect(try call("GET", "/admin/users/not*base64").errorCode == "user_not_found")
        let types = try store.allEvents().map(\.type)
        #expect(types == ["user.created", "user.updated", "user.updated", "user.updated", "user.deleted"])
        let deleted = try #require(try store.allEvents().last)
        #expect(String(decoding: deleted.data, as: UTF8.self).contains(#""reason":"admin""#))
    }

    @Test func deletingAnAccountQueuesItsAppleRevocationsAsDeleteMeDoes() throws {
        var user = StoreSamples.user(1, name: "apple-person")
        user.email = "a@privaterelay.appleid.com"
        try store.seedUser(user, appleIdentity: StoreSamples.appleIdentity("001.apple", owner: 1))
        try store.transaction { transaction throws(StorageError) in
            _ = try transaction.setAppleRefreshToken(subject: "001.apple", clientID: "com.example.app", encryptedToken: [1, 2, 3])
        }
        #expect(try call("DELETE", "/admin/users/" + Base64URL.encode(StoreSamples.userID(1))).status == 200)
        #expect(try store.user(id: StoreSamples.userID(1)) == nil)
        #expect(try store.dueRevocations(now: clock.now, limit: 10).count == 1)
        #expect(try store.allEvents().map(\.type) == ["user.deleted"])
    }

    @Test func searchByUsernamePrefixEmailAppleSubAndCredentialID() throws {
        let alice = try client.register("alice")
        _ = try client.register("alina")
        _ = try client.register("bob")
        var apple = StoreSamples.user(9, name: "zed")
        apple.email = "Zed@Example.com"
        try store.seedUser(apple, appleIdentity: StoreSamples.appleIdentity("000123.abcdef.0001", owner: 9))
        func search(_ query: String) throws -> [(String, String)] {
            let reply = try call("GET", "/admin/users?query=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            #expect(reply.status == 200, "\(query)")
            return ((reply.object["users"] as? [[String: Any]]) ?? []).map {
                (($0["user"] as? [String: Any])?["username"] as? String ?? "", $0["matchedBy"] as? String ?? "")
            }
        }
        #expect(try search("ali").map(\.0) == ["alice", "alina"])
        #expect(try search("ali").map(\.1) == ["username", "username"])
        #expect(try search("").map(\.0) == ["alice", "alina", "bob", "zed"])
        #expect(try search("zed@example.com").map(\.0) == ["zed"] && (try search("zed@example.com").map(\.1)) == ["email"])
        #expect(try search("000123.abcdef.0001").map(\.1) == ["appleUserId"])
        let credentialID = Base64URL.encode(alice.credential.id)
        #expect(try search(credentialID).map(\.0) == ["alice"] && (try search(credentialID).map(\.1)) == ["credentialId"])
        #expect(try search("nobody").isEmpty)
    }

    @Test func cursorsWalkEveryAccountOnceAndAreBoundToTheirQuery() throws {
        for number in 1...7 {
            try store.seedUser(
                StoreSamples.user(UInt8(number), name: "user-\(number)"),
                credential: StoreSamples.credential(UInt8(number), owner: UInt8(number))
            )
        }
        var names: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let reply = try call("GET", "/admin/users?query=user-&limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(reply.status == 200)
            names += ((reply.object["users"] as? [[String: Any]]) ?? []).compactMap { ($0["user"] as? [String: Any])?["username"] as? String }
            cursor = reply.object["nextCursor"] as? String
            pages += 1
        } while cursor != nil && pages < 10
        #expect(names == (1...7).map { "user-\($0)" } && pages == 3)
        let first = try call("GET", "/admin/users?query=user-&limit=3")
        let next = try #require(first.object["nextCursor"] as? String)
        #expect(try call("GET", "/admin/users?query=other&cursor=\(next)").errorCode == "invalid_cursor")
        #expect(try call("GET", "/admin/users?cursor=garbage").errorCode == "invalid_cursor")
        for limit in ["0", "201", "x"] {
            #expect(try call("GET", "/admin/users?limit=\(limit)").errorCode == "invalid_request", "\(limit)")
        }
    }

    @Test func revokeSessionsAndDeleteAPasskeyWithTheSessionsItMade() throws {
        let alice = try client.register("alice")
        let second = try client.addPasskey(token: alice.token)
        let other = try client.signIn(second)
        let otherToken = try #require(other.object["token"] as? String)
        let id = Base64URL.encode(alice.userID)
        let detail = try call("GET", "/admin/users/\(id)")
        #expect((detail.object["sessions"] as? [Any])?.count == 3 && (detail.object["passkeys"] as? [Any])?.count == 2)
        #expect(!detail.text.contains(alice.token), "no session token in the answer")

        #expect(try call("DELETE", "/admin/users/\(id)/passkeys/" + Base64URL.encode(second.id)).status == 200)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(otherToken)).status == 401, "the passkey's sessions ended")
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200, "the first passkey's session stays")
        #expect(try call("DELETE", "/admin/users/\(id)/passkeys/" + Base64URL.encode(second.id)).errorCode == "passkey_not_found")
        #expect(try call("DELETE", "/admin/users/AAAA/passkeys/" + Base64URL.encode(alice.credential.id)).errorCode == "user_not_found")

        let revoked = try call("POST", "/admin/users/\(id)/sessions/revoke")
        #expect(revoked.status == 200 && revoked.object["revoked"] as? Int == 1)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 401)
        let reasons = try store.allEvents().filter { $0.type == "session.revoked" }.map { String(decoding: $0.data, as: UTF8.self) }
        #expect(reasons.count == 3)
        #expect(reasons.filter { $0.contains(#""reason":"passkey_deleted""#) }.count == 2)
        #expect(reasons.last?.contains(#""reason":"admin""#) == true)
    }

    @Test func mergeMovesEveryPasskeyIntoTheSurvivorAndEndsTheOtherAccountsSessions() throws {
        let alice = try client.register("alice")
        let bob = try client.register("bob")
        let aliceID = Base64URL.encode(alice.userID)
        let bobID = Base64URL.encode(bob.userID)

        let merged = try call("POST", "/admin/users/\(aliceID)/merge", #"{"from": "\#(bobID)"}"#)
        #expect(merged.status == 200, "\(merged.text)")
        #expect((merged.object["user"] as? [String: Any])?["id"] as? String == aliceID)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(bob.token)).status == 401, "the gone account's session ended")
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200, "the survivor's session stays")
        let signedIn = try client.signIn(bob.credential)
        #expect(signedIn.status == 200, "bob's passkey still signs in")
        #expect((signedIn.object["user"] as? [String: Any])?["id"] as? String == aliceID, "into alice's account")
        #expect(try call("GET", "/admin/users/\(bobID)").errorCode == "user_not_found")
        let events = try store.allEvents().map(\.type)
        #expect(events.contains("user.merged"))

        // Refusals: the account itself, an unknown account either side, a missing or unknown member, a disabled account.
        #expect(try call("POST", "/admin/users/\(aliceID)/merge", #"{"from": "\#(aliceID)"}"#).errorCode == "merge_same_account")
        #expect(try call("POST", "/admin/users/\(aliceID)/merge", #"{"from": "\#(bobID)"}"#).errorCode == "user_not_found")
        #expect(try call("POST", "/admin/users/\(bobID)/merge", #"{"from": "\#(aliceID)"}"#).errorCode == "user_not_found")
        #expect(try call("POST", "/admin/users/\(aliceID)/merge", "{}").status == 400)
        #expect(try call("POST", "/admin/users/\(aliceID)/merge", #"{"from": "\#(bobID)", "keep": "x"}"#).errorCode == "unknown_member")
        let carol = try client.register("carol")
        let carolID = Base64URL.encode(carol.userID)
        #expect(try call("PATCH", "/admin/users/\(carolID)", #"{"disabled": true}"#).status == 200)
        #expect(try call("POST", "/admin/users/\(aliceID)/merge", #"{"from": "\#(carolID)"}"#).errorCode == "account_disabled")
        #expect(try call("GET", "/admin/users/\(carolID)").status == 200, "a refused merge deletes nothing")
    }

    @Test func deadWebhookDeliveriesAreListedAndRetried() throws {
        _ = try store.transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions(
                [WebhookSubscription(endpointID: "ep", eventTypes: nil)],
                removalReason: "webhook.endpointRemoved",
                now: clock.now
            )
        }
        _ = try client.register("alice")
        let now = clock.now
        let claimed = try store.claimWebhookDeliveries(endpointID: "ep", owner: "w", now: now, leaseUntil: now.addingTimeInterval(30), limit: 10)
        #expect(!claimed.isEmpty)
        try store.recordWebhookOutcomes([(claimed[0].delivery.id, .dead(status: 410, error: "webhook.gone"))], owner: "w", now: now)
        let dead = try call("GET", "/admin/webhooks/deliveries?status=dead")
        let listed = try #require(dead.object["deliveries"] as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["lastStatus"] as? Int == 410 && listed[0]["status"] as? String == "dead")
        // The event is named by its public ID, the `webhook-id` its deliveries are sent with, not by its sequence number.
        #expect(listed[0]["eventId"] as? String == claimed[0].event.publicID)
        #expect((listed[0]["eventId"] as? String).map { UUID(canonicalText: String($0.dropFirst(4))) != nil } == true)
        let all = try call("GET", "/admin/webhooks/deliveries?limit=1")
        #expect((all.object["deliveries"] as? [Any])?.count == 1 && all.object["nextCursor"] is String)
        #expect(
            try call("GET", "/admin/webhooks/deliveries?status=dead&cursor=" + (all.object["nextCursor"] as? String ?? "")).errorCode
                == "invalid_cursor"
        )
        #expect(try call("GET", "/admin/webhooks/deliveries?status=bogus").errorCode == "invalid_request")
        #expect(try call("POST", "/admin/webhooks/deliveries/\(claimed[0].delivery.id)/retry").status == 200)
        #expect(try store.webhookDeliveries(status: .dead, after: 0, limit: 10).isEmpty)
        #expect(try call("POST", "/admin/webhooks/deliveries/\(claimed[0].delivery.id)/retry").errorCode == "delivery_not_found", "only a dead one")
        #expect(try call("POST", "/admin/webhooks/deliveries/x/retry").errorCode == "delivery_not_found")
    }
}

/// Log lines a test server wrote.
final class RecordedLog: Sendable {
    let lines = Mutex<[String]>([])
}
