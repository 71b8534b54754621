/// Failures to load, check or generate the server's TLS material (codes `tls.*`); reasons name files and OpenSSL's
/// reason, never key material.
extension CryptoError {
    static func certificateUnreadable(_ reason: String) -> CryptoError { CryptoError(code: "tls.certificateUnreadable", reason: reason) }
    static func privateKeyUnreadable(_ reason: String) -> CryptoError { CryptoError(code: "tls.privateKeyUnreadable", reason: reason) }
    static func keyMismatch(_ reason: String) -> CryptoError { CryptoError(code: "tls.keyMismatch", reason: reason) }
    static func contextFailed(_ reason: String) -> CryptoError { CryptoError(code: "tls.contextFailed", reason: reason) }
    static func generationFailed(_ reason: String) -> CryptoError { CryptoError(code: "tls.generationFailed", reason: reason) }
}

/// Failures to set up an outbound TLS connection (codes `tls.*`).
extension CryptoError {
    static func caFileUnreadable(_ reason: String) -> CryptoError { CryptoError(code: "tls.caFileUnreadable", reason: reason) }
    static func sessionFailed(_ reason: String) -> CryptoError { CryptoError(code: "tls.sessionFailed", reason: reason) }
}
