import CBOR
import WebAuthnCore

/// How `SoftwareAuthenticator.authenticate` builds an assertion. The defaults give an assertion that verifies
/// against a stored counter below 1; each member overrides one piece.
public struct AssertionOptions: Sendable {
    /// The flags byte exactly as written.
    public var flags: AuthenticatorFlags
    public var signCount: UInt32
    /// The rpIdHash; nil writes SHA-256 of the authenticator's RP ID.
    public var relyingPartyIDHash: [UInt8]?
    /// Write attested credential data (AAGUID, ID, key) after the counter, as no assertion may.
    public var includesAttestedCredentialData: Bool
    /// An extensions map (set `.extensionData` in `flags` yourself).
    public var extensions: CBORValue?
    /// Bytes appended to the authenticator data before signing.
    public var trailingBytes: [UInt8]
    /// The userHandle; nil sends the credential's owner.
    public var userHandle: [UInt8]?
    /// Leave userHandle out of the response.
    public var omitsUserHandle: Bool
    public var clientData: ClientDataTemplate
    public var mutation: ResponseMutation

    public init(
        flags: AuthenticatorFlags = [.userPresent, .userVerified],
        signCount: UInt32 = 1,
        relyingPartyIDHash: [UInt8]? = nil,
        includesAttestedCredentialData: Bool = false,
        extensions: CBORValue? = nil,
        trailingBytes: [UInt8] = [],
        userHandle: [UInt8]? = nil,
        omitsUserHandle: Bool = false,
        clientData: ClientDataTemplate = ClientDataTemplate(type: "webauthn.get"),
        mutation: ResponseMutation = ResponseMutation()
    ) {
        self.flags = flags
        self.signCount = signCount
        self.relyingPartyIDHash = relyingPartyIDHash
        self.includesAttestedCredentialData = includesAttestedCredentialData
        self.extensions = extensions
        self.trailingBytes = trailingBytes
        self.userHandle = userHandle
        self.omitsUserHandle = omitsUserHandle
        self.clientData = clientData
        self.mutation = mutation
    }
}
