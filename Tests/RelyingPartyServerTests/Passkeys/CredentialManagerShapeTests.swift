import CryptoCore
import Foundation
import RelyingPartyServer
import TestSupport
import Testing
import WebAuthnCore

/// passkeyd takes the JSON Android's Credential Manager hands an app, as the app posts it unchanged
/// (`CreatePublicKeyCredentialResponse.registrationResponseJson`, `PublicKeyCredential.authenticationResponseJson`):
/// the members and encodings Android's documentation shows (developer.android.com, "Sign in your user with
/// Credential Manager": the passkey JSON response format), with the app's `android:apk-key-hash:` origin and the
/// `androidPackageName` member in `clientDataJSON`, no `crossOrigin`, and no `clientExtensionResults` or
/// `authenticatorAttachment` in the assertion.
struct CredentialManagerShapeTests {
    private func client() throws -> PasskeyClient {
        var client = PasskeyClient(
            DirectTransport(
                handler: try TestServerFactory.make(configuration: try TestServerFactory.configuration(AssociatedOriginCeremonyTests.configuration))
            )
        )
        client.authenticator.origin = AssociatedDomainsConfigurationTests.origin
        return client
    }

    /// What Credential Manager (Google Password Manager) writes in `clientDataJSON`: type, challenge, origin,
    /// androidPackageName, in that order, no crossOrigin.
    private static func clientData(_ type: String, packageName: String = "com.example.app") -> ClientDataTemplate {
        ClientDataTemplate(type: type, crossOrigin: nil, extraMembers: [("androidPackageName", "\"\(packageName)\"")])
    }

    private static let passkeyFlags: AuthenticatorFlags = [.userPresent, .userVerified, .backupEligible, .backupState]

    /// `registrationResponseJson` as Credential Manager returns it, as JSON text.
    private static func registrationResponseJSON(_ parts: RegistrationParts, credential: SoftwareCredential) throws -> [UInt8] {
        let id = Base64URL.encode(credential.id)
        let object: [String: Any] = [
            "rawId": id, "authenticatorAttachment": "platform", "type": "public-key", "id": id,
            "response": [
                "clientDataJSON": Base64URL.encode(parts.clientDataJSON),
                "attestationObject": Base64URL.encode(parts.attestationObject),
                "transports": ["internal", "hybrid"],
                "authenticatorData": Base64URL.encode(parts.authenticatorData),
                "publicKeyAlgorithm": -7,
                "publicKey": Base64URL.encode(credential.publicKey.subjectPublicKeyInfo),
            ],
            "clientExtensionResults": ["credProps": ["rk": true]],
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    /// `authenticationResponseJson`: exactly the members of Android's documented example.
    private static func authenticationResponseJSON(_ parts: AssertionParts, credential: SoftwareCredential) throws -> [UInt8] {
        let id = Base64URL.encode(credential.id)
        let object: [String: Any] = [
            "id": id, "type": "public-key", "rawId": id,
            "response": [
                "clientDataJSON": Base64URL.encode(parts.clientDataJSON),
                "authenticatorData": Base64URL.encode(parts.authenticatorData),
                "signature": Base64URL.encode(parts.signature),
                "userHandle": Base64URL.encode(credential.userHandle),
            ],
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    private func register(_ client: PasskeyClient, clientData: ClientDataTemplate) throws -> (SoftwareCredential, ServerReply) {
        let options = try client.registrationOptions(username: "android-\(UUID().uuidString.prefix(8))")
        #expect(options.status == 200)
        let creation = try options.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let credential = try SoftwareCredential.generate(.es256, idLength: 16, userHandle: try PasskeyClient.bytes(creation.user.id))
        let parts = try client.authenticator.registrationParts(
            credential,
            challenge: try PasskeyClient.bytes(creation.challenge),
            options: RegistrationOptions(
                flags: Self.passkeyFlags.union(.attestedCredentialData),
                aaguid: [UInt8](repeating: 0, count: 16),
                clientData: clientData
            )
        )
        let reply = try client.send("POST", "/webauthn/registration/verify", json: try Self.registrationResponseJSON(parts, credential: credential))
        return (credential, reply)
    }

    @Test func credentialManagerJSONRegistersAndSignsIn() throws {
        let client = try client()
        let (credential, registered) = try register(client, clientData: Self.clientData("webauthn.create"))
        #expect(registered.status == 200, "\(registered.text)")
        #expect(registered.object["token"] is String)

        // Discoverable sign-in, as an Android app's sign-in button does it (no username).
        let options = try client.requestOptions()
        #expect(options.allowCredentials.isEmpty)
        let parts = try client.authenticator.assertionParts(
            credential,
            challenge: try PasskeyClient.bytes(options.challenge),
            options: AssertionOptions(flags: Self.passkeyFlags, signCount: 0, clientData: Self.clientData("webauthn.get"))
        )
        let signedIn = try client.send(
            "POST",
            "/webauthn/authentication/verify",
            json: try Self.authenticationResponseJSON(parts, credential: credential)
        )
        #expect(signedIn.status == 200, "\(signedIn.text)")
        #expect((signedIn.object["user"] as? [String: Any])?["id"] as? String == Base64URL.encode(credential.userHandle))
    }

    /// The same JSON from an app signed with another key (another apk-key-hash): refused, whatever the package name says.
    @Test func anotherSigningKeyIsRefused() throws {
        var client = try client()
        client.authenticator.origin = "android:apk-key-hash:" + Base64URL.encode([UInt8](repeating: 0xAB, count: 32))
        let (_, reply) = try register(client, clientData: Self.clientData("webauthn.create"))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "origin_mismatch")
    }
}
