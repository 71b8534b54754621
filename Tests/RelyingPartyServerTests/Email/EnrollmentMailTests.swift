import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer
@testable import Storage

/// The admin API's enrollment link sent by passkeyd (`{"send": true}`): received by a real relay, read by Python's
/// `email` package, and followed to register a passkey; refused for an unverified address and without email.
@Suite(.serialized) struct EnrollmentMailTests {
    static let prefix = "https://example.com/enroll?token="

    @Test func aSentLinkArrivesAndRegistersAPasskey() throws {
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        let fixture = try SecurityNoticeMailTests.Fixture(relay: relay)
        fixture.server.startMail()
        defer { fixture.server.stopMail() }
        let ivan = try fixture.client.register("ivan")
        try fixture.setEmail(ivan.userID, "ivan@example.org", verified: true)
        let reply = try fixture.admin.send(
            "POST",
            "/admin/users/\(Base64URL.encode(ivan.userID))/enrollment-links",
            json: Array(#"{"send": true}"#.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/json")]
        )
        #expect(reply.status == 201, "\(reply.text)")
        let url = try #require(reply.object["url"] as? String)

        let received = relay.wait { $0.count == 1 }
        let mail = try #require(received.first)
        #expect(mail.recipients == ["ivan@example.org"] && mail.subject == "Set up a passkey for Example" && mail.defects.isEmpty)
        let text = try #require(mail.text)
        let linkStart = try #require(text.range(of: Self.prefix))
        let link = String(text[linkStart.lowerBound...].prefix { !$0.isWhitespace })
        #expect(link == url, "the mailed link is the one the admin API answered")
        #expect(mail.html?.contains("href=\"\(url)\"") == true)

        // Followed: the link's token registers a new passkey on the account.
        let token = String(link.dropFirst(Self.prefix.count))
        let options = try fixture.client.post("/webauthn/registration/options", ["enrollmentToken": token])
        #expect(options.status == 200, "\(options.text)")
        let creation = try options.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let credential = try SoftwareCredential.generate(.es256, userHandle: try PasskeyClient.bytes(creation.user.id))
        let response = try fixture.client.authenticator.register(
            credential,
            challenge: try PasskeyClient.bytes(creation.challenge),
            options: RegistrationOptions()
        )
        let verified = try fixture.client.registrationVerify(response)
        #expect(verified.status == 200, "\(verified.text)")
        #expect(try fixture.store.credentials(userID: ivan.userID).count == 2)
    }

    @Test func anUnverifiedAddressIsRefusedAndNothingIsWritten() throws {
        let relay = try SMTPStandIn(security: .starttls)
        let fixture = try SecurityNoticeMailTests.Fixture(relay: relay)
        let judy = try fixture.client.register("judy")
        try fixture.setEmail(judy.userID, "judy@example.org", verified: false)
        let reply = try fixture.admin.send(
            "POST",
            "/admin/users/\(Base64URL.encode(judy.userID))/enrollment-links",
            json: Array(#"{"send": true}"#.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/json")]
        )
        #expect(reply.status == 409 && reply.errorCode == "email_not_verified")
        #expect(fixture.store.state.withLock { $0.enrollmentTokens.isEmpty }, "no link was made")
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 5).isEmpty)
        // Without `send`, the link is made as before and nothing is mailed.
        let plain = try fixture.admin.send("POST", "/admin/users/\(Base64URL.encode(judy.userID))/enrollment-links", headers: AdminAPITests.key)
        #expect(plain.status == 201)
        #expect(try fixture.store.mailOutbox(status: nil, after: 0, limit: 5).isEmpty)
    }

    @Test func aServerWithoutEmailRefusesToSend() throws {
        let store = InMemoryStore()
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(AdminAPITests.configuration), store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        let kim = try client.register("kim")
        let reply = try admin.send(
            "POST",
            "/admin/users/\(Base64URL.encode(kim.userID))/enrollment-links",
            json: Array(#"{"send": true}"#.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/json")]
        )
        #expect(reply.status == 400 && reply.errorCode == "email_not_configured")
        #expect(store.state.withLock { $0.enrollmentTokens.isEmpty })
        let malformed = try admin.send(
            "POST",
            "/admin/users/\(Base64URL.encode(kim.userID))/enrollment-links",
            json: Array(#"{"send": "yes"}"#.utf8),
            headers: AdminAPITests.key + [("Content-Type", "application/json")]
        )
        #expect(malformed.status == 400)
    }
}
