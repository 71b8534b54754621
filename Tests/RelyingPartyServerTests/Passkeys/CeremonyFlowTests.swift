import CryptoCore
import Foundation
import HTTPServer
import Storage
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// The whole life of an account through the router, without sockets: register, sign in three ways, add, rename
/// and delete passkeys, delete the account.
struct CeremonyFlowTests {
    @Test func registrationOptionsHaveThePasskeyDefaults() throws {
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let reply = try client.registrationOptions(username: "alice")
        #expect(reply.status == 200)
        #expect(reply.headers["Content-Type"] == "application/json")
        #expect(reply.headers["Cache-Control"] == "no-store")
        let object = reply.object
        let user = try #require(object["user"] as? [String: Any])
        #expect(user["name"] as? String == "alice")
        #expect(user["displayName"] as? String == "alice")
        #expect(try PasskeyClient.bytes(try #require(user["id"] as? String)).count == 32)
        #expect(try PasskeyClient.bytes(try #require(object["challenge"] as? String)).count == 32)
        let relyingParty = try #require(object["rp"] as? [String: Any])
        #expect(relyingParty["id"] as? String == "example.com")
        #expect(relyingParty["name"] as? String == "Example")
        let parameters = try #require(object["pubKeyCredParams"] as? [[String: Any]])
        #expect(parameters.map { $0["alg"] as? Int } == [-7, -8, -257])
        #expect(parameters.allSatisfy { $0["type"] as? String == "public-key" })
        let selection = try #require(object["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "required")
        #expect(selection["requireResidentKey"] as? Bool == true)
        #expect(selection["userVerification"] as? String == "preferred")
        #expect((object["extensions"] as? [String: Any])?["credProps"] as? Bool == true)
        #expect((object["excludeCredentials"] as? [Any])?.isEmpty == true)
        #expect(object["attestation"] as? String == "none")
        #expect(object["timeout"] as? Int == 300_000)
    }

    @Test func twoOptionsCallsGetDifferentChallengesAndUserHandles() throws {
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let first = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let second = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(first.challenge != second.challenge)
        #expect(first.user.id != second.user.id)
    }

