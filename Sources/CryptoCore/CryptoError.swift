/// The one error type of CryptoCore: a stable machine `code` and a human `reason`. Codes `crypto.*` are about keys,
/// certificates and signatures; codes `tls.*` about loading, checking or generating TLS material.
///
/// Reasons never contain key material, signatures or other secrets (TLS reasons name files and OpenSSL's reason).
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case invalidKey = "crypto.invalidKey"
            case unsupported = "crypto.unsupported"
            case invalidCertificate = "crypto.invalidCertificate"
            case invalidASN1 = "crypto.invalidASN1"
            case malformedJWS = "crypto.malformedJWS"
            case certificateExpired = "crypto.certificateExpired"
            case chainUntrusted = "crypto.chainUntrusted"
            case decryptionFailed = "crypto.decryptionFailed"
            case internalFailure = "crypto.internal"
            case certificateUnreadable = "tls.certificateUnreadable"
            case privateKeyUnreadable = "tls.privateKeyUnreadable"
            case keyMismatch = "tls.keyMismatch"
            case contextFailed = "tls.contextFailed"
            case generationFailed = "tls.generationFailed"
            case handshakeFailed = "tls.handshakeFailed"
            case writeFailed = "tls.writeFailed"
            case readFailed = "tls.readFailed"
            case caFileUnreadable = "tls.caFileUnreadable"
            case sessionFailed = "tls.sessionFailed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Key material is malformed or unusable for the operation.
        public static let invalidKey = Code(.invalidKey)
        /// The key type, curve or parameter is not one passkeyd supports.
        public static let unsupported = Code(.unsupported)
        /// A certificate (DER or PEM) cannot be read.
        public static let invalidCertificate = Code(.invalidCertificate)
        /// A DER element is malformed.
        public static let invalidASN1 = Code(.invalidASN1)
        /// A compact JWS is malformed.
        public static let malformedJWS = Code(.malformedJWS)
        /// A certificate on the path is not valid at the verification time.
        public static let certificateExpired = Code(.certificateExpired)
        /// A certificate path does not verify to a trust anchor.
        public static let chainUntrusted = Code(.chainUntrusted)
        /// A sealed value is altered, truncated or under another key.
        public static let decryptionFailed = Code(.decryptionFailed)
        /// OpenSSL failed where it should not (allocation, encoding).
        public static let internalFailure = Code(.internalFailure)
        /// The TLS certificate chain file cannot be read.
        public static let certificateUnreadable = Code(.certificateUnreadable)
        /// The TLS private key file cannot be read.
        public static let privateKeyUnreadable = Code(.privateKeyUnreadable)
        /// The TLS private key does not match the certificate.
        public static let keyMismatch = Code(.keyMismatch)
        /// A TLS context cannot be created or configured.
        public static let contextFailed = Code(.contextFailed)
        /// A self-signed certificate cannot be generated or written.
        public static let generationFailed = Code(.generationFailed)
        /// A TLS client's handshake failed.
        public static let handshakeFailed = Code(.handshakeFailed)
        /// A TLS client cannot write.
        public static let writeFailed = Code(.writeFailed)
        /// A TLS client cannot read.
        public static let readFailed = Code(.readFailed)
        /// The CA file for outbound TLS cannot be read or holds no certificate.
        public static let caFileUnreadable = Code(.caFileUnreadable)
        /// An outbound TLS session cannot be set up.
        public static let sessionFailed = Code(.sessionFailed)

        /// The wire and log form, e.g. `crypto.invalidKey`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
