import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `pendingEmail` of `GET /admin/users/{id}` and `GET /me`: the address waiting for its link or code, never the link's
/// token or the code; gone once verified, replaced by a newer request, set aside by an address the app vouches for,
/// or expired.
@Suite(.serialized) struct PendingAddressTests {
    typealias Fixture = EmailVerificationMailTests.Fixture

    func admin(_ fixture: Fixture, _ userID: [UInt8]) throws -> ServerReply {
        try fixture.admin.send("GET", "/admin/users/\(Base64URL.encode(userID))", headers: AdminAPITests.key)
    }

    func me(_ fixture: Fixture, _ token: String) throws -> ServerReply {
        try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token))
    }

    @Test func thePendingAddressIsShownWithoutItsTokenOrCodeUntilVerified() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        #expect(try admin(fixture, alice.userID).object["pendingEmail"] == nil, "nothing pending")
        #expect(try me(fixture, alice.token).object["pendingEmail"] == nil)

        #expect(try fixture.patchEmail(alice.token, "alice@example.org").status == 202)
        let message = try #require(fixture.mail(to: "alice@example.org").first)
        let token = try EmailVerificationMailTests.link(in: message, path: "/email/verify").token
        let code = try EmailVerificationMailTests.code(in: message)
        for reply in [try admin(fixture, alice.userID), try me(fixture, alice.token)] {
            #expect(reply.status == 200 && reply.object["pendingEmail"] as? String == "alice@example.org", "\(reply.text)")
            #expect(!reply.text.contains(token) && !reply.text.contains(code), "neither the link's token nor the code")
            #expect((reply.object["user"] as? [String: Any])?["email"] == nil, "the account's address is unchanged")
        }

        #expect(try fixture.form("/email/verify", token: token).status == 200)
        let verified = try admin(fixture, alice.userID)
        #expect(verified.object["pendingEmail"] == nil && (verified.object["user"] as? [String: Any])?["email"] as? String == "alice@example.org")
        #expect(try me(fixture, alice.token).object["pendingEmail"] == nil)
    }

    @Test func aNewerRequestReplacesItAndAVouchedAddressDropsIt() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let bob = try fixture.client.register("bob")
        let path = "/admin/users/\(Base64URL.encode(bob.userID))"
        #expect(try fixture.patchEmail(bob.token, "bob@example.org").status == 202)
        let first = try #require(fixture.mail(to: "bob@example.org").first)
        let changed = try fixture.admin.send("PATCH", path, json: Array(#"{"email": "bob@example.net"}"#.utf8), headers: AdminAPITests.key)
        #expect(changed.status == 200)
        #expect(try admin(fixture, bob.userID).object["pendingEmail"] as? String == "bob@example.net", "the admin's request replaced the person's")
        #expect(try me(fixture, bob.token).object["pendingEmail"] as? String == "bob@example.net")
        let replaced = try fixture.form("/email/verify", token: try EmailVerificationMailTests.link(in: first, path: "/email/verify").token)
        #expect(replaced.status == 400 && replaced.text.contains("email_verification_invalid"), "the replaced link is spent")

        let second = try #require(fixture.mail(to: "bob@example.net").first)
        let vouched = try fixture.admin.send(
            "PATCH",
            path,
            json: Array(#"{"email": "bob@example.com", "emailVerified": true}"#.utf8),
            headers: AdminAPITests.key
        )
        #expect(vouched.status == 200)
        #expect(try admin(fixture, bob.userID).object["pendingEmail"] == nil, "an address the app vouches for drops the pending one")
        let late = try fixture.form("/email/verify", token: try EmailVerificationMailTests.link(in: second, path: "/email/verify").token)
        #expect(late.status == 400 && late.text.contains("email_verification_invalid"), "its link no longer changes the address")
        #expect(try fixture.user(bob.userID)?.email == "bob@example.com")
    }

    @Test func anExpiredVerificationIsNoLongerPending() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let carol = try fixture.client.register("carol")
        #expect(try fixture.patchEmail(carol.token, "carol@example.org").status == 202)
        #expect(try admin(fixture, carol.userID).object["pendingEmail"] as? String == "carol@example.org")
        fixture.clock.advance(by: 86_400)  // email.verificationLifetimeSeconds, a day by default
        #expect(try admin(fixture, carol.userID).object["pendingEmail"] == nil)
        #expect(try me(fixture, carol.token).object["pendingEmail"] == nil)
    }
}
