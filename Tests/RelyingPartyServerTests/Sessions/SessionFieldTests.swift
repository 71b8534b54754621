import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// The ceremonies record how each session was signed in: the method, the passkey, user verification, auth_time and
/// the request's User-Agent (bounded).
struct SessionFieldTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    func session(_ reply: ServerReply) throws -> SessionRecord {
        let token = try #require(reply.object["token"] as? String)
        return try #require(try store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(token.utf8)), now: clock.now))
    }

    @Test func registrationAndSignInRecordTheirPasskeyVerificationAndUserAgent() throws {
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (credential, response) = try client.answer(options, registration: RegistrationOptions(flags: [.userPresent, .attestedCredentialData]))
        let agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) " + String(repeating: "é", count: 200)
        let registered = try session(try client.registrationVerify(response, headers: [("User-Agent", agent)]))
        #expect(registered.method == .passkey && registered.credentialID == credential.id && registered.appleSubject == nil)
        #expect(!registered.userVerified, "registered without UV")
        #expect(registered.authenticatedAt == clock.now && registered.createdAt == clock.now && registered.lastUsedAt == nil)
        #expect(registered.userAgent.map { agent.hasPrefix($0) && $0.utf8.count <= 256 && $0.utf8.count > 250 } == true)
        #expect(registered.id.count == 16 && registered.id != Array(registered.tokenHash.prefix(16)))

        clock.advance(by: 30)
        let signedIn = try session(try client.signIn(credential))
        #expect(signedIn.method == .passkey && signedIn.credentialID == credential.id && signedIn.userVerified)
        #expect(signedIn.authenticatedAt == clock.now && signedIn.userAgent == nil)
        #expect(signedIn.id != registered.id)
    }
}
