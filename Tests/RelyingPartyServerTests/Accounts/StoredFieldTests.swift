import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Issue 15: stored names and fields. Transports were stored as sent (3,003 entries and HTML were accepted and shown)
/// and an account could hold any number of passkeys (61 were accepted).
struct StoredFieldTests {
    @Test func onlyKnownTransportsAreKeptAtMostOnceEach() throws {
        let store = InMemoryStore()
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store)))
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let sent = ["<img src=x onerror=alert(1)>", "hybrid", "internal", "hybrid", "usb", "carrier-pigeon"] + (0..<3000).map { "t\($0)" }
        let (credential, response) = try client.answer(options, registration: RegistrationOptions(transports: sent))
        let reply = try client.registrationVerify(response)
        #expect(reply.status == 200)
        #expect(try store.credential(id: credential.id)?.transports == ["hybrid", "internal", "usb"])
        let token = try #require(reply.object["token"] as? String)
        let listed = try client.send("GET", "/me/passkeys", headers: PasskeyClient.bearer(token))
        #expect(!listed.text.contains("img"))
        let allowed = try client.requestOptions(username: "alice").allowCredentials
        #expect(allowed.first?.transports == ["hybrid", "internal", "usb"])
    }

    @Test func passkeysPerAccountAreCapped() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "limits": {"maximumPasskeysPerAccount": 3}}"#
        )
        let store = InMemoryStore()
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration, store: store)))
        let account = try client.register("alice")
        _ = try client.addPasskey(token: account.token)
        // Options for the third are issued; a fourth set of options is refused once three are stored.
        let third = try client.registrationOptions(username: nil, headers: PasskeyClient.bearer(account.token))
        let late = try client.registrationOptions(username: nil, headers: PasskeyClient.bearer(account.token))
        #expect(third.status == 200 && late.status == 200)
        let (_, thirdResponse) = try client.answer(try third.decode(PublicKeyCredentialCreationOptionsJSON.self))
        #expect(try client.registrationVerify(thirdResponse, headers: PasskeyClient.bearer(account.token)).status == 200)
        let refused = try client.registrationOptions(username: nil, headers: PasskeyClient.bearer(account.token))
        #expect(refused.status == 409)
        #expect(refused.errorCode == "passkey_limit_reached")
        let (_, lateResponse) = try client.answer(try late.decode(PublicKeyCredentialCreationOptionsJSON.self))
        let lateReply = try client.registrationVerify(lateResponse, headers: PasskeyClient.bearer(account.token))
        #expect(lateReply.status == 409, "options issued before the cap was reached do not get past it")
        #expect(lateReply.errorCode == "passkey_limit_reached")
        #expect(try store.credentials(userID: account.userID).count == 3)
    }

    @Test func theDefaultCapIs50() throws {
        #expect(try TestServerFactory.configuration().maximumPasskeysPerAccount == 50)
    }
}
