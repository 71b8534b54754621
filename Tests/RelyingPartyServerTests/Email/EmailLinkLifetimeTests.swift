import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `email.verificationLifetimeSeconds` and `email.recoveryLinkLifetimeSeconds`: what the messages say, and the links
/// and codes refused once the configured time is over (not the defaults').
@Suite(.serialized) struct EmailLinkLifetimeTests {
    typealias Fixture = EmailVerificationMailTests.Fixture

    @Test func aRecoveryLinkLivesAsLongAsConfigured() throws {
        let fixture = try Fixture(email: #", "recoveryLinkLifetimeSeconds": 120"#)
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        _ = try fixture.store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: alice.userID) else { return false }
            (user.email, user.emailVerified) = ("alice@example.org", true)
            return try transaction.updateUser(user)
        }
        func request(_ count: Int) throws -> String {
            #expect(try fixture.client.send("POST", "/auth/recovery/email", json: Array(#"{"email": "alice@example.org"}"#.utf8)).status == 202)
            let message = try #require(fixture.mail(to: "alice@example.org", count: count).last)
            #expect(message.text?.contains("expires in 2 minutes") == true, "\(message.text ?? "")")
            return try EmailVerificationMailTests.link(in: message, path: "/auth/recovery/email").token
        }
        func open(_ token: String) throws -> ServerReply {
            try fixture.client.send("POST", "/auth/recovery/email/session", json: Array(#"{"token": "\#(token)"}"#.utf8))
        }
        let first = try request(1)
        fixture.clock.advance(by: 120)
        #expect(try open(first).errorCode == "recovery_link_invalid", "expired after the configured two minutes")
        let second = try request(2)
        fixture.clock.advance(by: 119)
        #expect(try open(second).status == 200, "valid until then")
    }

    @Test func aVerificationLivesAsLongAsConfigured() throws {
        let fixture = try Fixture(email: #", "verificationLifetimeSeconds": 600"#)
        defer { fixture.server.stopMail() }
        let bob = try fixture.client.register("bob")
        #expect(try fixture.patchEmail(bob.token, "bob@example.org").status == 202)
        let message = try #require(fixture.mail(to: "bob@example.org").first)
        #expect(message.text?.contains("expire in 10 minutes") == true, "\(message.text ?? "")")
        let stored = try fixture.store.transaction { transaction throws(StorageError) in
            try transaction.emailToken(userID: bob.userID, purpose: .verifyAddress)
        }
        #expect(stored.map { $0.expiresAt.timeIntervalSince($0.createdAt) } == 600)
        fixture.clock.advance(by: 600)
        let code = try EmailVerificationMailTests.code(in: message)
        let late = try fixture.client.send(
            "POST",
            "/me/email/verify",
            json: Array(#"{"code": "\#(code)"}"#.utf8),
            headers: PasskeyClient.bearer(bob.token)
        )
        #expect(late.errorCode == "email_verification_expired")
        #expect(try fixture.user(bob.userID)?.email == nil)
    }
}
