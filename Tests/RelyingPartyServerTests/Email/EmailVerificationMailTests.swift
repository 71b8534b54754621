import Accounts
import ConfigurationFile
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// Verifying an address through the whole path: `PATCH /me {"email"}`, the outbox, a real SMTP relay on loopback
/// (aiosmtpd, `make mail-deps`) whose messages Python's `email` package reads, then the link (a GET only shows the
/// page, the POST spends it) and the code; every refusal.
@Suite(.serialized) struct EmailVerificationMailTests {
    /// A server with `email` on a manual clock, its relay, and a signed-in account.
    struct Fixture {
        let relay: SMTPStandIn
        let clock = ManualClock(Date())
        let store = InMemoryStore()
        let server: RelyingPartyServer
        let client: PasskeyClient
        let admin: PasskeyClient

        /// `extra`: members of the configuration; `email`: more members of its `email` block.
        init(extra: String = "", email emailExtra: String = "") throws {
            relay = try SMTPStandIn(security: .starttls)
            try relay.start()
            let folder = NSTemporaryDirectory() + "passkeyd-verify-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try SMTPStandIn.password.write(toFile: folder + "/smtp-password", atomically: true, encoding: .utf8)
            let email = """
                {"host": "127.0.0.1", "port": \(relay.port), "username": "\(SMTPStandIn.user)", "passwordFile": "\(folder)/smtp-password",
                 "caFile": "\(relay.caFile)", "from": "no-reply@example.com", "fromName": "Example", "baseURL": "https://id.example.com",
                 "timeoutSeconds": 5, "connectTimeoutSeconds": 2, "firstRetrySeconds": 1, "maximumRetrySeconds": 1\(emailExtra)}
                """
            let json = AdminAPITests.configuration.trimmingCharacters(in: .whitespacesAndNewlines).dropLast() + #", "email": \#(email)\#(extra)}"#
            server = try RelyingPartyServer(
                configuration: try ServerConfiguration.load(json: Data(json.utf8)),
                store: store,
                time: clock,
                enumerationSecret: Array(repeating: 0x5A, count: 32)
            )
            client = PasskeyClient(DirectTransport(handler: server))
            admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
            server.startMail()
        }

