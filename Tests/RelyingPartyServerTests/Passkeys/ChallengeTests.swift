import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Challenges are issued by the server, used once, for one ceremony, before they expire.
struct ChallengeTests {
    let clock = ManualClock()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(clock: clock)))
    }

    /// A refusal of the challenge: `400` with `code`, and no session.
    static func expectChallengeError(_ reply: ServerReply, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 400, sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.object["token"] == nil, sourceLocation: sourceLocation)
    }

    @Test func registrationResponseCannotBeReplayed() throws {
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (_, response) = try client.answer(options)
        #expect(try client.registrationVerify(response).status == 200)
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_unknown")
    }

    /// Without a username the challenge is sealed (`SealedChallengeTests`), with one it is stored: both are used once.
    @Test(arguments: [nil, "alice"] as [String?])
    func authenticationResponseCannotBeReplayed(username: String?) throws {
        let account = try client.register("alice")
        let response = try client.assertion(account.credential, answering: try client.requestOptions(username: username))
        #expect(try client.authenticationVerify(response).status == 200)
        Self.expectChallengeError(try client.authenticationVerify(response), "challenge_unknown")
    }

    @Test(arguments: [nil, "alice"] as [String?])
    func aFailedVerificationStillUsesUpTheChallenge(username: String?) throws {
        let account = try client.register("alice")
        let options = try client.requestOptions(username: username)
        var broken = AssertionOptions(signCount: 0)
        broken.mutation.signature = { $0[$0.count - 1] ^= 1 }
        let refused = try client.authenticationVerify(try client.assertion(account.credential, answering: options, broken))
        #expect(refused.status == 400)
        #expect(refused.errorCode == "verification_failed")
        Self.expectChallengeError(try client.authenticationVerify(try client.assertion(account.credential, answering: options)), "challenge_unknown")
    }

    @Test func registrationChallengeExpires() throws {
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (_, response) = try client.answer(options)
        clock.advance(by: 300)
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_expired")
        // The expired challenge is gone: a second attempt is unknown, not expired.
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_unknown")
    }

    @Test(arguments: [nil, "alice"] as [String?])
    func authenticationChallengeExpiresAtItsLifetimeNotBefore(username: String?) throws {
        let account = try client.register("alice")
        let early = try client.requestOptions(username: username)
        clock.advance(by: 299)
        #expect(try client.authenticationVerify(try client.assertion(account.credential, answering: early)).status == 200)
        let late = try client.requestOptions(username: username)
        clock.advance(by: 301)
        Self.expectChallengeError(try client.authenticationVerify(try client.assertion(account.credential, answering: late)), "challenge_expired")
    }

    @Test func configuredChallengeLifetimeIsUsed() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "challenges": {"lifetimeSeconds": 10}}"#
        )
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: configuration, clock: clock)))
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        #expect(options.timeout == 10_000)
        let (_, response) = try client.answer(options)
        clock.advance(by: 11)
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_expired")
    }

    @Test func registrationChallengeIsRefusedForAuthentication() throws {
        let account = try client.register("alice")
        let registration = try client.registrationOptions(username: "bob").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let assertion = try client.authenticator.authenticate(
            account.credential,
            challenge: try PasskeyClient.bytes(registration.challenge),
            options: AssertionOptions(signCount: 0)
        )
        Self.expectChallengeError(try client.authenticationVerify(assertion), "challenge_unknown")
    }

    @Test func authenticationChallengeIsRefusedForRegistration() throws {
        let options = try client.requestOptions()
        let credential = try SoftwareCredential.generate(.es256)
        let response = try client.authenticator.register(credential, challenge: try PasskeyClient.bytes(options.challenge))
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_unknown")
    }

    @Test func clientGeneratedChallengesAreUnknown() throws {
        let account = try client.register("alice")
        let lengths = [
            SystemRandom().bytes(count: 32), [UInt8](repeating: 0, count: 32), SystemRandom().bytes(count: 48), SystemRandom().bytes(count: 16), [],
        ]
        for challenge in lengths {
            let assertion = try client.authenticator.authenticate(account.credential, challenge: challenge, options: AssertionOptions(signCount: 0))
            Self.expectChallengeError(try client.authenticationVerify(assertion), "challenge_unknown")
            let credential = try SoftwareCredential.generate(.es256)
            Self.expectChallengeError(
                try client.registrationVerify(try client.authenticator.register(credential, challenge: challenge)),
                "challenge_unknown"
            )
        }
    }

    @Test func addingAPasskeyToAnAccountDeletedMeanwhileFails() throws {
        let account = try client.register("alice")
        let optionsReply = try client.registrationOptions(username: nil, headers: PasskeyClient.bearer(account.token))
        let (credential, response) = try client.answer(try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self))
        #expect(try client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        Self.expectChallengeError(try client.registrationVerify(response), "challenge_unknown")
        #expect(try client.signIn(credential).errorCode == "verification_failed")
    }

    @Test func clientDataThatIsNotBase64URLIsRefused() throws {
        let account = try client.register("alice")
        var assertion = try client.assertion(account.credential, answering: try client.requestOptions())
        assertion.response.clientDataJSON = "***"
        let reply = try client.authenticationVerify(assertion)
        #expect(reply.status == 400)
        #expect(reply.errorCode == "verification_failed")
    }
}
