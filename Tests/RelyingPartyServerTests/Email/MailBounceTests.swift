import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer
@testable import Storage

/// Bounces and complaints that arrive after the relay accepted a message: a message is sent to a real relay
/// (aiosmtpd), then the provider's webhook for it, written and signed by Python with the provider's documented
/// algorithm, is posted to `POST /email/events/{provider}`; the admin API shows the bounce, the metric moves,
/// `email.bounced` is written, and the next message to the address is suppressed. Every unauthenticated or malformed
/// notification is refused with a stable code.
@Suite(.serialized) struct MailBounceTests {
    static let mailgunKey = "mailgun-signing-key-0123456789abcdef"
    static let postmarkUser = "postmark-hooks"
    static let postmarkPassword = "postmark webhook password 1"
    /// A Svix signing secret as Resend shows it.
    static let resendSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    /// Python's writer of the providers' notifications.
    static let webhooksPython =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/.venv-webhooks/bin/python"
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Tests/Python/mail/provider_notification.py"

    struct Fixture {
        let mail: SecurityNoticeMailTests.Fixture
        let folder: String

        init(relay: SMTPStandIn) throws {
            let folder = NSTemporaryDirectory() + "passkeyd-bounces-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try (MailBounceTests.mailgunKey + "\n").write(toFile: folder + "/mailgun-key", atomically: true, encoding: .utf8)
            try MailBounceTests.postmarkPassword.write(toFile: folder + "/postmark-password", atomically: true, encoding: .utf8)
            try MailBounceTests.resendSecret.write(toFile: folder + "/resend-secret", atomically: true, encoding: .utf8)
            let bounces = """
                , "bounces": {"mailgun": {"signingKeyFile": "\(folder)/mailgun-key"},
                 "postmark": {"username": "\(MailBounceTests.postmarkUser)", "passwordFile": "\(folder)/postmark-password"},
                 "resend": {"signingSecretFile": "\(folder)/resend-secret"}}
                """
            mail = try SecurityNoticeMailTests.Fixture(relay: relay, extra: bounces)
            self.folder = folder
        }

        /// A notification written by `Tests/Python/mail/provider_notification.py`.
        func notification(_ provider: String, _ arguments: [String]) throws -> (body: [UInt8], headers: [(String, String)]) {
            let files =
                switch provider {
                case "mailgun": ["--key-file", folder + "/mailgun-key"]
                case "postmark": ["--username", MailBounceTests.postmarkUser, "--password-file", folder + "/postmark-password"]
                default: ["--secret-file", folder + "/resend-secret"]
                }
            // Resend's is signed by PyPI's `standardwebhooks`, in the webhook tests' venv.
            let python = provider == "resend" ? MailBounceTests.webhooksPython : try SMTPStandIn.python()
            let result = try ChildProcess.run(python, [MailBounceTests.script, provider] + files + arguments)
            try #require(result.status == 0, "\(result.errorOutput)")
            let written = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
            let body = try #require(written["body"] as? String)
            let headers = try #require(written["headers"] as? [String: String])
            return (Array(body.utf8), headers.map { ($0.key, $0.value) })
        }

        func post(_ provider: String, _ notification: (body: [UInt8], headers: [(String, String)])) throws -> ServerReply {
            try mail.client.send("POST", "/email/events/\(provider)", json: notification.body, headers: notification.headers)
        }

        /// Sends an enrollment link by email to the account's verified address; the new message's outbox ID.
        func sendEnrollmentLink(_ userID: [UInt8]) throws -> Int64 {
            let before = try mail.store.mailOutbox(status: nil, after: 0, limit: 100).last?.id ?? 0
            let reply = try mail.admin.send(
                "POST",
                "/admin/users/\(Base64URL.encode(userID))/enrollment-links",
                json: Array(#"{"send": true}"#.utf8),
                headers: AdminAPITests.key + [("Content-Type", "application/json")]
            )
            try #require(reply.status == 201, "\(reply.text)")
            return try #require(try mail.store.mailOutbox(status: nil, after: before, limit: 1).first?.id)
        }

        func waitUntilSent(_ id: Int64) throws {
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, try mail.store.mailOutbox(status: .sent, after: id - 1, limit: 1).first?.id != id { usleep(50_000) }
            try #require(try mail.store.mailOutbox(status: .sent, after: id - 1, limit: 1).first?.id == id, "message \(id) sent")
        }

        func adminMessage(_ id: Int64) throws -> [String: Any] {
            let page = try mail.admin.send("GET", "/admin/mail", headers: AdminAPITests.key)
            let messages = try #require(page.object["messages"] as? [[String: Any]])
            return try #require(messages.first { ($0["id"] as? Int).map(Int64.init) == id })
        }

        func bouncedEvents() throws -> [[String: Any]] {
            try mail.store.allEvents().filter { $0.type == "email.bounced" }.map { event in
                try #require(try JSONSerialization.jsonObject(with: Data(event.data)) as? [String: Any])
            }
        }
    }

