/// What a completed client handshake established, for callers that report on it (`check-domain`) or log it.
public struct TLSPeerFacts: Sendable, Equatable {
    /// The negotiated protocol, e.g. "TLSv1.3".
    public var protocolVersion: String
    /// The negotiated cipher suite in OpenSSL's naming, e.g. "TLS_AES_256_GCM_SHA384".
    public var cipherSuite: String
    /// The name the certificate was verified for (a DNS name or an IP address).
    public var serverName: String
    /// Whether the certificate chain and the name were verified; always true for a completed handshake, since
    /// verification cannot be turned off.
    public var certificateVerified: Bool

    public init(protocolVersion: String, cipherSuite: String, serverName: String, certificateVerified: Bool) {
        self.protocolVersion = protocolVersion
        self.cipherSuite = cipherSuite
        self.serverName = serverName
        self.certificateVerified = certificateVerified
    }
}
