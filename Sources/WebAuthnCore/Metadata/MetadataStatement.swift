import CryptoCore

/// The members of a metadata statement (FIDO Metadata Statement v3.0) that passkeyd uses.
public struct MetadataStatement: Sendable {
    /// "A human-readable, short description of the authenticator, in English."
    public let description: String?
    /// The roots an attestation certificate path of this authenticator may end at. Certificates OpenSSL cannot parse
    /// are left out: no path can end at them, so an authenticator with only such roots is never trusted.
    public let attestationRootCertificates: [X509Certificate]
    /// `attestationTypes`, e.g. "basic_full", "attca", "anonca".
    public let attestationTypes: [String]

    public init(description: String?, attestationRootCertificates: [X509Certificate], attestationTypes: [String]) {
        self.description = description
        self.attestationRootCertificates = attestationRootCertificates
        self.attestationTypes = attestationTypes
    }
}
