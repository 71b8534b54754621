import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer
@testable import Storage

/// Enrollment links (`POST /admin/users/{id}/enrollment-links`): a single-use, expiring link that registers a passkey
/// on its account without a session, taken in the transaction that adds the passkey; each refusal with its own code.
struct EnrollmentLinkTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let server: RelyingPartyServer
    let client: PasskeyClient
    let admin: PasskeyClient

    init() throws {
        server = try TestServerFactory.make(
            configuration: try TestServerFactory.configuration(AdminAPITests.configuration),
            store: store,
            clock: clock
        )
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    /// A new link for the account: its token.
    func link(_ userID: [UInt8]) throws -> String {
        let reply = try admin.send("POST", "/admin/users/\(Base64URL.encode(userID))/enrollment-links", headers: AdminAPITests.key)
        #expect(reply.status == 201, "\(reply.text)")
        let url = try #require(reply.object["url"] as? String)
        let prefix = "https://example.com/enroll?token="
        #expect(url.hasPrefix(prefix))
        return String(url.dropFirst(prefix.count))
    }

    func options(_ token: String) throws -> ServerReply {
        try client.post("/webauthn/registration/options", ["enrollmentToken": token])
    }

    /// Options and verify through the link with a new credential (or `credential`).
    func enroll(_ token: String, credential: SoftwareCredential? = nil) throws -> (reply: ServerReply, credential: SoftwareCredential?) {
        let reply = try options(token)
        guard reply.status == 200 else { return (reply, nil) }
        return try verify(try reply.decode(PublicKeyCredentialCreationOptionsJSON.self), credential: credential)
    }

    func verify(
        _ options: PublicKeyCredentialCreationOptionsJSON,
        credential: SoftwareCredential? = nil
    ) throws -> (
        reply: ServerReply, credential: SoftwareCredential?
    ) {
        let made = try credential ?? SoftwareCredential.generate(.es256, userHandle: try PasskeyClient.bytes(options.user.id))
        let response = try client.authenticator.register(made, challenge: try PasskeyClient.bytes(options.challenge), options: RegistrationOptions())
        return (try client.registrationVerify(response), made)
    }

    @Test func aLinkRegistersAPasskeyOnItsAccountAndSignsIn() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        #expect(Base64URL.decode(token)?.count == 32)
        let stored = store.state.withLock { Array($0.enrollmentTokens.values) }
        #expect(stored.map(\.tokenHash) == [DigestAlgorithm.sha256.hash(Array(token.utf8))], "only the token's SHA-256")
        #expect(stored.first?.expiresAt == clock.now.addingTimeInterval(86_400), "24 hours by default")

        let optionsReply = try options(token)
        #expect(optionsReply.status == 200)
        let creation = try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(creation.user.id == Base64URL.encode(alice.userID) && creation.user.name == "alice")
        #expect(creation.excludeCredentials.map(\.id) == [Base64URL.encode(alice.credential.id)], "the account's passkeys are excluded")
        let (reply, added) = try verify(creation)
        #expect(reply.status == 200 && reply.object["verified"] as? Bool == true)
        let token2 = try #require(reply.object["token"] as? String)
        let me = try client.send("GET", "/me", headers: PasskeyClient.bearer(token2))
        #expect((me.object["user"] as? [String: Any])?["id"] as? String == Base64URL.encode(alice.userID))
        #expect(try store.credentials(userID: alice.userID).count == 2)
        #expect(store.state.withLock { $0.enrollmentTokens.isEmpty }, "the link is spent")
        #expect(try client.signIn(try #require(added)).status == 200, "the new passkey signs in")

        let types = try store.allEvents().map(\.type)
        // The registration's, then the link's and its use (one transaction), then the new passkey's sign-in.
        #expect(
            types == [
                "user.created", "passkey.registered", "session.created", "enrollment_link.created", "passkey.registered",
                "enrollment_link.used", "session.created", "session.created",
            ]
        )
        let used = try #require(try store.allEvents().first { $0.type == "enrollment_link.used" })
        #expect(String(decoding: used.data, as: UTF8.self).contains(Base64URL.encode(try #require(added).id)))
    }

    @Test func aLinkUsedTwiceIsRefusedAndTwoVerifiesWithOneLinkHaveOneWinner() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        let first = try options(token).decode(PublicKeyCredentialCreationOptionsJSON.self)
        let second = try options(token).decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(try verify(first).reply.status == 200)
        let late = try verify(second).reply
        #expect(late.status == 400 && late.errorCode == "enrollment_link_invalid", "the link was taken by the first")
        #expect(try options(token).errorCode == "enrollment_link_invalid", "used")
        #expect(try store.credentials(userID: alice.userID).count == 2)
        #expect(try store.allEvents().filter { $0.type == "enrollment_link.used" }.count == 1)
    }

    @Test func anExpiredLinkIsRefusedAtOptionsAndAtVerify() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        clock.advance(by: 86_400 - 10)
        let creation = try options(token).decode(PublicKeyCredentialCreationOptionsJSON.self)
        clock.advance(by: 20)
        let late = try verify(creation).reply
        #expect(late.status == 400 && late.errorCode == "enrollment_link_expired", "\(late.text)")
        #expect(try store.credentials(userID: alice.userID).count == 1)

        let other = try link(alice.userID)
        clock.advance(by: 86_400)
        let refused = try options(other)
        #expect(refused.status == 400 && refused.errorCode == "enrollment_link_expired")
        #expect(store.state.withLock { $0.enrollmentTokens.count } == 1)
        #expect(try client.registrationOptions(username: "bob").status == 200)
        #expect(store.state.withLock { $0.enrollmentTokens.isEmpty }, "purged with the other expired records")
    }

    @Test func aLinkOfADeletedAccountAnUnknownOneAndAnUnknownAccountAreRefused() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        #expect(try admin.send("DELETE", "/admin/users/\(Base64URL.encode(alice.userID))", headers: AdminAPITests.key).status == 200)
        #expect(try options(token).errorCode == "enrollment_link_invalid", "its links went with the account")
        for bad in ["", "nope", String(repeating: "a", count: 4096)] {
            let reply = try options(bad)
            #expect(reply.status == 400 && reply.errorCode == "enrollment_link_invalid")
        }
        let unknown = try admin.send("POST", "/admin/users/\(Base64URL.encode([1, 2, 3]))/enrollment-links", headers: AdminAPITests.key)
        #expect(unknown.status == 404 && unknown.errorCode == "user_not_found")
        let noKey = try admin.send("POST", "/admin/users/\(Base64URL.encode([1, 2, 3]))/enrollment-links")
        #expect(noKey.status == 401 && noKey.errorCode == "admin_unauthorized")
        #expect(try client.send("POST", "/admin/users/\(Base64URL.encode([1, 2, 3]))/enrollment-links").status == 404, "not on the public listener")
    }

    @Test func aLinkIsNotSpentByARefusedRegistration() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        let creation = try options(token).decode(PublicKeyCredentialCreationOptionsJSON.self)
        let again = try verify(creation, credential: alice.credential).reply
        #expect(again.status == 409 && again.errorCode == "credential_exists")
        #expect(store.state.withLock { $0.enrollmentTokens.count } == 1, "still usable")
        #expect(try enroll(token).reply.status == 200)
    }

    @Test func aLinkCannotAddAPasskeyBeyondTheCap() throws {
        var configuration = try TestServerFactory.configuration(AdminAPITests.configuration)
        configuration.maximumPasskeysPerAccount = 2
        let capped = try TestServerFactory.make(configuration: configuration, store: store, clock: clock)
        let cappedClient = PasskeyClient(DirectTransport(handler: capped))
        let cappedAdmin = PasskeyClient(DirectTransport(handler: AdminAPI(server: capped)))
        let alice = try cappedClient.register("alice")
        func link() throws -> String {
            let reply = try cappedAdmin.send("POST", "/admin/users/\(Base64URL.encode(alice.userID))/enrollment-links", headers: AdminAPITests.key)
            return String(try #require(reply.object["url"] as? String).split(separator: "=").last ?? "")
        }
        // Options through a link while one place is left; the place is then taken before the link's verify.
        let early = try cappedClient.post("/webauthn/registration/options", ["enrollmentToken": try link()])
        #expect(early.status == 200)
        _ = try cappedClient.addPasskey(token: alice.token)
        let (_, response) = try cappedClient.answer(try early.decode(PublicKeyCredentialCreationOptionsJSON.self))
        let late = try cappedClient.registrationVerify(response)
        #expect(late.status == 409 && late.errorCode == "passkey_limit_reached", "\(late.text)")
        let refused = try cappedClient.post("/webauthn/registration/options", ["enrollmentToken": try link()])
        #expect(refused.status == 409 && refused.errorCode == "passkey_limit_reached")
        #expect(try store.credentials(userID: alice.userID).count == 2)
    }

    @Test func refusedLinkRequestsNeverLimitAValidSignIn() throws {
        let alice = try client.register("alice")
        let token = try link(alice.userID)
        for attempt in 1...10 {
            #expect(try options(token).status == 200, "attempt \(attempt)")
        }
        let limited = try options(token)
        #expect(limited.status == 429 && limited.errorCode == "rate_limited")
        // A valid assertion from the account's own passkey is never limited (issue 15's lockout rule), however many
        // link requests were refused.
        let signIn = try client.signIn(alice.credential, username: "alice")
        #expect(signIn.status == 200)
    }

    @Test func theLinkLifetimeAndPageAreConfigurable() throws {
        let configuration = try TestServerFactory.configuration(
            """
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
             "recovery": {"enrollmentURL": "https://example.com/account/recover", "enrollmentLinkLifetimeSeconds": 3600}}
            """
        )
        let custom = try TestServerFactory.make(configuration: configuration, store: store, clock: clock)
        let alice = try PasskeyClient(DirectTransport(handler: custom)).register("alice")
        let link = try custom.admin.createEnrollmentLink(userID: Base64URL.encode(alice.userID))
        #expect(link.url.hasPrefix("https://example.com/account/recover?token="))
        #expect(link.expiresAt == clock.now.addingTimeInterval(3600))
    }
}
