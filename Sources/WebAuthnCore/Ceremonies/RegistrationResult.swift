/// A verified registration: everything the server stores as the new credential record (§7.1 step 27).
public struct RegistrationResult: Sendable {
    public let credentialID: [UInt8]
    public let publicKey: COSEKey
    public let signCount: UInt32
    public let aaguid: [UInt8]
    public let flags: AuthenticatorFlags
    public let transports: [String]
    public let attestation: AttestationResult
    public let authenticatorAttachment: String?
    /// `credProps.rk` as the client reported it, when it did.
    public let residentKey: Bool?

    public var aaguidString: String { AttestedCredentialData.uuidString(aaguid) }
    /// The authenticator's name when the FIDO metadata or the name list knows it.
    public var authenticatorName: String? { attestation.authenticatorName }
    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backupState: Bool { flags.contains(.backupState) }
}
