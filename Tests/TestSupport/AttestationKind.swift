/// The attestation statement `SoftwareAuthenticator` produces at registration.
public enum AttestationKind: Sendable {
    /// `none` (§8.7): an empty statement.
    case none
    /// `packed` self attestation (§8.2): signed by the credential key, no x5c.
    case packedSelf
    /// `packed` with an x5c batch certificate chain (§8.2).
    case packed(AttestationCertificates)
    /// `fido-u2f` (§8.6): the batch leaf certificate alone in x5c.
    case fidoU2F(AttestationCertificates)
    /// `apple` (§8.8): a certificate for the credential key, issued by the intermediate, carrying
    /// SHA-256(authData || clientDataHash) in Apple's nonce extension; x5c is that certificate and the intermediate.
    case apple(AttestationCertificates)
}
