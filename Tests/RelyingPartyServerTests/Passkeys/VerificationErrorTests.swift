import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Verification failures at the server edge: their codes, their steps, and what they leave in the store.
struct VerificationErrorTests {
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store)))
    }

    private func passkeys(_ token: String) throws -> [[String: Any]] {
        let reply = try client.send("GET", "/me", headers: PasskeyClient.bearer(token))
        #expect(reply.status == 200)
        return reply.object["passkeys"] as? [[String: Any]] ?? []
    }

    @Test func wrongOriginAtRegistrationIs400OriginMismatch() throws {
        var foreign = client
        foreign.authenticator.origin = "https://example.com.evil.test"
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (_, response) = try foreign.answer(options)
        let reply = try client.registrationVerify(response)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "origin_mismatch")
        #expect(reply.object["step"] as? String == "clientData.originMismatch")
        #expect(try store.user(name: "alice") == nil)
    }

    @Test func wrongOriginAtAuthenticationIs400OriginMismatch() throws {
        let account = try client.register("alice")
        var foreign = client
        foreign.authenticator.origin = "http://example.com"
        let reply = try client.authenticationVerify(try foreign.assertion(account.credential, answering: try client.requestOptions()))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "origin_mismatch")
        #expect(reply.object["step"] as? String == "clientData.originMismatch")
        #expect(reply.object["token"] == nil)
    }

    @Test func crossOriginIsRefused() throws {
        let account = try client.register("alice")
        var assertion = AssertionOptions(signCount: 0)
        assertion.clientData.crossOrigin = true
        let reply = try client.signIn(account.credential, assertion)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "origin_mismatch")
        #expect(reply.object["step"] as? String == "clientData.crossOriginNotAllowed")
    }

    @Test func wrongRelyingPartyIDIsRefused() throws {
        let account = try client.register("alice")
        let reply = try client.signIn(
            account.credential,
            AssertionOptions(signCount: 0, relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("evil.test".utf8)))
        )
        #expect(reply.status == 400)
        #expect(reply.errorCode == "verification_failed")
        #expect((reply.object["step"] as? String)?.isEmpty == false)
    }

    @Test func requiredUserVerificationAbsentAtRegistration() throws {
        let reply = try client.post("/webauthn/registration/options", ["username": "alice", "userVerification": "required"])
        let options = try reply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(options.authenticatorSelection.userVerification == "required")
        let (_, response) = try client.answer(options, registration: RegistrationOptions(flags: [.userPresent, .attestedCredentialData]))
        let verify = try client.registrationVerify(response)
        #expect(verify.status == 400)
        #expect(verify.errorCode == "user_verification_required")
        #expect(verify.object["step"] as? String == "authenticatorData.userNotVerified")
        #expect(try store.user(name: "alice") == nil)
    }

    @Test func preferredUserVerificationAbsentIsAccepted() throws {
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (credential, response) = try client.answer(options, registration: RegistrationOptions(flags: [.userPresent, .attestedCredentialData]))
        #expect(try client.registrationVerify(response).status == 200)
        #expect(try client.signIn(credential, AssertionOptions(flags: [.userPresent], signCount: 0)).status == 200)
    }

    @Test func requiredUserVerificationAbsentAtAuthentication() throws {
        let account = try client.register("alice")
        let optionsReply = try client.post("/webauthn/authentication/options", ["userVerification": "required"])
        let options = try optionsReply.decode(PublicKeyCredentialRequestOptionsJSON.self)
        #expect(options.userVerification == "required")
        let reply = try client.authenticationVerify(
            try client.assertion(account.credential, answering: options, AssertionOptions(flags: [.userPresent], signCount: 0))
        )
        #expect(reply.status == 400)
        #expect(reply.errorCode == "user_verification_required")
        #expect(reply.object["step"] as? String == "authenticatorData.userNotVerified")
    }

    /// Issue 15: an unknown credential fails as a real passkey's bad assertion does (no enumeration).
    @Test func unknownCredentialFailsAsABadSignatureDoes() throws {
        _ = try client.register("alice")
        let stranger = try SoftwareCredential.generate(.es256)
        let reply = try client.signIn(stranger)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "verification_failed")
        #expect(reply.object["step"] as? String == "credential.userHandleMismatch")
        #expect(reply.object["token"] == nil)
    }

    @Test func counterRegressionIsPossibleCloneAndFlagsThePasskey() throws {
        let account = try client.register("alice")
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 5)).status == 200)
        #expect(try passkeys(account.token).first?["cloneWarning"] as? Bool == false)
        for counter: UInt32 in [5, 4, 0] {
            let reply = try client.signIn(account.credential, AssertionOptions(signCount: counter))
            #expect(reply.status == 401)
            #expect(reply.errorCode == "possible_clone")
            #expect(reply.object["step"] as? String == "authenticatorData.signCountNotIncreased")
            #expect(reply.object["token"] == nil)
        }
        #expect(try passkeys(account.token).first?["cloneWarning"] as? Bool == true)
        #expect(try store.credential(id: account.credential.id)?.signCount == 5)
        // A later, higher counter signs in, and the warning stays for the owner to see.
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 6)).status == 200)
        #expect(try passkeys(account.token).first?["cloneWarning"] as? Bool == true)
    }

    @Test func zeroCounterAfterZeroIsFine() throws {
        let account = try client.register("alice")
        for _ in 0..<3 { #expect(try client.signIn(account.credential, AssertionOptions(signCount: 0)).status == 200) }
        #expect(try passkeys(account.token).first?["cloneWarning"] as? Bool == false)
    }

    @Test func backupEligibilityChangeSignsInAndIsRecorded() throws {
        let account = try client.register("alice")
        let before = try passkeys(account.token).first
        #expect(before?["backupEligible"] as? Bool == false)
        #expect(before?["backupEligibilityChanged"] as? Bool == false)
        let reply = try client.signIn(
            account.credential,
            AssertionOptions(flags: [.userPresent, .userVerified, .backupEligible, .backupState], signCount: 0)
        )
        #expect(reply.status == 200)
        #expect(reply.object["token"] is String)
        let after = try passkeys(account.token).first
        #expect(after?["backupEligibilityChanged"] as? Bool == true)
        #expect(after?["backupEligible"] as? Bool == true)
        #expect(after?["backupState"] as? Bool == true)
        #expect(after?["cloneWarning"] as? Bool == false)
    }

    @Test func backupStateWithoutEligibilityIsRefused() throws {
        let account = try client.register("alice")
        let reply = try client.signIn(account.credential, AssertionOptions(flags: [.userPresent, .userVerified, .backupState], signCount: 0))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "verification_failed")
    }

    @Test func disallowedAlgorithmIsRefusedAtRegistration() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "algorithms": ["EdDSA"]}"#
        )
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration)))
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(options.pubKeyCredParams.map(\.alg) == [-8])
        let (_, response) = try client.answer(options)
        let reply = try client.registrationVerify(response)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "algorithm_not_allowed")
    }

    @Test func sameCredentialRegisteredTwiceIsCredentialExists() throws {
        let account = try client.register("alice")
        let options = try client.registrationOptions(username: "bob").decode(PublicKeyCredentialCreationOptionsJSON.self)
        // `none` attestation signs nothing, so the response may claim an existing credential ID for a new key.
        var registration = RegistrationOptions()
        registration.credentialID = account.credential.id
        var (_, response) = try client.answer(options, registration: registration)
        response.id = Base64URL.encode(account.credential.id)
        response.rawId = response.id
        let reply = try client.registrationVerify(response)
        #expect(reply.status == 409)
        #expect(reply.errorCode == "credential_exists")
        #expect(try store.user(name: "bob") == nil)
    }

    @Test func userHandleOfAnotherAccountIsRefused() throws {
        let alice = try client.register("alice")
        let bob = try client.register("bob")
        let reply = try client.signIn(alice.credential, AssertionOptions(signCount: 0, userHandle: bob.userID))
        #expect(reply.status == 400)
        #expect(reply.object["token"] == nil)
    }
}
