import CryptoCore

/// What the registration verification expects: exactly what the server stored when it issued the options.
public struct RegistrationExpectations: Sendable {
    /// The challenge sent in the creation options.
    public var challenge: [UInt8]
    public var userVerification: UserVerificationRequirement
    /// False only for conditional (automatic) passkey creation, where user presence is not asserted.
    public var requiresUserPresence: Bool
    /// The `pubKeyCredParams` algorithms that were offered; a credential with another algorithm is refused.
    public var allowedAlgorithms: [COSEAlgorithm]
    /// Roots (or trusted intermediates) an attestation certificate path must end at; empty = path not evaluated.
    public var trustAnchors: [X509Certificate]
    /// Accepted client data types (§7.1 step 7 requires "webauthn.create").
    public var clientDataTypes: [String]
    /// Policy for `android-safetynet` statements.
    public var safetyNet: SafetyNetPolicy
    /// Which attestations are accepted (§7.1 step 24).
    public var attestationPolicy: AttestationPolicy
    /// A verified FIDO metadata BLOB: roots for each authenticator's certificate path, status reports, names.
    public var metadata: MetadataBLOB?
    /// Names of authenticators by AAGUID, used when the metadata has none.
    public var authenticatorNames: AuthenticatorNameList

    public init(
        challenge: [UInt8],
        userVerification: UserVerificationRequirement = .preferred,
        requiresUserPresence: Bool = true,
        allowedAlgorithms: [COSEAlgorithm] = COSEAlgorithm.verifiable,
        trustAnchors: [X509Certificate] = [],
        clientDataTypes: [String] = ["webauthn.create"],
        safetyNet: SafetyNetPolicy = SafetyNetPolicy(),
        attestationPolicy: AttestationPolicy = .none,
        metadata: MetadataBLOB? = nil,
        authenticatorNames: AuthenticatorNameList = AuthenticatorNameList()
    ) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.requiresUserPresence = requiresUserPresence
        self.allowedAlgorithms = allowedAlgorithms
        self.trustAnchors = trustAnchors
        self.clientDataTypes = clientDataTypes
        self.safetyNet = safetyNet
        self.attestationPolicy = attestationPolicy
        self.metadata = metadata
        self.authenticatorNames = authenticatorNames
    }
}