    @Test func aMailgunHardBounceIsRecordedCountedEventedAndSuppressesTheAddress() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        fixture.mail.server.startMail()
        defer { fixture.mail.server.stopMail() }
        let ada = try fixture.mail.client.register("ada")
        try fixture.mail.setEmail(ada.userID, "ada@example.org", verified: true)
        let first = try fixture.sendEnrollmentLink(ada.userID)
        try fixture.waitUntilSent(first)
        let received = try #require(relay.wait { $0.count == 1 }.first)

        // Mailgun returns the Message-ID passkeyd wrote, without its angle brackets.
        let messageID = String(received.messageID.dropFirst().dropLast())
        let notification = try fixture.notification(
            "mailgun",
            ["--event", "failed", "--severity", "permanent", "--recipient", "ada@example.org", "--message-id", messageID]
        )
        let reply = try fixture.post("mailgun", notification)
        #expect(reply.status == 200 && reply.object["recorded"] as? Bool == true, "\(reply.text)")

        let bounce = try #require(try fixture.adminMessage(first)["bounce"] as? [String: Any])
        #expect(bounce["kind"] as? String == "hard" && bounce["at"] != nil)
        #expect((bounce["reason"] as? String)?.hasPrefix("550 5.1.1") == true)
        let bounces = try #require(fixture.mail.server.metrics?.mailBounces)
        #expect(bounces.series(["hard", "mailgun", "other"]).value == 1)
        #expect(bounces.series(["hard", "mailgun", "apple_private_relay"]).value == 0)
        let events = try fixture.bouncedEvents()
        #expect(events.count == 1)
        #expect(events.first?["userId"] as? String == Base64URL.encode(ada.userID))
        #expect(events.first?["bounce"] as? String == "hard" && events.first?["provider"] as? String == "mailgun")
        #expect(events.first?["suppressed"] as? Bool == true)
        #expect(try fixture.mail.store.allEvents().allSatisfy { !String(decoding: $0.data, as: UTF8.self).contains("ada@example.org") })

        // The same notification again: its token was used.
        let replayed = try fixture.post("mailgun", notification)
        #expect(replayed.status == 401 && replayed.errorCode == "email_event_unauthenticated")
        #expect(try fixture.bouncedEvents().count == 1 && bounces.series(["hard", "mailgun", "other"]).value == 1)

        // The address is suppressed: the next message is recorded as suppressed and never reaches the relay.
        let listed = try fixture.mail.admin.send("GET", "/admin/mail/suppressions", headers: AdminAPITests.key)
        let suppressions = try #require(listed.object["suppressions"] as? [[String: Any]])
        #expect(suppressions.count == 1 && suppressions.first?["address"] as? String == "ada@example.org")
        #expect(suppressions.first?["kind"] as? String == "hard" && (suppressions.first?["mailId"] as? Int).map(Int64.init) == first)
        let second = try fixture.sendEnrollmentLink(ada.userID)
        #expect(try fixture.adminMessage(second)["status"] as? String == "suppressed")
        usleep(500_000)
        #expect(relay.received().count == 1, "nothing more was sent")

        // Cleared by the admin API: mail flows again.
        let cleared = try fixture.mail.admin.send("DELETE", "/admin/mail/suppressions/ada@example.org", headers: AdminAPITests.key)
        #expect(cleared.status == 200, "\(cleared.text)")
        let again = try fixture.mail.admin.send("DELETE", "/admin/mail/suppressions/ada@example.org", headers: AdminAPITests.key)
        #expect(again.status == 404 && again.errorCode == "not_found")
        let third = try fixture.sendEnrollmentLink(ada.userID)
        try fixture.waitUntilSent(third)
        #expect(relay.wait { $0.count == 2 }.count == 2)
    }

    @Test func aPostmarkComplaintFromARelayAddressIsMatchedByRecipientAndCountedApart() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        fixture.mail.server.startMail()
        defer { fixture.mail.server.stopMail() }
        let bea = try fixture.mail.client.register("bea")
        let address = "x7y8z9@privaterelay.appleid.com"
        try fixture.mail.setEmail(bea.userID, address, verified: true)
        let sent = try fixture.sendEnrollmentLink(bea.userID)
        try fixture.waitUntilSent(sent)

