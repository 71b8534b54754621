import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The notices of something added to an account: a passkey (by every registration path; the store contract covers the
/// PostgreSQL statement) and an identity linked (Google, Apple), each queued in the transaction of the change and read
/// back from aiosmtpd on loopback.
@Suite(.serialized) struct AddedNoticeMailTests {
    static func verify(_ store: any PasskeyStore, _ userID: [UInt8], _ address: String) throws {
        _ = try store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: userID) else { return false }
            (user.email, user.emailVerified) = (address, true)
            return try transaction.updateUser(user)
        }
    }

    static func relayConfiguration(_ relay: SMTPStandIn) -> String {
        """
        "email": {"host": "127.0.0.1", "port": \(relay.port), "caFile": "\(relay.caFile)", "from": "no-reply@example.com",
         "baseURL": "https://example.com"},
        """
    }

    @Test func aPasskeyAddedIsNoticedButNotAnAccountsFirst() throws {
        let fixture = try EmailVerificationMailTests.Fixture()
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 5).isEmpty, "a new account's first passkey: no address, no notice")
        try Self.verify(fixture.store, alice.userID, "alice@example.org")
        _ = try fixture.client.addPasskey(token: alice.token)
        let received = fixture.mail(to: "alice@example.org")
        #expect(received.count == 1 && received.first?.text?.contains("A passkey was added to your account.") == true)
        let bob = try fixture.client.register("bob")
        _ = try fixture.client.addPasskey(token: bob.token)
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 5).count == 1, "an account without a verified address: nothing")
    }

    @Test func anIdentityLinkedToAnAccountIsNoticed() throws {
        let relay = try SMTPStandIn(security: .starttls, requiresAuthentication: false)
        try relay.start()
        let fixture = try GoogleFixture(extraConfiguration: Self.relayConfiguration(relay))
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let carol = try fixture.client.register("carol")
        try Self.verify(fixture.store, carol.userID, "carol@example.org")
        _ = try fixture.signInFresh(subject: "300", headers: PasskeyClient.bearer(carol.token))
        let received = relay.wait { $0.count == 1 }
        #expect(received.first?.recipients == ["carol@example.org"])
        #expect(received.first?.text?.contains("A sign-in identity was linked to your account.") == true)
        // A new account made by the identity itself is told nothing.
        _ = try fixture.signInFresh(subject: "301", email: "new@example.com")
        usleep(1_500_000)
        #expect(relay.received().count == 1)
    }

    @Test func anAppleIDLinkedToAnAccountIsNoticed() throws {
        let relay = try SMTPStandIn(security: .starttls, requiresAuthentication: false)
        try relay.start()
        let fixture = try AppleFixture(extraConfiguration: Self.relayConfiguration(relay))
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let dana = try fixture.client.register("dana")
        try Self.verify(fixture.store, dana.userID, "dana@example.org")
        _ = try fixture.signInFresh(headers: PasskeyClient.bearer(dana.token))
        let received = relay.wait { $0.count == 1 }
        #expect(received.first?.recipients == ["dana@example.org"])
        #expect(received.first?.text?.contains("A sign-in identity was linked to your account.") == true)
    }
}
