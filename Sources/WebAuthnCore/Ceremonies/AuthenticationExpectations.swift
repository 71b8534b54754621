/// What the authentication verification expects: the stored challenge, the credential record the server
/// looked up by the response's rawId, and the user the ceremony was for (if it was for one).
public struct AuthenticationExpectations: Sendable {
    public var challenge: [UInt8]
    public var userVerification: UserVerificationRequirement
    /// `allowCredentials` of the request options; empty for discoverable sign-in.
    public var allowedCredentialIDs: [[UInt8]]
    /// The stored credential whose id equals the response's rawId.
    public var credential: StoredCredential
    /// The user identified before the ceremony (username first); nil for discoverable sign-in.
    public var identifiedUserHandle: [UInt8]?
    public var clientDataTypes: [String]

    public init(
        challenge: [UInt8],
        credential: StoredCredential,
        userVerification: UserVerificationRequirement = .preferred,
        allowedCredentialIDs: [[UInt8]] = [],
        identifiedUserHandle: [UInt8]? = nil,
        clientDataTypes: [String] = ["webauthn.get"]
    ) {
        self.challenge = challenge
        self.credential = credential
        self.userVerification = userVerification
        self.allowedCredentialIDs = allowedCredentialIDs
        self.identifiedUserHandle = identifiedUserHandle
        self.clientDataTypes = clientDataTypes
    }
}

/// The parts of a credential record (§4 "credential record") that authentication needs.
public struct StoredCredential: Sendable {
    public var id: [UInt8]
    public var publicKey: COSEKey
    public var signCount: UInt32
    /// The user handle of the account the credential belongs to.
    public var userHandle: [UInt8]
    /// The BE flag seen at registration (or last authentication); nil when unknown.
    public var backupEligible: Bool?

    public init(id: [UInt8], publicKey: COSEKey, signCount: UInt32, userHandle: [UInt8], backupEligible: Bool? = nil) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.userHandle = userHandle
        self.backupEligible = backupEligible
    }
}
