/// A failure to load, check or generate the server's TLS material.
///
/// Codes: `tls.certificateUnreadable`, `tls.privateKeyUnreadable`, `tls.keyMismatch`,
/// `tls.contextFailed`, `tls.generationFailed`.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable code such as `tls.keyMismatch`.
    public let code: String
    /// A human-readable explanation (file name, OpenSSL's reason); never key material.
    public let reason: String

    /// Creates an error with a code and a reason.
    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    static func certificateUnreadable(_ reason: String) -> TLSError { TLSError(code: "tls.certificateUnreadable", reason: reason) }
    static func privateKeyUnreadable(_ reason: String) -> TLSError { TLSError(code: "tls.privateKeyUnreadable", reason: reason) }
    static func keyMismatch(_ reason: String) -> TLSError { TLSError(code: "tls.keyMismatch", reason: reason) }
    static func contextFailed(_ reason: String) -> TLSError { TLSError(code: "tls.contextFailed", reason: reason) }
    static func generationFailed(_ reason: String) -> TLSError { TLSError(code: "tls.generationFailed", reason: reason) }
}