    @Test func fullAccountLifecycle() throws {
        let store = InMemoryStore()
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store)))

        // Registration.
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (credential, registration) = try client.answer(options)
        let verified = try client.registrationVerify(registration)
        #expect(verified.status == 200)
        let body = verified.object
        #expect(body["verified"] as? Bool == true)
        #expect(body["credentialId"] as? String == Base64URL.encode(credential.id))
        #expect((body["user"] as? [String: Any])?["id"] as? String == options.user.id)
        #expect((body["user"] as? [String: Any])?["name"] as? String == "alice")
        #expect(body["expiresAt"] is String)
        let token = try #require(body["token"] as? String)
        #expect(try PasskeyClient.bytes(token).count == 32)
        let cookie = try #require(verified.headers["Set-Cookie"])
        #expect(cookie.hasPrefix("__Host-passkeyd_session=\(token);"))
        for attribute in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] {
            #expect(cookie.contains("; \(attribute)"))
        }
        #expect(try store.user(name: "alice")?.id == credential.userHandle)
        #expect(try store.credential(id: credential.id)?.userID == credential.userHandle)

        // GET /me with Bearer and with the cookie.
        let withBearer = try client.send("GET", "/me", headers: PasskeyClient.bearer(token))
        #expect(withBearer.status == 200)
        #expect(withBearer.object["rpId"] as? String == "example.com")
        let passkeys = try #require(withBearer.object["passkeys"] as? [[String: Any]])
        #expect(passkeys.count == 1)
        #expect(passkeys.first?["id"] as? String == Base64URL.encode(credential.id))
        #expect(passkeys.first?["algorithm"] as? Int == -7)
        #expect(passkeys.first?["attestationFormat"] as? String == "none")
        #expect(passkeys.first?["cloneWarning"] as? Bool == false)
        #expect(passkeys.first?["aaguid"] as? String == "7a1b2c3d-4e5f-4081-92a3-b4c5d6e7f809")
        let withCookie = try client.send("GET", "/me", headers: [("Cookie", "theme=dark; __Host-passkeyd_session=\(token)")])
        #expect(withCookie.status == 200)
        #expect((withCookie.object["user"] as? [String: Any])?["name"] as? String == "alice")

        // Sign out: the token stops working.
        let signedOut = try client.send("POST", "/logout", headers: PasskeyClient.bearer(token))
        #expect(signedOut.status == 200)
        #expect(signedOut.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=;") == true)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)

        // Discoverable sign-in: no username, empty allowCredentials, the userHandle names the account.
        let discoverable = try client.requestOptions()
        #expect(discoverable.allowCredentials.isEmpty)
        #expect(discoverable.rpId == "example.com")
        #expect(discoverable.userVerification == "preferred")
        // Sealed (`ChallengeSeal`): nothing is stored for it until it is used.
        #expect(try PasskeyClient.bytes(discoverable.challenge).count == ChallengeSeal.length)
        let discoverableReply = try client.authenticationVerify(
            try client.assertion(credential, answering: discoverable, AssertionOptions(signCount: 1))
        )
        #expect(discoverableReply.status == 200)
        #expect(discoverableReply.object["credentialId"] as? String == Base64URL.encode(credential.id))
        #expect(discoverableReply.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=") == true)

        // Sign-in with the username: allowCredentials lists the passkey.
        let named = try client.requestOptions(username: "alice")
        #expect(named.allowCredentials.map(\.id) == [Base64URL.encode(credential.id)])
        #expect(named.allowCredentials.first?.transports == ["internal", "hybrid"])
        let namedReply = try client.authenticationVerify(try client.assertion(credential, answering: named, AssertionOptions(signCount: 2)))
        #expect(namedReply.status == 200)
        let session = try #require(namedReply.object["token"] as? String)
        #expect(try store.credential(id: credential.id)?.signCount == 2)
        #expect(try store.credential(id: credential.id)?.lastUsedAt != nil)

        // A second passkey while signed in: excludeCredentials lists the first.
        let addOptionsReply = try client.registrationOptions(username: nil, headers: PasskeyClient.bearer(session))
        #expect(addOptionsReply.status == 200)
        let addOptions = try addOptionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(addOptions.user.id == options.user.id)
        #expect(addOptions.user.name == "alice")
        #expect(addOptions.excludeCredentials.map(\.id) == [Base64URL.encode(credential.id)])
        let (second, secondRegistration) = try client.answer(addOptions)
        let added = try client.registrationVerify(secondRegistration, headers: PasskeyClient.bearer(session))
        #expect(added.status == 200)
        #expect(try store.credentials(userID: credential.userHandle).count == 2)
        #expect(try client.signIn(second, username: "alice").status == 200)

        // Rename.
        let renamed = try client.send(
            "PATCH",
            "/me/passkeys/" + Base64URL.encode(second.id),
            json: Array(#"{"name":"Work laptop"}"#.utf8),
            headers: PasskeyClient.bearer(session)
        )
        #expect(renamed.status == 200)
        #expect(try store.credential(id: second.id)?.name == "Work laptop")
        let list = try client.send("GET", "/me/passkeys", headers: PasskeyClient.bearer(session))
        #expect(list.status == 200)
        let listed = (try JSONSerialization.jsonObject(with: Data(list.body))) as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["name"] as? String } ?? []) == ["Passkey", "Work laptop"])

        // Delete one, then the last one is refused.
        let deleted = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(credential.id), headers: PasskeyClient.bearer(session))
        #expect(deleted.status == 200)
        #expect(try store.credential(id: credential.id) == nil)
        let deletedSignIn = try client.signIn(credential, AssertionOptions(signCount: 3))
        #expect(deletedSignIn.status == 400)
        #expect(deletedSignIn.errorCode == "verification_failed", "a deleted passkey fails as any bad assertion does")
        let last = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), headers: PasskeyClient.bearer(session))
        #expect(last.status == 409)
        #expect(last.errorCode == "last_credential")
        #expect(try store.credential(id: second.id) != nil)

        // Delete the account: user, credentials and sessions are gone.
        let otherSession = try #require(discoverableReply.object["token"] as? String)
        let accountDeleted = try client.send("DELETE", "/me", headers: PasskeyClient.bearer(session))
        #expect(accountDeleted.status == 200)
        #expect(try store.user(id: credential.userHandle) == nil)
        #expect(try store.user(name: "alice") == nil)
        #expect(try store.credentials(userID: credential.userHandle).isEmpty)
        #expect(try store.credential(id: second.id) == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for token in [session, otherSession] {
            #expect(try store.session(tokenHash: DigestAlgorithm.sha256.hash(Array(token.utf8)), now: now) == nil)
            #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 401)
        }
        #expect(try client.signIn(second, AssertionOptions(signCount: 4)).errorCode == "verification_failed")
        // The name is free again.
        #expect(try client.registrationOptions(username: "alice").status == 200)
    }

    @Test func deletingAnotherAccountsPasskeyIsNotFound() throws {
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        let alice = try client.register("alice")
        let bob = try client.register("bob")
        _ = try client.addPasskey(token: bob.token)
        let reply = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(bob.credential.id), headers: PasskeyClient.bearer(alice.token))
        #expect(reply.status == 404)
        #expect(reply.errorCode == "passkey_not_found")
        let rename = try client.send(
            "PATCH",
            "/me/passkeys/" + Base64URL.encode(bob.credential.id),
            json: Array(#"{"name":"mine"}"#.utf8),
            headers: PasskeyClient.bearer(alice.token)
        )
        #expect(rename.status == 404)
        #expect(rename.errorCode == "passkey_not_found")
    }

    @Test func signInWithAnotherUsersUsernameIsRefused() throws {
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
        _ = try client.register("alice")
        let bob = try client.register("bob")
        let reply = try client.signIn(bob.credential, username: "alice")
        #expect(reply.status == 400)
        #expect(reply.object["token"] == nil)
    }
}
