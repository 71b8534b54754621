import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Unlinking an identity at an OpenID provider or an Apple identity queues a security notice to the account's verified address, in the
/// transaction of the unlink.
@Suite(.serialized) struct IdentityNoticeMailTests {
    @Test func unlinkingAnIdentityQueuesANotice() throws {
        let relay = try SMTPStandIn(security: .starttls, requiresAuthentication: false)
        try relay.start()
        let email = """
            "email": {"host": "127.0.0.1", "port": \(relay.port), "caFile": "\(relay.caFile)", "from": "no-reply@example.com",
             "baseURL": "https://example.com"},
            """
        let fixture = try GoogleFixture(extraConfiguration: email)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let carol = try fixture.client.register("carol")
        _ = try fixture.signInFresh(subject: "200", headers: PasskeyClient.bearer(carol.token))
        _ = try fixture.store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: carol.userID) else { return false }
            user.email = "carol@example.org"
            user.emailVerified = true
            return try transaction.updateUser(user)
        }
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 5).isEmpty, "linking before the address was verified sent nothing")
        let unlinked = try fixture.client.send("DELETE", "/me/identities/google/200", headers: PasskeyClient.bearer(carol.token))
        #expect(unlinked.status == 200)
        let received = relay.wait { $0.count == 1 }
        #expect(received.first?.recipients == ["carol@example.org"])
        #expect(received.first?.text?.contains("A sign-in identity was removed from your account.") == true)
        #expect(received.first?.defects.isEmpty == true)
    }

    @Test func unlinkingAnAppleIdentityQueuesANotice() throws {
        let relay = try SMTPStandIn(security: .starttls, requiresAuthentication: false)
        try relay.start()
        let email = """
            "email": {"host": "127.0.0.1", "port": \(relay.port), "caFile": "\(relay.caFile)", "from": "no-reply@example.com",
             "baseURL": "https://example.com"},
            """
        let fixture = try AppleFixture(extraConfiguration: email)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let dana = try fixture.client.register("dana")
        _ = try fixture.signInFresh(headers: PasskeyClient.bearer(dana.token))
        _ = try fixture.store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: dana.userID) else { return false }
            user.email = "dana@example.org"
            user.emailVerified = true
            return try transaction.updateUser(user)
        }
        let unlinked = try fixture.client.send("DELETE", "/me/apple/" + AppleTokenMinter.subject, headers: PasskeyClient.bearer(dana.token))
        #expect(unlinked.status == 200, "\(unlinked.text)")
        let received = relay.wait { $0.count == 1 }
        #expect(received.first?.recipients == ["dana@example.org"])
        #expect(received.first?.text?.contains("A sign-in identity was removed from your account.") == true)
    }
}
