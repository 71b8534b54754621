import CryptoCore
import Foundation
import Testing

@testable import RelyingPartyServer

/// Issue 43 item 10: a member an admin call does not take is refused with `400 unknown_member` naming it, never
/// dropped (`PATCH /admin/users/{id} {"disabled": true}` used to answer 200 and do nothing); the public API still
/// ignores members of its own callers.
struct AdminUnknownMemberTests {
    let api: AdminAPITests

    init() throws {
        api = try AdminAPITests()
    }

    @Test func everyAdminBodyRefusesAMemberItDoesNotTake() throws {
        let account = try api.client.register("alice")
        let path = "/admin/users/" + Base64URL.encode(account.userID)
        for (method, target, body, member) in [
            ("PATCH", path, #"{"displayName": "Alice", "frobnicate": true}"#, "frobnicate"),
            ("PATCH", path, #"{"Username": "alicia"}"#, "Username"),
            ("POST", "/admin/users", #"{"username": "bob", "emailVerifed": true}"#, "emailVerifed"),
        ] {
            let reply = try api.call(method, target, body)
            #expect(reply.status == 400, "\(method) \(body)")
            #expect(reply.errorCode == "unknown_member", "\(method) \(body)")
            #expect(reply.object["member"] as? String == member, "\(method) \(body)")
        }
        // Nothing was changed or created.
        #expect(try api.store.user(id: account.userID)?.displayName == "alice")
        #expect(try api.store.user(name: "bob") == nil)
        // The same bodies without the unknown member are taken.
        #expect(try api.call("PATCH", path, #"{"displayName": "Alice"}"#).status == 200)
        #expect(try api.call("POST", "/admin/users", #"{"username": "bob", "emailVerified": false}"#).status == 201)
    }

    @Test func thePublicAPIStillIgnoresUnknownMembers() throws {
        let reply = try api.client.send("POST", "/webauthn/registration/options", json: Array(#"{"username": "carol", "extra": 1}"#.utf8))
        #expect(reply.status == 200)
    }
}
