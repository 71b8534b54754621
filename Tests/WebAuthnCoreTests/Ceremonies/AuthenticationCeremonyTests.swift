import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("§7.2 verifying an assertion")
struct AuthenticationCeremonyTests {
    typealias Fixture = CeremonyFixture

    static let counterRules: [SignCountRule] = [
        SignCountRule(stored: 0, received: 0, accepted: true),
        SignCountRule(stored: 0, received: 5, accepted: true),
        SignCountRule(stored: 5, received: 6, accepted: true),
        SignCountRule(stored: 5, received: 5, accepted: false),
        SignCountRule(stored: 6, received: 5, accepted: false),
        SignCountRule(stored: 5, received: 0, accepted: false),
    ]

    func expectations(
        for credential: SoftwareCredential,
        signCount: UInt32 = 0,
        backupEligible: Bool? = nil,
        userVerification: UserVerificationRequirement = .preferred,
        allowed: [[UInt8]] = [],
        identifiedUser: [UInt8]? = nil
    ) throws -> AuthenticationExpectations {
        AuthenticationExpectations(
            challenge: Fixture.challenge,
            credential: try credential.storedCredential(signCount: signCount, backupEligible: backupEligible),
            userVerification: userVerification,
            allowedCredentialIDs: allowed,
            identifiedUserHandle: identifiedUser
        )
    }

