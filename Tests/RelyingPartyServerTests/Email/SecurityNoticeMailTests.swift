import ConfigurationFile
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Security notices through the whole path: the change and its message in one transaction, the outbox worker, a real
/// SMTP relay on loopback (aiosmtpd, STARTTLS and AUTH, `make mail-deps`), and the message read by Python's `email`
/// package; an SMTP outage loses and duplicates nothing.
@Suite(.serialized) struct SecurityNoticeMailTests {
    struct Fixture {
        let relay: SMTPStandIn
        let store: InMemoryStore
        let server: RelyingPartyServer
        let client: PasskeyClient
        let admin: PasskeyClient

        init(relay: SMTPStandIn, extra: String = "") throws {
            self.relay = relay
            let folder = NSTemporaryDirectory() + "passkeyd-mail-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try SMTPStandIn.password.write(toFile: folder + "/smtp-password", atomically: true, encoding: .utf8)
            let email = """
                {"host": "127.0.0.1", "port": \(relay.port), "security": "starttls", "username": "\(SMTPStandIn.user)",
                 "passwordFile": "\(folder)/smtp-password", "caFile": "\(relay.caFile)", "from": "no-reply@example.com",
                 "fromName": "Example", "baseURL": "https://example.com", "timeoutSeconds": 5, "connectTimeoutSeconds": 2,
                 "firstRetrySeconds": 1, "maximumRetrySeconds": 1\(extra)}
                """
            let json = AdminAPITests.configuration.trimmingCharacters(in: .whitespacesAndNewlines).dropLast() + #", "email": \#(email)}"#
            store = InMemoryStore()
            server = try RelyingPartyServer(
                configuration: try ServerConfiguration.load(json: Data(json.utf8)),
                store: store,
                time: SystemTime(),
                enumerationSecret: Array(repeating: 0x5A, count: 32)
            )
            client = PasskeyClient(DirectTransport(handler: server))
            admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        }

        /// Gives the account an address, verified or not.
        func setEmail(_ userID: [UInt8], _ address: String, verified: Bool) throws {
            _ = try store.transaction { transaction throws(StorageError) in
                guard var user = try transaction.user(id: userID) else { return false }
                user.email = address
                user.emailVerified = verified
                return try transaction.updateUser(user)
            }
        }
    }

