/// An authenticator status from a FIDO Metadata Service status report (FIDO MDS v3.0 "AuthenticatorStatus" enum),
/// kept as the text the BLOB carries so that statuses added after this code was written are still recorded.
public struct AuthenticatorStatus: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// "This authenticator has been revoked by the FIDO Alliance or by its vendor."
    public static let revoked = AuthenticatorStatus(rawValue: "REVOKED")
    /// "Indicates that malware is able to bypass the user verification."
    public static let userVerificationBypass = AuthenticatorStatus(rawValue: "USER_VERIFICATION_BYPASS")
    /// "Indicates that an attestation key for this authenticator is known to be compromised."
    public static let attestationKeyCompromise = AuthenticatorStatus(rawValue: "ATTESTATION_KEY_COMPROMISE")
    /// "This authenticator has identified weaknesses that allow registered keys to be compromised and should not be trusted."
    public static let userKeyRemoteCompromise = AuthenticatorStatus(rawValue: "USER_KEY_REMOTE_COMPROMISE")
    /// "This authenticator has known weaknesses in its key protection mechanism(s) that allow user keys to be extracted by an adversary in physical possession of the device."
    public static let userKeyPhysicalCompromise = AuthenticatorStatus(rawValue: "USER_KEY_PHYSICAL_COMPROMISE")
    /// "This authenticator has passed FIDO functional certification."
    public static let fidoCertified = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED")
}
