import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Issue 16: every account change reaches the app's backend as a Standard Webhooks delivery that the `standardwebhooks`
/// PyPI library verifies unchanged (`Tests/Python/webhooks/receiver.py`): registration, sign-in, rename, deletion and each
/// Apple notification, with their payloads, the event's stable ID and time, and the endpoints' `events` filters.
@Suite(.serialized) struct WebhookEventTests {
    @Test func everyAccountChangeIsDeliveredSignedAndInOrder() throws {
        let folder = try TemporaryFolder()
        let receiver = try WebhookReceiver(folder: folder.path)
        try receiver.start()
        let webhooks =
            "[\(receiver.configurationMember()), \(receiver.configurationMember(id: "deletions", path: "/deletions", events: ["user.deleted"]))]"
        let fixture = try AppleFixture(clock: ManualClock(Date()), webhooks: webhooks)
        try fixture.server.startWebhooks()
        defer { fixture.server.stopWebhooks() }

        // A passkey account: registered, signed in, its passkey renamed, then deleted.
        let alice = try fixture.client.register("alice")
        let aliceID = Base64URL.encode(alice.userID)
        let credentialID = Base64URL.encode(alice.credential.id)
        #expect(try fixture.client.signIn(alice.credential, username: "alice", .init(signCount: 1)).status == 200)
        let renamed = try fixture.client.send(
            "PATCH",
            "/me/passkeys/\(credentialID)",
            json: Array(#"{"name": "Work laptop"}"#.utf8),
            headers: PasskeyClient.bearer(alice.token)
        )
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(alice.token)).status < 300)

        // An Apple account through every notification: revoked, it keeps its link, so signing in again lands in it; then
        // Apple deletes the Apple Account, its only way in.
        let appleUser = Base64URL.encode(try AppleFixture.userID(try fixture.signInFresh()))
        for type in ["email-disabled", "email-enabled", "consent-revoked"] {
            #expect(try fixture.notify(AppleFixture.event(type, email: type.hasPrefix("email"))).status == 200)
        }
        #expect(Base64URL.encode(try AppleFixture.userID(try fixture.signInFresh())) == appleUser)
        #expect(try fixture.notify(AppleFixture.event("account-delete")).status == 200)

        let expected: [(user: String, type: String)] = [
            (aliceID, "user.created"), (aliceID, "passkey.registered"), (aliceID, "session.created"), (aliceID, "session.created"),
            (aliceID, "passkey.renamed"), (aliceID, "user.deleted"),
            (appleUser, "user.created"), (appleUser, "apple.linked"), (appleUser, "session.created"), (appleUser, "apple.email_disabled"),
            (appleUser, "apple.email_enabled"), (appleUser, "apple.consent_revoked"), (appleUser, "session.revoked"),
            (appleUser, "session.created"), (appleUser, "user.deleted"),
        ]
        let all = receiver.wait(seconds: 60) { $0.count >= expected.count + 2 }
        #expect(receiver.deliveries().allSatisfy { $0.verified }, "every delivery verifies with standardwebhooks")
        let everything = all.filter { $0.path == "/hooks" }
        // In order per user; the users' deliveries interleave.
        for user in [aliceID, appleUser] {
            #expect(
                everything.filter { $0.data["userId"] as? String == user }.map(\.type) == expected.filter { $0.user == user }.map(\.type),
                "the events of \(user), in order"
            )
        }
        #expect(everything.count == expected.count)
        #expect(all.filter { $0.path == "/deletions" }.map(\.type) == ["user.deleted", "user.deleted"], "the filtered endpoint")

        // Each delivery is the outbox's event: its ID, its time, its payload.
        let events = try fixture.store.allEvents()
        for delivery in everything {
            guard let event = events.first(where: { $0.publicID == delivery.id }) else {
                Issue.record("no event for \(delivery.id)")
                continue
            }
            #expect(delivery.type == event.type)
            #expect(
                ISO8601Time.parse(delivery.timestamp).map { abs($0.timeIntervalSince(event.occurredAt)) < 0.001 } == true,
                "\(delivery.timestamp)"
            )
            let payload = try JSONSerialization.jsonObject(with: Data(event.data)) as? NSDictionary
            #expect(payload == delivery.data as NSDictionary)
        }
        // The users' deliveries interleave, so each user's creation is found by its user.
        for (user, method) in [(aliceID, "passkey"), (appleUser, "apple")] {
            let created = everything.first { $0.type == "user.created" && $0.data["userId"] as? String == user }
            #expect(created?.data["method"] as? String == method, "the creation of \(user)")
        }
        #expect(everything.first { $0.type == "passkey.renamed" }?.data["credentialId"] as? String == credentialID)
        #expect(
            Set(everything.filter { $0.type == "user.deleted" }.compactMap { $0.data["reason"] as? String }) == ["self", "apple_account_deleted"]
        )
        #expect(everything.first { $0.type == "apple.consent_revoked" }?.data["appleUserId"] as? String == AppleTokenMinter.subject)
        let secrets = ["Work laptop", alice.token, AppleTokenMinter.email]
        for delivery in receiver.deliveries() {
            let text = String(describing: delivery.data)
            #expect(!secrets.contains { text.contains($0) }, "no token, name or email in \(delivery.type)")
        }
        let counts = try fixture.store.webhookDeliveryCounts()
        #expect(counts.allSatisfy { $0.status == .delivered }, "\(counts)")
        // Each attempt is counted by endpoint and outcome: the filtered endpoint's two, delivered at the first.
        #expect(try Self.attempts(fixture.server, endpoint: "deletions", outcome: "delivered", reaching: 2) == 2)
        #expect(try Self.attempts(fixture.server, endpoint: "deletions", outcome: "failed", reaching: 0) == nil)
    }

    /// An endpoint answering 500: the failed attempt is counted as `failed` (to be retried), none as `delivered`. The
    /// clock stands still, so the retry never comes due, and the user's later events wait behind the first (in order).
    @Test func failedAttemptsAreCountedByEndpoint() throws {
        let folder = try TemporaryFolder()
        let receiver = try WebhookReceiver(folder: folder.path)
        try receiver.start()
        try receiver.answer(500)
        let fixture = try AppleFixture(clock: ManualClock(Date()), webhooks: "[\(receiver.configurationMember(id: "down"))]")
        try fixture.server.startWebhooks()
        defer { fixture.server.stopWebhooks() }
        _ = try fixture.client.register("bob")
        #expect(try Self.attempts(fixture.server, endpoint: "down", outcome: "failed", reaching: 1) == 1)
        #expect(receiver.deliveries().map(\.status) == [500], "one attempt, answered 500")
        #expect(try Self.attempts(fixture.server, endpoint: "down", outcome: "delivered", reaching: 0) == nil)
    }

    /// `passkeyd_webhook_attempts_total` of `endpoint` and `outcome`, once it reaches `count` (within 10 s), or as it
    /// stands then; nil when the series does not exist.
    static func attempts(_ server: RelyingPartyServer, endpoint: String, outcome: String, reaching count: Double) throws -> Double? {
        let deadline = Date().addingTimeInterval(count > 0 ? 10 : 0)
        while true {
            let value = try MetricsTests.scrape(server)["passkeyd_webhook_attempts"]?.value(
                "passkeyd_webhook_attempts_total",
                ["endpoint": endpoint, "outcome": outcome]
            )
            if (value ?? 0) >= count || Date() >= deadline { return value }
            usleep(100_000)
        }
    }
}
