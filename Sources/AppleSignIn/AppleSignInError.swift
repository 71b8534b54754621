/// The one error type of AppleSignIn: a stable machine `code` naming the rule that failed (e.g.
/// `appleToken.wrongAudience`) and a human `reason` safe to log. Neither contains tokens, keys or nonces.
public struct AppleSignInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case appleTokenMalformed = "appleToken.malformed"
            case unsupportedAlgorithm = "appleToken.unsupportedAlgorithm"
            case unknownKey = "appleToken.unknownKey"
            case invalidSignature = "appleToken.invalidSignature"
            case wrongIssuer = "appleToken.wrongIssuer"
            case wrongAudience = "appleToken.wrongAudience"
            case expired = "appleToken.expired"
            case issuedInFuture = "appleToken.issuedInFuture"
            case lifetimeTooLong = "appleToken.lifetimeTooLong"
            case missingSubject = "appleToken.missingSubject"
            case missingNonce = "appleToken.missingNonce"
            case nonceMismatch = "appleToken.nonceMismatch"
            case jwksMalformed = "jwks.malformed"
            case clientSecretInvalidKey = "clientSecret.invalidKey"
            case clientSecretInvalidParameter = "clientSecret.invalidParameter"
            case notificationMalformed = "notification.malformed"
            case unsupportedEvent = "notification.unsupportedEvent"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The identity token (or a notification's claims) is not a readable JWS with the expected claims.
        public static let appleTokenMalformed = Code(.appleTokenMalformed)
        /// The token's `alg` is not RS256.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The token's `kid` is missing or not in the JWKS.
        public static let unknownKey = Code(.unknownKey)
        /// The token signature does not verify.
        public static let invalidSignature = Code(.invalidSignature)
        /// The token's `iss` is not an accepted issuer.
        public static let wrongIssuer = Code(.wrongIssuer)
        /// The token's `aud` is not an accepted client ID.
        public static let wrongAudience = Code(.wrongAudience)
        /// The token expired.
        public static let expired = Code(.expired)
        /// The token's `iat` is in the future.
        public static let issuedInFuture = Code(.issuedInFuture)
        /// The token's `exp` is more than a day after its `iat` (Apple's tokens live one day at most).
        public static let lifetimeTooLong = Code(.lifetimeTooLong)
        /// The token has no `sub`.
        public static let missingSubject = Code(.missingSubject)
        /// The token has no nonce and does not say `nonce_supported: false`.
        public static let missingNonce = Code(.missingNonce)
        /// The token's nonce is not the SHA-256 of the expected raw nonce.
        public static let nonceMismatch = Code(.nonceMismatch)
        /// The JWKS document or one of its keys is unusable.
        public static let jwksMalformed = Code(.jwksMalformed)
        /// The `.p8` key is unreadable, not P-256, or cannot sign.
        public static let clientSecretInvalidKey = Code(.clientSecretInvalidKey)
        /// A client secret parameter is empty or out of range.
        public static let clientSecretInvalidParameter = Code(.clientSecretInvalidParameter)
        /// A server notification body or event is malformed.
        public static let notificationMalformed = Code(.notificationMalformed)
        /// A verified server notification has an event type passkeyd does not handle.
        public static let unsupportedEvent = Code(.unsupportedEvent)

        /// The wire and log form, e.g. `appleToken.malformed`.
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
