import Foundation
import RelyingPartyServer
import TestSupport
import Testing
import WebAuthnCore

/// The origins `associatedDomains` implies sign in through the real ceremonies: an Android app's derived
/// `android:apk-key-hash:` origin and a related origin, each configured once; anything else still gets
/// `origin_mismatch`.
struct AssociatedOriginCeremonyTests {
    static let configuration = """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         "associatedDomains": {
           "android": [{"package": "com.example.app", "sha256CertFingerprints": ["\(AssociatedDomainsConfigurationTests.fingerprint.lowercased())"]}],
           "relatedOrigins": ["https://example.co.uk"]
         }}
        """

    private func client(origin: String) throws -> PasskeyClient {
        var client = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.configuration)))
        )
        client.authenticator.origin = origin
        return client
    }

    @Test(arguments: [AssociatedDomainsConfigurationTests.origin, "https://example.co.uk"])
    func impliedOriginRegistersAndSignsIn(origin: String) throws {
        let client = try client(origin: origin)
        let account = try client.register("alice")
        let reply = try client.signIn(account.credential)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.object["token"] is String)
    }

    /// A fingerprint one bit away, another related-looking domain, the app origin in another encoding: refused.
    @Test(arguments: [
        "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh4",
        "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        "https://example.de", "https://www.example.co.uk", "http://example.co.uk",
    ])
    func otherOriginsAreStillRefused(origin: String) throws {
        let client = try client(origin: origin)
        let options = try client.registrationOptions(username: "mallory")
        #expect(options.status == 200)
        let (_, response) = try client.answer(try options.decode(PublicKeyCredentialCreationOptionsJSON.self))
        let reply = try client.registrationVerify(response)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "origin_mismatch")
    }
}
