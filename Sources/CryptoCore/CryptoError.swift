/// The one error type of CryptoCore: a stable machine `code` and a human `reason`.
///
/// Reasons never contain key material, signatures or other secrets.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let reason: String

    public init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    static func invalidKey(_ reason: String) -> CryptoError { CryptoError(code: "crypto.invalidKey", reason: reason) }
    static func unsupported(_ reason: String) -> CryptoError { CryptoError(code: "crypto.unsupported", reason: reason) }
    static func invalidCertificate(_ reason: String) -> CryptoError { CryptoError(code: "crypto.invalidCertificate", reason: reason) }
    static func internalFailure(_ reason: String) -> CryptoError { CryptoError(code: "crypto.internal", reason: reason) }
}
