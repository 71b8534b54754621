import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

/// The relying party, challenge and clock every ceremony test uses, and helpers that run a ceremony and
/// report the `WebAuthnError.code` it failed with.
enum CeremonyFixture {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static let day: TimeInterval = 86_400
    static let challenge: [UInt8] = (0..<32).map { UInt8($0 &* 7 &+ 3) }
    static let authenticator = SoftwareAuthenticator(relyingPartyID: "example.com", origin: "https://example.com")

    static func relyingParty(at time: Date = now, additionalIDs: [String] = []) -> RelyingParty {
        RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"], additionalIDs: additionalIDs, time: FixedTime(time))
    }

    static func register(
        _ response: RegistrationResponseJSON,
        expectations: RegistrationExpectations = RegistrationExpectations(challenge: challenge),
        relyingParty: RelyingParty = relyingParty()
    ) throws(WebAuthnError) -> RegistrationResult {
        try RegistrationCeremony(relyingParty: relyingParty).verify(response, expecting: expectations)
    }

    static func authenticate(
        _ response: AuthenticationResponseJSON,
        expectations: AuthenticationExpectations,
        relyingParty: RelyingParty = relyingParty()
    ) throws(WebAuthnError) -> AuthenticationResult {
        try AuthenticationCeremony(relyingParty: relyingParty).verify(response, expecting: expectations)
    }

    /// The code of the `WebAuthnError` that `body` throws; nil when it succeeds. Any other error is recorded as an
    /// issue, so that it never passes for an expected code or a success.
    static func failureCode(_ body: () throws -> Void) -> WebAuthnError.Code? {
        do {
            try body()
            return nil
        } catch let error as WebAuthnError {
            return error.code
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    /// The code registering `response` fails with (nil when it verifies).
    static func registrationFailure(
        _ response: RegistrationResponseJSON,
        expectations: RegistrationExpectations = RegistrationExpectations(challenge: challenge),
        relyingParty: RelyingParty = relyingParty()
    ) -> WebAuthnError.Code? {
        failureCode { _ = try register(response, expectations: expectations, relyingParty: relyingParty) }
    }

    /// The code verifying the assertion fails with (nil when it verifies).
    static func authenticationFailure(
        _ response: AuthenticationResponseJSON,
        expectations: AuthenticationExpectations,
        relyingParty: RelyingParty = relyingParty()
    ) -> WebAuthnError.Code? {
        failureCode { _ = try authenticate(response, expectations: expectations, relyingParty: relyingParty) }
    }

    /// The code registering `credential` with `options` fails with.
    static func registrationFailure(
        _ credential: SoftwareCredential,
        options: RegistrationOptions,
        expectations: RegistrationExpectations = RegistrationExpectations(challenge: challenge),
        relyingParty: RelyingParty = relyingParty()
    ) throws -> WebAuthnError.Code? {
        registrationFailure(
            try authenticator.register(credential, challenge: challenge, options: options),
            expectations: expectations,
            relyingParty: relyingParty
        )
    }

    /// The code an assertion by `credential` with `options` fails with, against a stored record with `storedSignCount`.
    static func authenticationFailure(
        _ credential: SoftwareCredential,
        options: AssertionOptions,
        storedSignCount: UInt32 = 0,
        userVerification: UserVerificationRequirement = .preferred
    ) throws -> WebAuthnError.Code? {
        let response = try authenticator.authenticate(credential, challenge: challenge, options: options)
        let expectations = AuthenticationExpectations(
            challenge: challenge,
            credential: try credential.storedCredential(signCount: storedSignCount),
            userVerification: userVerification
        )
        return authenticationFailure(response, expectations: expectations)
    }
}