        func patchEmail(_ token: String, _ address: String) throws -> ServerReply {
            try client.send("PATCH", "/me", json: Array(#"{"email": "\#(address)"}"#.utf8), headers: PasskeyClient.bearer(token))
        }

        /// The messages to `address`, once `count` arrived.
        func mail(to address: String, count: Int = 1) -> [SMTPStandIn.Received] {
            relay.wait { $0.filter { $0.recipients == [address] }.count >= count }.filter { $0.recipients == [address] }
        }

        func form(_ path: String, token: String) throws -> ServerReply {
            try client.send(
                "POST",
                path,
                json: Array(("token=" + token).utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
        }

        func user(_ id: [UInt8]) throws -> UserRecord? { try store.user(id: id) }
    }

    /// The link's path and query and the token in a message's text.
    static func link(in message: SMTPStandIn.Received, path: String) throws -> (pathAndQuery: String, token: String) {
        let text = try #require(message.text)
        let prefix = "https://id.example.com" + path + "?token="
        let start = try #require(text.range(of: prefix))
        let token = String(text[start.upperBound...].prefix { !$0.isWhitespace })
        return (path + "?token=" + token, token)
    }

    static func code(in message: SMTPStandIn.Received) throws -> String {
        let text = try #require(message.text)
        return try #require(text.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.count == 6 && $0.allSatisfy(\.isNumber) })
    }

    @Test func theLinkIsSpentByThePostNotByTheGetAndTheOldAddressIsTold() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let alice = try fixture.client.register("alice")
        let pending = try fixture.patchEmail(alice.token, "alice@example.org")
        #expect(pending.status == 202 && pending.object["pendingEmail"] as? String == "alice@example.org")
        #expect(try fixture.user(alice.userID)?.email == nil, "nothing changes before the address is verified")

        let message = try #require(fixture.mail(to: "alice@example.org").first)
        #expect(message.subject == "Verify your email address for Example" && message.defects.isEmpty)
        let (pathAndQuery, token) = try Self.link(in: message, path: "/email/verify")
        #expect(message.html?.contains("https://id.example.com/email/verify?token=" + token) == true, "links from the base URL only")
        let stored = try fixture.store.transaction { transaction throws(StorageError) in
            try transaction.emailToken(userID: alice.userID, purpose: .verifyAddress)
        }
        #expect(stored?.tokenHash == AccountService.emailTokenHash(token, .verifyAddress), "only the token's hash is stored")
        #expect(stored?.codeHash == AccountService.emailCodeHash(try Self.code(in: message), userID: alice.userID))

        // A mail scanner's GET: a page with a form, and nothing spent.
        let page = try fixture.client.send("GET", pathAndQuery)
        #expect(page.status == 200 && page.text.contains(#"<form method="post" action="/email/verify">"#) && page.text.contains(token))
        #expect(page.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        #expect(try fixture.user(alice.userID)?.emailVerified == false)
        let done = try fixture.form("/email/verify", token: token)
        #expect(done.status == 200 && done.text.contains("Your address is verified"), "\(done.text)")
        let verified = try #require(try fixture.user(alice.userID))
        #expect(verified.email == "alice@example.org" && verified.emailVerified)
        let again = try fixture.form("/email/verify", token: token)
        #expect(again.status == 400 && again.text.contains("email_verification_invalid"), "single use")
        let updated = try fixture.store.allEvents().filter { $0.type == "user.updated" }
        #expect(updated.count == 1 && String(decoding: updated[0].data, as: UTF8.self).contains("emailVerified"))

        // A second change, by the code this time: the old address is told.
        #expect(try fixture.patchEmail(alice.token, "alice@new.example").status == 202)
        let second = try #require(fixture.mail(to: "alice@new.example").first)
        let verify = try fixture.client.send(
            "POST",
            "/me/email/verify",
            json: Array(#"{"code": "\#(try Self.code(in: second))"}"#.utf8),
            headers: PasskeyClient.bearer(alice.token)
        )
        #expect(verify.status == 200 && (verify.object["user"] as? [String: Any])?["email"] as? String == "alice@new.example", "\(verify.text)")
        let told = fixture.mail(to: "alice@example.org", count: 2)
        #expect(told.last?.subject == "Your Example email address was changed")
        #expect(try fixture.user(alice.userID)?.email == "alice@new.example")
    }

    @Test func everyRefusalOfACode() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let bob = try fixture.client.register("bob")
        func send(_ code: String) throws -> ServerReply {
            try fixture.client.send("POST", "/me/email/verify", json: Array(#"{"code": "\#(code)"}"#.utf8), headers: PasskeyClient.bearer(bob.token))
        }
        #expect(try send("123456").errorCode == "email_verification_invalid", "nothing pending")
        #expect(try fixture.patchEmail(bob.token, "bob@example.org").status == 202)
        let code = try Self.code(in: try #require(fixture.mail(to: "bob@example.org").first))
        let wrong = code == "000000" ? "000001" : "000000"
        for _ in 0..<4 { #expect(try send(wrong).errorCode == "email_verification_invalid") }
        // The fifth try is the last allowed; the sixth is refused even with the right code: counted in the store.
        #expect(try send(wrong).errorCode == "email_verification_invalid")
        #expect(try send(code).errorCode == "email_verification_locked")
        let counted = try fixture.store.transaction { transaction throws(StorageError) in
            try transaction.emailToken(userID: bob.userID, purpose: .verifyAddress)?.attempts
        }
        #expect(counted == 6)
        #expect(try fixture.user(bob.userID)?.email == nil)

        // A new request replaces the locked one; its code works, but not once expired.
        #expect(try fixture.patchEmail(bob.token, "bob@example.org").status == 202)
        let fresh = try Self.code(in: try #require(fixture.mail(to: "bob@example.org", count: 2).last))
        fixture.clock.advance(by: 86_401)
        #expect(try send(fresh).errorCode == "email_verification_expired")
        #expect(try send(fresh).errorCode == "email_verification_invalid", "an expired verification is gone")
        #expect(try fixture.user(bob.userID)?.emailVerified == false)
    }

    @Test func everyRefusalOfALink() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let carol = try fixture.client.register("carol")
        #expect(try fixture.patchEmail(carol.token, "carol@example.org").status == 202)
        let first = try Self.link(in: try #require(fixture.mail(to: "carol@example.org").first), path: "/email/verify").token
        #expect(try fixture.patchEmail(carol.token, "carol@example.net").status == 202)
        let second = try Self.link(in: try #require(fixture.mail(to: "carol@example.net").first), path: "/email/verify").token
        #expect(try fixture.form("/email/verify", token: first).text.contains("email_verification_invalid"), "replaced by the newer one")
        let json = try fixture.client.send("POST", "/email/verify", json: Array(#"{"token": "\#(first)"}"#.utf8))
        #expect(json.status == 400 && json.errorCode == "email_verification_invalid")
        let empty = try fixture.form("/email/verify", token: "")
        #expect(empty.status == 400 && empty.text.contains("invalid_request") && empty.headers["content-type"]?.hasPrefix("text/html") == true)
        fixture.clock.advance(by: 86_400)  // email.verificationLifetimeSeconds, a day by default
        let expired = try fixture.form("/email/verify", token: second)
        #expect(expired.status == 400 && expired.text.contains("email_verification_expired"))
        #expect(try fixture.user(carol.userID)?.email == nil)
    }

    @Test func headerInjectionIsRefusedAndNothingIsQueued() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let dave = try fixture.client.register("dave")
        for address in [#"dave@example.org\r\nBcc: eve@example.org"#, #"dave@example.org\nX: y"#, "not an address", "dave@example.org\\u0000"] {
            let reply = try fixture.patchEmail(dave.token, address)
            #expect(reply.status == 400 && reply.errorCode == "invalid_request" && reply.object["member"] as? String == "email", "\(address)")
            let recovery = try fixture.client.send("POST", "/auth/recovery/email", json: Array(#"{"email": "\#(address)"}"#.utf8))
            #expect(recovery.status == 400 && recovery.errorCode == "invalid_request")
        }
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).isEmpty)
    }

    @Test func resendsAreLimitedPerAccountAndPerRecipient() throws {
        let fixture = try Fixture(extra: #", "rateLimits": {"mailPerRecipientPerHour": 2}"#)
        defer { fixture.server.stopMail() }
        let erin = try fixture.client.register("erin")
        let frank = try fixture.client.register("frank")
        #expect(try fixture.patchEmail(erin.token, "a@example.org").status == 202)
        #expect(try fixture.patchEmail(erin.token, "b@example.org").status == 202)
        let third = try fixture.patchEmail(erin.token, "c@example.org")
        #expect(third.status == 429 && third.errorCode == "rate_limited" && third.headers["retry-after"] != nil, "per account")
        #expect(try fixture.patchEmail(frank.token, "a@example.org").status == 202)
        #expect(try fixture.patchEmail(frank.token, "a@example.org").status == 429, "per recipient")
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 10).count == 3)
    }

    @Test func theAdminAPIsNewAddressIsVerifiedFirstUnlessTheAppVouches() throws {
        let fixture = try Fixture()
        defer { fixture.server.stopMail() }
        let grace = try fixture.client.register("grace")
        let path = "/admin/users/\(Base64URL.encode(grace.userID))"
        let changed = try fixture.admin.send("PATCH", path, json: Array(#"{"email": "grace@example.org"}"#.utf8), headers: AdminAPITests.key)
        #expect(changed.status == 200 && (changed.object["user"] as? [String: Any])?["email"] == nil, "\(changed.text)")
        let message = try #require(fixture.mail(to: "grace@example.org").first)
        #expect(try fixture.form("/email/verify", token: try Self.link(in: message, path: "/email/verify").token).status == 200)
        #expect(try fixture.user(grace.userID)?.emailVerified == true)
        let vouched = try fixture.admin.send(
            "PATCH",
            path,
            json: Array(#"{"email": "grace@example.net", "emailVerified": true}"#.utf8),
            headers: AdminAPITests.key
        )
        #expect(vouched.status == 200 && (vouched.object["user"] as? [String: Any])?["email"] as? String == "grace@example.net")
    }
}