    @Test func deletingAnAccountSendsANoticeToItsVerifiedAddress() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        try fixture.setEmail(alice.userID, "alice@example.org", verified: true)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(alice.token)).status < 300)

        let received = relay.wait { $0.count == 1 }
        try #require(received.count == 1)
        let mail = received[0]
        #expect(mail.tls && mail.authenticated)
        #expect(mail.recipients == ["alice@example.org"] && mail.mailFrom == "no-reply@example.com")
        #expect(mail.fromDisplayName == "Example" && mail.subject == "Security notice for your Example account")
        #expect(mail.text?.contains("Your account was deleted.") == true)
        #expect(mail.html?.contains("<strong>Your account was deleted.</strong>") == true)
        #expect(mail.defects.isEmpty)
        // Sent: the row stays for the admin API, without the message.
        let sent = try fixture.store.mailOutbox(status: nil, after: 0, limit: 10)
        #expect(sent.map(\.status) == [.sent] && sent.map(\.kind) == ["securityNotice"] && sent.first?.message == nil)
        #expect("<\(sent.first?.messageID ?? "")@example.com>" == mail.messageID)
    }

    @Test func sessionsRevokedByAnAdministratorAreNoticedAndTheOutboxIsListed() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let grace = try fixture.client.register("grace")
        try fixture.setEmail(grace.userID, "grace@example.org", verified: true)
        let revoked = try fixture.admin.send("POST", "/admin/users/\(Base64URL.encode(grace.userID))/sessions/revoke", headers: AdminAPITests.key)
        #expect(revoked.status == 200, "\(revoked.text)")
        let received = relay.wait { $0.count == 1 }
        #expect(received.first?.text?.contains("An administrator signed your account out of every session.") == true)

        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, try fixture.store.mailOutboxCounts() != [.sent: 1] { usleep(50_000) }
        let page = try fixture.admin.send("GET", "/admin/mail?status=sent", headers: AdminAPITests.key)
        #expect(page.status == 200)
        let messages = page.object["messages"] as? [[String: Any]] ?? []
        #expect(messages.count == 1)
        #expect(messages.first?["kind"] as? String == "securityNotice" && messages.first?["recipient"] as? String == "grace@example.org")
        #expect(messages.first?["userId"] as? String == Base64URL.encode(grace.userID) && messages.first?["attempts"] as? Int == 1)
        #expect(!page.text.contains("administrator"), "no body in the listing")
        #expect(
            (try fixture.admin.send("GET", "/admin/mail?status=pending", headers: AdminAPITests.key).object["messages"] as? [Any])?.isEmpty == true
        )
        #expect(try fixture.admin.send("GET", "/admin/mail?status=bounced", headers: AdminAPITests.key).status == 400)
        #expect(try fixture.admin.send("GET", "/admin/mail?cursor=bm9wZQ", headers: AdminAPITests.key).status == 400)
        #expect(try fixture.admin.send("GET", "/admin/mail").status == 401)
    }

    @Test func aRefusedApplePrivateRelayAddressIsDeadAndCountedApart() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        try relay.misbehave(rcpt: 550)
        let fixture = try Fixture(relay: relay)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let leo = try fixture.client.register("leo")
        try fixture.setEmail(leo.userID, "x7y8z9@privaterelay.appleid.com", verified: true)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(leo.token)).status < 300)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try fixture.store.mailOutboxCounts() != [.dead: 1] { usleep(50_000) }
        let dead = try fixture.store.mailOutbox(status: .dead, after: 0, limit: 5)
        #expect(dead.count == 1 && dead.first?.lastError == "mail.rejectedPermanently" && dead.first?.lastReplyCode == 550)
        #expect(dead.first?.attempts == 1, "a 5xx is not retried")
        let attempts = try #require(fixture.server.metrics?.mailAttempts)
        #expect(attempts.series(["securityNotice", "dead", "apple_private_relay"]).value == 1)
        #expect(attempts.series(["securityNotice", "dead", "other"]).value == 0)
        #expect(relay.received().isEmpty)
    }

    @Test func anUnverifiedAddressIsNeverWrittenTo() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        let bob = try fixture.client.register("bob")
        try fixture.setEmail(bob.userID, "bob@example.org", verified: false)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(bob.token)).status < 300)
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).isEmpty)
    }

    @Test func switchedOffNoticesAreNotQueued() throws {
        let relay = try SMTPStandIn(security: .starttls)
        let fixture = try Fixture(relay: relay, extra: #", "messages": {"securityNotices": false}"#)
        let carol = try fixture.client.register("carol")
        try fixture.setEmail(carol.userID, "carol@example.org", verified: true)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(carol.token)).status < 300)
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).isEmpty)
    }

    @Test func anSMTPOutageLosesAndDuplicatesNothing() throws {
        let relay = try SMTPStandIn(security: .starttls)
        let fixture = try Fixture(relay: relay)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        // The relay is down: three accounts are deleted, their notices wait in the outbox.
        for name in ["dave", "erin", "frank"] {
            let account = try fixture.client.register(name)
            try fixture.setEmail(account.userID, "\(name)@example.org", verified: true)
            #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status < 300)
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try fixture.store.mailOutbox(status: .pending, after: 0, limit: 10).contains(where: { $0.attempts == 0 }) {
            usleep(100_000)
        }
        let waiting = try fixture.store.mailOutbox(status: .pending, after: 0, limit: 10)
        #expect(waiting.count == 3 && waiting.allSatisfy { $0.attempts >= 1 && $0.lastError == "mail.connectFailed" })
        // Up again: every notice arrives, once each.
        try relay.start()
        let received = relay.wait { $0.count >= 3 }
        usleep(1_500_000)
        let all = relay.received()
        #expect(all.count == 3, "nothing duplicated")
        #expect(Set(all.flatMap(\.recipients)) == ["dave@example.org", "erin@example.org", "frank@example.org"], "nothing lost")
        #expect(received.allSatisfy { $0.defects.isEmpty })
        #expect(try fixture.store.mailOutboxCounts() == [.sent: 3])
    }
}