    @Test(arguments: SoftwareCredential.supportedAlgorithms)
    func everyAlgorithmAuthenticates(algorithm: COSEAlgorithm) throws {
        let credential = try SoftwareCredential.generate(algorithm)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge, options: AssertionOptions(signCount: 42))
        let result = try Fixture.authenticate(response, expectations: try expectations(for: credential, signCount: 41, allowed: [credential.id]))
        #expect(result.credentialID == credential.id)
        #expect(result.userHandle == credential.userHandle)
        #expect(result.signCount == 42)
        #expect(result.userVerified)
        #expect(result.backupEligibilityChanged == false)
    }

    @Test func credentialTypeMustBePublicKey() throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        response.type = "public-key "
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .responseInvalidType)
    }

    @Test func idMustEqualRawId() throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        response.id = Base64URL.encode(credential.id + [0])
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .idMismatch)
    }

    @Test(arguments: ["rawId", "userHandle", "clientDataJSON", "authenticatorData", "signature"])
    func binaryMembersMustBeUnpaddedBase64URL(member: String) throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        switch member {
        case "rawId":
            response.rawId = "ab+/"
            response.id = response.rawId
        case "userHandle": response.response.userHandle = "a"
        case "clientDataJSON": response.response.clientDataJSON += "="
        case "authenticatorData": response.response.authenticatorData = " " + response.response.authenticatorData
        default: response.response.signature += "\n"
        }
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .responseInvalidEncoding)
    }

    @Test func credentialMustBeInAllowCredentials() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let excluding = try expectations(for: credential, allowed: [[1, 2, 3], [4, 5, 6]])
        #expect(Fixture.authenticationFailure(response, expectations: excluding) == .credentialNotAllowed)
    }

    @Test func rawIdMustBeTheStoredCredential() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        var stored = try expectations(for: credential)
        stored.credential.id = credential.id.reversed()
        #expect(Fixture.authenticationFailure(response, expectations: stored) == .credentialUnknown)
    }

    @Test func identifiedUserMustOwnTheCredential() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let otherUser = try expectations(for: credential, identifiedUser: [UInt8](repeating: 1, count: 32))
        #expect(Fixture.authenticationFailure(response, expectations: otherUser) == .wrongUser)
    }

    @Test func userHandleMustBeTheIdentifiedUser() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(userHandle: [UInt8](repeating: 2, count: 32))
        )
        let identified = try expectations(for: credential, identifiedUser: credential.userHandle)
        #expect(Fixture.authenticationFailure(response, expectations: identified) == .userHandleMismatch)
    }

    @Test func identifiedUserMayOmitUserHandle() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(omitsUserHandle: true)
        )
        let identified = try expectations(for: credential, identifiedUser: credential.userHandle)
        #expect(Fixture.authenticationFailure(response, expectations: identified) == nil)
    }

    @Test(arguments: [true, false])
    func discoverableSignInNeedsTheUserHandle(sendsEmptyText: Bool) throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(omitsUserHandle: true)
        )
        if sendsEmptyText { response.response.userHandle = "" }
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .missingUserHandle)
    }

    @Test func discoverableUserHandleMustOwnTheCredential() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(userHandle: [UInt8](repeating: 3, count: 32))
        )
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .userHandleMismatch)
    }

    @Test func clientDataTypeMustBeWebAuthnGet() throws {
        let options = AssertionOptions(clientData: ClientDataTemplate(type: "webauthn.create"))
        #expect(try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options) == .typeMismatch)
    }

    @Test func clientDataChallengeMustBeTheIssuedOne() throws {
        let options = AssertionOptions(clientData: ClientDataTemplate(type: "webauthn.get", challenge: Base64URL.encode([1, 2, 3])))
        #expect(try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options) == .challengeMismatch)
    }

    /// Client data the caller read already is used only when it is the response's own: another response's (here one
    /// for another challenge) is ignored and the response's own is read, so the checks and the signature's hash always
    /// cover the same bytes.
    @Test func clientDataReadBeforeIsUsedOnlyWhenItIsTheResponses() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let other = try Fixture.authenticator.authenticate(credential, challenge: [1, 2, 3])
        let ceremony = AuthenticationCeremony(relyingParty: Fixture.relyingParty())
        let read = { (text: String) in try DecodedClientData(text: text) }
        let own = try read(response.response.clientDataJSON)
        #expect(own.parsed.challenge == Base64URL.encode(Fixture.challenge))
        let result = try ceremony.verify(response, clientData: own, expecting: try expectations(for: credential))
        #expect(result.credentialID == credential.id)
        let foreign = try read(other.response.clientDataJSON)
        #expect(try ceremony.verify(response, clientData: foreign, expecting: try expectations(for: credential)).credentialID == credential.id)
        #expect(
            Fixture.failureCode { _ = try ceremony.verify(other, clientData: foreign, expecting: try expectations(for: credential)) }
                == .challengeMismatch
        )
    }

    /// Another response's client data of the same length (a challenge of the same size, one byte changed) is not the
    /// response's own either: the texts are compared byte for byte, not by length.
    @Test func clientDataReadBeforeOfTheSameLengthIsUsedOnlyWhenItIsTheResponses() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let ceremony = AuthenticationCeremony(relyingParty: Fixture.relyingParty())
        for index in [0, 15, 31] {
            var challenge = Fixture.challenge
            challenge[index] ^= 0x01
            let other = try Fixture.authenticator.authenticate(credential, challenge: challenge)
            #expect(other.response.clientDataJSON.utf8.count == response.response.clientDataJSON.utf8.count)
            let foreign = try DecodedClientData(text: other.response.clientDataJSON)
            #expect(try ceremony.verify(response, clientData: foreign, expecting: try expectations(for: credential)).credentialID == credential.id)
        }
    }

    /// Client data read before matches the response's byte for byte, not as Swift's `==` compares strings: a
    /// clientDataJSON with U+212A KELVIN SIGN where the read text has "K" is canonically equivalent, but it is not
    /// base64url, and it is refused as the response's own would be.
    @Test func clientDataReadBeforeMatchesByteForByte() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let challenges = (0..<64).map { [UInt8](repeating: UInt8($0), count: 32) }
        let responses = try challenges.map { try Fixture.authenticator.authenticate(credential, challenge: $0) }
        let index = try #require(responses.firstIndex { $0.response.clientDataJSON.contains("K") })
        let response = responses[index]
        let read = try DecodedClientData(text: response.response.clientDataJSON)
        var kelvin = response
        kelvin.response.clientDataJSON = response.response.clientDataJSON.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(kelvin.response.clientDataJSON == response.response.clientDataJSON, "canonically equivalent")
        let ceremony = AuthenticationCeremony(relyingParty: Fixture.relyingParty())
        let expecting = AuthenticationExpectations(
            challenge: challenges[index],
            credential: try credential.storedCredential(signCount: 0, backupEligible: nil),
            userVerification: .preferred,
            allowedCredentialIDs: [],
            identifiedUserHandle: nil
        )
        #expect(try ceremony.verify(response, clientData: read, expecting: expecting).credentialID == credential.id)
        #expect(Fixture.failureCode { _ = try ceremony.verify(kelvin, clientData: read, expecting: expecting) } == .responseInvalidEncoding)
    }

    @Test func attestedCredentialDataInAnAssertionFails() throws {
        let options = AssertionOptions(flags: [.userPresent, .userVerified, .attestedCredentialData], includesAttestedCredentialData: true)
        #expect(
            try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options) == .unexpectedCredential
        )
    }

    @Test func rpIdHashMustBeTheRelyingPartyID() throws {
        let options = AssertionOptions(relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("example.org".utf8)))
        #expect(try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options) == .relyingPartyIDHashMismatch)
    }

    @Test func userPresenceIsRequired() throws {
        let options = AssertionOptions(flags: [.userVerified])
        #expect(try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options) == .userNotPresent)
    }

    @Test func userVerificationRequiredNeedsUV() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let options = AssertionOptions(flags: [.userPresent])
        #expect(try Fixture.authenticationFailure(credential, options: options, userVerification: .required) == .userNotVerified)
        #expect(try Fixture.authenticationFailure(credential, options: options, userVerification: .preferred) == nil)
        #expect(try Fixture.authenticationFailure(credential, options: AssertionOptions(), userVerification: .required) == nil)
    }

    @Test func backupStateWithoutEligibilityFails() throws {
        let options = AssertionOptions(flags: [.userPresent, .userVerified, .backupState])
        #expect(
            try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options)
                == .backupStateWithoutEligibility
        )
    }

    @Test(arguments: [(Bool?.some(false), true, true), (true, false, true), (true, true, false), (false, false, false), (nil, true, false)])
    func backupEligibilityChangeIsReportedNotRefused(stored: Bool?, received: Bool, changed: Bool) throws {
        let credential = try SoftwareCredential.generate(.es256)
        let flags: AuthenticatorFlags = received ? [.userPresent, .userVerified, .backupEligible] : [.userPresent, .userVerified]
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge, options: AssertionOptions(flags: flags))
        let result = try Fixture.authenticate(response, expectations: try expectations(for: credential, backupEligible: stored))
        #expect(result.backupEligibilityChanged == changed)
        #expect(result.backupEligible == received)
    }

    @Test func signatureOverADifferentClientDataJSONFails() throws {
        let credential = try SoftwareCredential.generate(.es256)
        var response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let other = try Fixture.authenticator.authenticate(
            credential,
            challenge: Fixture.challenge,
            options: AssertionOptions(clientData: ClientDataTemplate(type: "webauthn.get", extraMembers: [("other", "1")]))
        )
        response.response.clientDataJSON = other.response.clientDataJSON
        #expect(Fixture.authenticationFailure(response, expectations: try expectations(for: credential)) == .assertionInvalidSignature)
    }

    @Test func signatureByAnotherKeyFails() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let response = try Fixture.authenticator.authenticate(credential, challenge: Fixture.challenge)
        let impostor = try SoftwareCredential.generate(.es256)
        var stored = try expectations(for: credential)
        stored.credential.publicKey = try COSEKey(bytes: try impostor.coseKey())
        #expect(Fixture.authenticationFailure(response, expectations: stored) == .assertionInvalidSignature)
    }

    @Test(arguments: [
        ResponseMutation(signature: { $0[$0.count - 1] ^= 0x01 }),
        ResponseMutation(signedAuthenticatorData: { $0[36] ^= 0x01 }),
        ResponseMutation(signedAuthenticatorData: { $0[32] ^= AuthenticatorFlags.userVerified.rawValue }),
    ])
    func bytesChangedAfterSigningFail(mutation: ResponseMutation) throws {
        let options = AssertionOptions(mutation: mutation)
        #expect(try Fixture.authenticationFailure(try SoftwareCredential.generate(.eddsa), options: options) == .assertionInvalidSignature)
    }

    @Test(arguments: counterRules)
    func signatureCounterMustIncrease(rule: SignCountRule) throws {
        let options = AssertionOptions(signCount: rule.received)
        let failure = try Fixture.authenticationFailure(try SoftwareCredential.generate(.es256), options: options, storedSignCount: rule.stored)
        #expect(failure == (rule.accepted ? nil : .signCountNotIncreased))
    }

    @Test func extensionsWithTheEDFlagAreAccepted() throws {
        let credential = try SoftwareCredential.generate(.es256)
        let extensions = CBORValue.map([CBORMapEntry(key: .text("devicePubKey"), value: .bytes([1, 2, 3]))])
        let options = AssertionOptions(flags: [.userPresent, .userVerified, .extensionData], extensions: extensions)
        #expect(try Fixture.authenticationFailure(credential, options: options) == nil)
        var withoutFlag = options
        withoutFlag.flags.remove(.extensionData)
        #expect(try Fixture.authenticationFailure(credential, options: withoutFlag) == .authenticatorDataTrailingBytes)
    }
}
