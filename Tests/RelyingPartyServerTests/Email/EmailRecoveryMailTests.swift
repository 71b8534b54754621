import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Recovery by email through the whole path: `POST /auth/recovery/email`, the outbox, aiosmtpd on loopback, the link's
/// page (GET spends nothing), its POST opening the restricted session of a recovery code, and a passkey registered
/// with it; the same answer for every address; never to an unverified or merely pending address; the limits.
@Suite(.serialized) struct EmailRecoveryMailTests {
    typealias Fixture = EmailVerificationMailTests.Fixture

    func request(_ fixture: Fixture, _ address: String) throws -> ServerReply {
        try fixture.client.send("POST", "/auth/recovery/email", json: Array(#"{"email": "\#(address)"}"#.utf8))
    }

    func setEmail(_ fixture: Fixture, _ userID: [UInt8], _ address: String, verified: Bool) throws {
        _ = try fixture.store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: userID) else { return false }
            (user.email, user.emailVerified) = (address, verified)
            return try transaction.updateUser(user)
        }
    }

    @Test func aRecoveryLinkOpensARestrictedSessionThatAddsAPasskey() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        try setEmail(fixture, alice.userID, "alice@example.org", verified: true)
        let known = try request(fixture, "Alice@Example.org")
        let unknown = try request(fixture, "nobody@example.org")
        #expect(known.status == 202 && unknown.status == 202 && known.text == unknown.text, "the same answer: no enumeration")

        let message = try #require(fixture.mail(to: "alice@example.org").first)
        #expect(message.subject == "Recover your Example account" && message.defects.isEmpty)
        let (pathAndQuery, token) = try EmailVerificationMailTests.link(in: message, path: "/auth/recovery/email")
        let page = try fixture.client.send("GET", pathAndQuery)
        #expect(page.status == 200 && page.text.contains(#"<script src="/auth/recovery/email/page.js" defer></script>"#))
        #expect(!page.text.contains(token), "the script reads the token from the address; the page does not repeat it")
        #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        let script = try fixture.client.send("GET", "/auth/recovery/email/page.js")
        #expect(script.status == 200 && script.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(script.text.contains(#"post("/auth/recovery/email/session", { token: token })"#))
        #expect(try fixture.store.allEvents().contains { $0.type == "recovery_link.used" } == false, "the GET spent nothing")

        let opened = try fixture.client.send("POST", "/auth/recovery/email/session", json: Array(#"{"token": "\#(token)"}"#.utf8))
        #expect(opened.status == 200 && opened.object["restricted"] as? Bool == true, "\(opened.text)")
        let session = try #require(opened.object["token"] as? String)
        let bearer = PasskeyClient.bearer(session)
        #expect(try fixture.client.send("DELETE", "/me", headers: bearer).errorCode == "recovery_session_restricted")
        #expect(try fixture.client.send("POST", "/me/recovery-codes", headers: bearer).errorCode == "recovery_session_restricted")
        let added = try fixture.client.addPasskey(token: session)
        #expect(try fixture.store.credentials(userID: alice.userID).count == 2)
        #expect(try fixture.client.signIn(added).status == 200)
        let again = try fixture.client.send("POST", "/auth/recovery/email/session", json: Array(#"{"token": "\#(token)"}"#.utf8))
        #expect(again.status == 400 && again.errorCode == "recovery_link_invalid", "single use")
        let types = try fixture.store.allEvents().map(\.type)
        #expect(types.contains("recovery_link.used"))
        // The notices of the recovery and of the passkey it added go to the verified address.
        let notices = fixture.mail(to: "alice@example.org", count: 3).dropFirst().compactMap(\.text)
        #expect(notices.count == 2 && notices.contains { $0.contains("A recovery link sent by email was used") })
        #expect(notices.contains { $0.contains("A passkey was added to your account.") })
    }

    @Test func noLinkToAnUnverifiedOrPendingAddress() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let bob = try fixture.client.register("bob")
        try setEmail(fixture, bob.userID, "bob@example.org", verified: false)
        #expect(try request(fixture, "bob@example.org").status == 202)
        let carol = try fixture.client.register("carol")
        #expect(try fixture.patchEmail(carol.token, "carol@example.org").status == 202)
        #expect(try request(fixture, "carol@example.org").status == 202)
        let kinds = try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).map(\.kind)
        #expect(kinds == ["verifyAddress"], "only carol's verification: no recovery link to either address")
    }

    @Test func anExpiredOrReplacedLinkOrOneToAnOldAddressIsRefused() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let dave = try fixture.client.register("dave")
        try setEmail(fixture, dave.userID, "dave@example.org", verified: true)
        func open(_ token: String) throws -> ServerReply {
            try fixture.client.send(
                "POST",
                "/auth/recovery/email/session",
                json: Array(("token=" + token).utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
        }
        #expect(try request(fixture, "dave@example.org").status == 202)
        let first = try EmailVerificationMailTests.link(in: try #require(fixture.mail(to: "dave@example.org").first), path: "/auth/recovery/email")
        #expect(try request(fixture, "dave@example.org").status == 202)
        let second = try EmailVerificationMailTests.link(
            in: try #require(fixture.mail(to: "dave@example.org", count: 2).last),
            path: "/auth/recovery/email"
        )
        #expect(try open(first.token).errorCode == "recovery_link_invalid", "replaced by the newer link")
        // A verification link never opens a recovery session (the hashes are bound to their purpose).
        #expect(try request(fixture, "dave@example.org").status == 202)
        let third = try EmailVerificationMailTests.link(
            in: try #require(fixture.mail(to: "dave@example.org", count: 3).last),
            path: "/auth/recovery/email"
        )
        #expect(try fixture.form("/email/verify", token: third.token).status == 400)
        try setEmail(fixture, dave.userID, "dave@example.net", verified: true)
        #expect(try open(third.token).errorCode == "recovery_link_invalid", "the address is no longer the account's")
        fixture.clock.advance(by: 900)  // email.recoveryLinkLifetimeSeconds, 15 minutes by default
        #expect(try open(second.token).errorCode == "recovery_link_invalid", "replaced, then expired")
        #expect(try fixture.store.allEvents().contains { $0.type == "recovery_link.used" } == false)
    }

    @Test func requestsAreLimitedPerRecipientAndPerClientAddress() throws {
        let fixture = try Fixture(extra: #", "rateLimits": {"mailPerRecipientPerHour": 2, "mailPerAddressPerHour": 3}"#)
        defer { fixture.server.stopMail() }
        let erin = try fixture.client.register("erin")
        try setEmail(fixture, erin.userID, "erin@example.org", verified: true)
        #expect(try request(fixture, "erin@example.org").status == 202)
        #expect(try request(fixture, "erin@example.org").status == 202)
        let third = try request(fixture, "erin@example.org")
        #expect(third.status == 429 && third.errorCode == "rate_limited", "per recipient")
        #expect(try request(fixture, "someone@example.org").status == 429, "per client address: the fourth request")
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).count == 2)
    }
}