        // A soft bounce first: recorded, not suppressed.
        let soft = try fixture.notification("postmark", ["--record", "Bounce", "--type", "Transient", "--recipient", address, "--id", "1"])
        #expect(try fixture.post("postmark", soft).object["recorded"] as? Bool == true)
        #expect(try fixture.mail.store.mailSuppressions(after: "", limit: 5).isEmpty)
        // Then a complaint, matched by the recipient (Postmark's MessageID is its own).
        let complaint = try fixture.notification("postmark", ["--record", "SpamComplaint", "--recipient", address.uppercased(), "--id", "2"])
        let reply = try fixture.post("postmark", complaint)
        #expect(reply.status == 200 && reply.object["recorded"] as? Bool == true, "\(reply.text)")
        let bounce = try #require(try fixture.adminMessage(sent)["bounce"] as? [String: Any])
        #expect(bounce["kind"] as? String == "complaint")
        let bounces = try #require(fixture.mail.server.metrics?.mailBounces)
        #expect(bounces.series(["complaint", "postmark", "apple_private_relay"]).value == 1)
        #expect(bounces.series(["soft", "postmark", "apple_private_relay"]).value == 1)
        #expect(bounces.series(["complaint", "postmark", "other"]).value == 0)
        #expect(try fixture.mail.store.mailSuppressions(after: "", limit: 5).map(\.kind) == [.complaint])
        #expect(try fixture.bouncedEvents().map { $0["suppressed"] as? Bool } == [false, true])
        // Postmark sends a record again when it got no 200: recorded once.
        let duplicate = try fixture.post("postmark", complaint)
        #expect(duplicate.status == 200 && duplicate.object["recorded"] as? Bool == false)
        #expect(bounces.series(["complaint", "postmark", "apple_private_relay"]).value == 1)
    }

    @Test func aResendBounceSignedWithStandardWebhooksIsRecordedOnce() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try Fixture(relay: relay)
        fixture.mail.server.startMail()
        defer { fixture.mail.server.stopMail() }
        let cy = try fixture.mail.client.register("cy")
        try fixture.mail.setEmail(cy.userID, "cy@example.org", verified: true)
        let sent = try fixture.sendEnrollmentLink(cy.userID)
        try fixture.waitUntilSent(sent)

        // Svix's header names, as Resend sends them; then the same message ID again (a retry): recorded once.
        let bounced = ["--type", "email.bounced", "--recipient", "cy@example.org", "--id", "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"]
        let reply = try fixture.post("resend", try fixture.notification("resend", bounced + ["--svix"]))
        #expect(reply.status == 200 && reply.object["recorded"] as? Bool == true, "\(reply.text)")
        let bounce = try #require(try fixture.adminMessage(sent)["bounce"] as? [String: Any])
        #expect(bounce["kind"] as? String == "hard")
        let bounces = try #require(fixture.mail.server.metrics?.mailBounces)
        #expect(bounces.series(["hard", "resend", "other"]).value == 1)
        #expect(try fixture.mail.store.mailSuppressions(after: "", limit: 5).map(\.address) == ["cy@example.org"])
        let retried = try fixture.post("resend", try fixture.notification("resend", bounced))
        #expect(retried.status == 200 && retried.object["recorded"] as? Bool == false, "\(retried.text)")
        #expect(bounces.series(["hard", "resend", "other"]).value == 1)
        #expect(try fixture.bouncedEvents().count == 1)

        // A body changed after signing, a stale timestamp, no signature: refused.
        var tampered = try fixture.notification("resend", ["--type", "email.complained", "--recipient", "cy@example.org"])
        tampered.body = Array(String(decoding: tampered.body, as: UTF8.self).replacingOccurrences(of: "cy@", with: "dy@").utf8)
        #expect(try fixture.post("resend", tampered).errorCode == "email_event_unauthenticated")
        let stale = String(Int(Date().timeIntervalSince1970) - 3_600)
        let old = try fixture.notification("resend", ["--type", "email.complained", "--recipient", "cy@example.org", "--timestamp", stale])
        #expect(try fixture.post("resend", old).errorCode == "email_event_unauthenticated")
        let unsigned = try fixture.notification("resend", ["--type", "email.complained", "--recipient", "cy@example.org"])
        let bare = (unsigned.body, unsigned.headers.filter { $0.0 != "webhook-signature" })
        #expect(try fixture.post("resend", bare).errorCode == "email_event_unauthenticated")
        #expect(try fixture.bouncedEvents().count == 1, "nothing more recorded")
    }

    @Test func everyUnauthenticatedOrMalformedNotificationIsRefused() throws {
        let relay = try SMTPStandIn(security: .starttls)
        let fixture = try Fixture(relay: relay)
        let signed = ["--event", "failed", "--recipient", "nobody@example.org", "--message-id", "unknown@example.com"]

        // Unknown message: authenticated, answered 200, nothing recorded.
        let unknown = try fixture.post("mailgun", try fixture.notification("mailgun", signed))
        #expect(unknown.status == 200 && unknown.object["recorded"] as? Bool == false, "\(unknown.text)")

        // A signature made with another key.
        let otherKey = fixture.folder + "/other-key"
        try "another-signing-key-0123456789abcdef".write(toFile: otherKey, atomically: true, encoding: .utf8)
        let script = MailBounceTests.script
        let forged = try ChildProcess.run(try SMTPStandIn.python(), [script, "mailgun", "--key-file", otherKey] + signed)
        let forgedBody = try #require((try JSONSerialization.jsonObject(with: forged.output) as? [String: Any])?["body"] as? String)
        let refused = try fixture.mail.client.send(
            "POST",
            "/email/events/mailgun",
            json: Array(forgedBody.utf8),
            headers: [("Content-Type", "application/json")]
        )
        #expect(refused.status == 401 && refused.errorCode == "email_event_unauthenticated")

        // A stale timestamp (signed correctly an hour ago), and one from the future.
        for offset in [-3_600, 3_600] {
            let timestamp = String(Int(Date().timeIntervalSince1970) + offset)
            let stale = try fixture.post("mailgun", try fixture.notification("mailgun", signed + ["--timestamp", timestamp]))
            #expect(stale.status == 401 && stale.errorCode == "email_event_unauthenticated")
        }
        // A token taken once.
        let once = try fixture.notification("mailgun", signed + ["--token", String(repeating: "7", count: 50)])
        #expect(try fixture.post("mailgun", once).status == 200)
        #expect(try fixture.post("mailgun", once).errorCode == "email_event_unauthenticated")

        // Postmark: no credentials, other credentials.
        let complaint = try fixture.notification("postmark", ["--record", "SpamComplaint", "--recipient", "nobody@example.org"])
        let bare = complaint.headers.filter { $0.0 != "Authorization" }
        let without = try fixture.post("postmark", (complaint.body, bare))
        #expect(without.status == 401 && without.errorCode == "email_event_unauthenticated")
        #expect(without.headers["www-authenticate"] == "Basic realm=\"passkeyd\"")
        let wrong = "Basic " + Data("\(Self.postmarkUser):not the password".utf8).base64EncodedString()
        let other = try fixture.post("postmark", (complaint.body, bare + [("Authorization", wrong)]))
        #expect(other.status == 401 && other.errorCode == "email_event_unauthenticated")
        #expect(try fixture.post("postmark", complaint).status == 200, "the right credentials")

        // Oversize, malformed JSON, the wrong shape, the wrong media type: never a 500.
        let json = [("Content-Type", "application/json")]
        let large = try fixture.post("postmark", (Array(repeating: UInt8(ascii: " "), count: 70_000), complaint.headers))
        #expect(large.status == 413 && large.errorCode == "email_event_too_large")
        let broken = try fixture.post("postmark", (Array("{\"RecordType\": ".utf8), complaint.headers))
        #expect(broken.status == 400 && broken.errorCode == "invalid_json")
        let shapeless = try fixture.post("postmark", (Array(#"{"RecordType": "Bounce", "Type": "HardBounce"}"#.utf8), complaint.headers))
        #expect(shapeless.status == 400 && shapeless.errorCode == "invalid_request" && shapeless.object["member"] as? String == "Email")
        let mailgunBroken = try fixture.mail.client.send("POST", "/email/events/mailgun", json: Array("[1, 2".utf8), headers: json)
        #expect(mailgunBroken.status == 400 && mailgunBroken.errorCode == "invalid_json")
        let unsigned = try fixture.mail.client.send("POST", "/email/events/mailgun", json: Array(#"{"event-data": {}}"#.utf8), headers: json)
        #expect(unsigned.status == 400 && unsigned.object["member"] as? String == "signature")
        let text = try fixture.post(
            "postmark",
            (
                complaint.body,
                bare.filter { $0.0 != "Content-Type" } + [
                    ("Authorization", complaint.headers.first { $0.0 == "Authorization" }!.1), ("Content-Type", "text/plain"),
                ]
            )
        )
        #expect(text.status == 415)

        // A provider not configured, or unknown.
        #expect(try fixture.mail.client.send("POST", "/email/events/sendgrid", json: Array("{}".utf8), headers: json).status == 404)
        #expect(try fixture.mail.store.mailOutbox(status: nil, after: 0, limit: 5).isEmpty)
        #expect(try fixture.bouncedEvents().isEmpty)
    }

    @Test func aServerWithoutBouncesTakesNoNotification() throws {
        let relay = try SMTPStandIn(security: .starttls)
        let fixture = try SecurityNoticeMailTests.Fixture(relay: relay)
        for provider in ["mailgun", "postmark", "resend"] {
            let reply = try fixture.client.send(
                "POST",
                "/email/events/\(provider)",
                json: Array("{}".utf8),
                headers: [("Content-Type", "application/json")]
            )
            #expect(reply.status == 404 && reply.errorCode == "not_found")
        }
    }
}
