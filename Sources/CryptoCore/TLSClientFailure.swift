import COpenSSL

/// Why a client handshake failed: which check refused the server, with OpenSSL's text for it.
public struct TLSClientFailure: Sendable, Equatable, CustomStringConvertible {
    /// The check that failed.
    public enum Check: Sendable, Equatable {
        /// The chain does not lead to a trusted root (unknown issuer, self-signed, incomplete chain).
        case certificateUntrusted
        /// A certificate of the chain has expired.
        case certificateExpired
        /// A certificate of the chain is not valid yet.
        case certificateNotYetValid
        /// The certificate is not valid for the server's name or address.
        case hostnameMismatch
        /// Any other certificate problem (bad signature, wrong purpose, malformed, too long a chain).
        case certificateInvalid
        /// The handshake itself failed (no common protocol or cipher, an alert, not TLS at all).
        case handshake
    }

    public let check: Check
    /// OpenSSL's explanation, e.g. "certificate has expired (depth 0)"; never key material.
    public let reason: String

    public init(check: Check, reason: String) {
        self.check = check
        self.reason = reason
    }

    public var description: String { "\(check): \(reason)" }

    /// The check an `X509_V_ERR_*` code belongs to.
    static func check(forVerificationError error: Int32) -> Check {
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED: .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: .certificateNotYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostnameMismatch
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            .certificateUntrusted
        default: .certificateInvalid
        }
    }
}
