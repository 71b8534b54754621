import CBOR
import WebAuthnCore

/// How `SoftwareAuthenticator.register` builds a registration response. The defaults give a response that
/// verifies; each member overrides one piece.
public struct RegistrationOptions: Sendable {
    public var attestation: AttestationKind
    /// The flags byte exactly as written (AT is not added for you).
    public var flags: AuthenticatorFlags
    public var signCount: UInt32
    /// The rpIdHash; nil writes SHA-256 of the authenticator's RP ID.
    public var relyingPartyIDHash: [UInt8]?
    public var aaguid: [UInt8]
    /// The credential ID in attested credential data; nil writes the credential's ID.
    public var credentialID: [UInt8]?
    /// The COSE_Key bytes; nil writes the credential's key.
    public var credentialPublicKey: [UInt8]?
    /// An extensions map appended after attested credential data (set `.extensionData` in `flags` yourself).
    public var extensions: CBORValue?
    /// Bytes appended to the authenticator data before signing.
    public var trailingBytes: [UInt8]
    public var clientData: ClientDataTemplate
    /// The attestation object's `fmt`; nil writes the format's own identifier.
    public var format: String?
    public var transports: [String]
    public var mutation: ResponseMutation

    /// A fixed AAGUID for tests.
    public static let testAAGUID: [UInt8] = [0x7A, 0x1B, 0x2C, 0x3D, 0x4E, 0x5F, 0x40, 0x81, 0x92, 0xA3, 0xB4, 0xC5, 0xD6, 0xE7, 0xF8, 0x09]

    public init(
        attestation: AttestationKind = .none,
        flags: AuthenticatorFlags = [.userPresent, .userVerified, .attestedCredentialData],
        signCount: UInt32 = 0,
        relyingPartyIDHash: [UInt8]? = nil,
        aaguid: [UInt8] = RegistrationOptions.testAAGUID,
        credentialID: [UInt8]? = nil,
        credentialPublicKey: [UInt8]? = nil,
        extensions: CBORValue? = nil,
        trailingBytes: [UInt8] = [],
        clientData: ClientDataTemplate = ClientDataTemplate(type: "webauthn.create"),
        format: String? = nil,
        transports: [String] = ["internal", "hybrid"],
        mutation: ResponseMutation = ResponseMutation()
    ) {
        self.attestation = attestation
        self.flags = flags
        self.signCount = signCount
        self.relyingPartyIDHash = relyingPartyIDHash
        self.aaguid = aaguid
        self.credentialID = credentialID
        self.credentialPublicKey = credentialPublicKey
        self.extensions = extensions
        self.trailingBytes = trailingBytes
        self.clientData = clientData
        self.format = format
        self.transports = transports
        self.mutation = mutation
    }
}
