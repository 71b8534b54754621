import CryptoCore
import Foundation
import WebAuthnCore

/// Runs verification cases through the public ceremony API with the schema's inputs and strict defaults:
/// cross-origin refused, every verifiable algorithm allowed (RS1 included), user presence required,
/// SafetyNet CTS enforced with a 60-second freshness window.
public struct VerificationCaseRunner: Sendable {
    /// Trust anchors added to every registration case (`passkeyd verify --trust-anchors`).
    public var additionalTrustAnchors: [X509Certificate]
    /// A verified FIDO metadata BLOB (`passkeyd verify --metadata`): each registration is also judged with the roots
    /// and status reports it lists for the authenticator, and named by it.
    public var metadata: MetadataBLOB?
    /// Names of authenticators by AAGUID, reported when the metadata has none.
    public var authenticatorNames: AuthenticatorNameList

    public init(
        additionalTrustAnchors: [X509Certificate] = [],
        metadata: MetadataBLOB? = nil,
        authenticatorNames: AuthenticatorNameList = AuthenticatorNameList()
    ) {
        self.additionalTrustAnchors = additionalTrustAnchors
        self.metadata = metadata
        self.authenticatorNames = authenticatorNames
    }

    /// Judges one case; never throws: a refusal is an outcome with `ok: false` and the failing step's code.
    public func run(_ testCase: VerificationCase, now: Date = Date()) -> VerificationOutcome {
        do {
            return try evaluate(testCase, now: now)
        } catch {
            var outcome = VerificationOutcome(id: testCase.id, ok: false)
            outcome.error = error.code.rawValue
            outcome.reason = error.reason
            return outcome
        }
    }

    private func evaluate(_ testCase: VerificationCase, now: Date) throws(WebAuthnError) -> VerificationOutcome {
        var time = now
        if let text = testCase.verifyAt {
            guard let parsed = ISO8601Time.parse(text) else {
                throw WebAuthnError(.caseInvalidInput, "verifyAt is not an ISO 8601 time")
            }
            time = parsed
        }
        let relyingParty = RelyingParty(
            id: testCase.rpId,
            name: testCase.rpId,
            origins: testCase.origins,
            additionalIDs: (testCase.acceptedRpIds ?? []).filter { $0 != testCase.rpId },
            allowsCrossOriginEmbedding: testCase.allowCrossOrigin ?? false,
            topOrigins: testCase.topOrigins ?? [],
            time: FixedTime(time)
        )
        guard let challenge = Base64URL.decode(testCase.expectedChallenge) else {
            throw WebAuthnError(.caseInvalidInput, "expectedChallenge is not unpadded base64url")
        }
        let userVerification: UserVerificationRequirement = testCase.requireUserVerification == true ? .required : .preferred
        var outcome = VerificationOutcome(id: testCase.id, ok: true)
        switch testCase.ceremony {
        case .registration:
            let response: RegistrationResponseJSON = try decode(testCase.response.json)
            let expectations = RegistrationExpectations(
                challenge: challenge,
                userVerification: userVerification,
                requiresUserPresence: testCase.requireUserPresence ?? true,
                allowedAlgorithms: try allowedAlgorithms(testCase.allowedAlgorithms),
                trustAnchors: try trustAnchors(testCase.trustAnchors ?? []) + additionalTrustAnchors,
                clientDataTypes: testCase.expectedType ?? ["webauthn.create"],
                safetyNet: SafetyNetPolicy(
                    requiresCTSProfileMatch: testCase.safetyNetEnforceCTS ?? true,
                    maximumTimestampSkew: testCase.ignoreSafetyNetTimestamp == true ? nil : 60
                ),
                metadata: metadata,
                authenticatorNames: authenticatorNames
            )
            let result = try RegistrationCeremony(relyingParty: relyingParty).verify(response, expecting: expectations)
            outcome.fmt = result.attestation.format.rawValue
            outcome.credentialId = Base64URL.encode(result.credentialID)
            outcome.signCount = result.signCount
            outcome.alg = result.publicKey.algorithm.rawValue
            outcome.aaguid = result.aaguidString
            outcome.userVerified = result.userVerified
            outcome.backupEligible = result.backupEligible
            outcome.backupState = result.backupState
            outcome.attestationType = result.attestation.type.rawValue
            outcome.authenticatorName = result.authenticatorName
            outcome.trustPath =
                switch result.attestation.trustEvaluation {
                case .notApplicable: "notApplicable"
                case .notEvaluated: "notEvaluated"
                case .trusted(let fingerprint): "trusted:\(fingerprint)"
                }
        case .authentication:
            let response: AuthenticationResponseJSON = try decode(testCase.response.json)
            guard let keyText = testCase.credentialPublicKey, let keyBytes = Base64URL.decode(keyText) else {
                throw WebAuthnError(.caseInvalidInput, "an authentication case needs credentialPublicKey")
            }
            let key = try COSEKey(bytes: keyBytes)
            // The case's credential is the one the server would have found by rawId; its owner is the user the
            // response names, or (without a userHandle) the user identified by username before the ceremony.
            let rawID = Base64URL.decode(response.rawId) ?? []
            let userHandle = response.response.userHandle.flatMap { Base64URL.decode($0) } ?? Array("identified-user".utf8)
            let stored = StoredCredential(id: rawID, publicKey: key, signCount: testCase.prevSignCount ?? 0, userHandle: userHandle)
            let expectations = AuthenticationExpectations(
                challenge: challenge,
                credential: stored,
                userVerification: userVerification,
                identifiedUserHandle: userHandle,
                clientDataTypes: testCase.expectedType ?? ["webauthn.get"]
            )
            let result = try AuthenticationCeremony(relyingParty: relyingParty).verify(response, expecting: expectations)
            outcome.credentialId = Base64URL.encode(result.credentialID)
            outcome.signCount = result.signCount
            outcome.alg = key.algorithm.rawValue
            outcome.userVerified = result.userVerified
            outcome.backupEligible = result.backupEligible
            outcome.backupState = result.backupState
        }
        return outcome
    }

    private func decode<T: Decodable>(_ json: Data) throws(WebAuthnError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: json)
        } catch {
            throw WebAuthnError(.responseMalformed, "the response is not a \(T.self)")
        }
    }

    private func allowedAlgorithms(_ identifiers: [Int]?) throws(WebAuthnError) -> [COSEAlgorithm] {
        guard let identifiers else { return COSEAlgorithm.verifiable }
        return identifiers.compactMap(COSEAlgorithm.init(rawValue:))
    }

    private func trustAnchors(_ pems: [String]) throws(WebAuthnError) -> [X509Certificate] {
        var anchors: [X509Certificate] = []
        for pem in pems {
            do {
                anchors += try X509Certificate.certificates(pem: pem)
            } catch {
                throw WebAuthnError(.caseInvalidInput, "a trust anchor is not a PEM certificate: \(error.reason)")
            }
        }
        return anchors
    }
}
