/// The one error type of OpenIDConnect: a stable machine `code` naming the rule that failed (e.g.
/// `idToken.wrongAudience`) and a human `reason` safe to log. Neither contains tokens, keys, nonces or claim values.
public struct OpenIDConnectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its wire and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case malformed = "idToken.malformed"
            case unsupportedAlgorithm = "idToken.unsupportedAlgorithm"
            case unknownKey = "idToken.unknownKey"
            case keyMismatch = "idToken.keyMismatch"
            case invalidSignature = "idToken.invalidSignature"
            case wrongIssuer = "idToken.wrongIssuer"
            case wrongTenant = "idToken.wrongTenant"
            case wrongAudience = "idToken.wrongAudience"
            case missingAuthorizedParty = "idToken.missingAuthorizedParty"
            case wrongAuthorizedParty = "idToken.wrongAuthorizedParty"
            case expired = "idToken.expired"
            case issuedInFuture = "idToken.issuedInFuture"
            case lifetimeTooLong = "idToken.lifetimeTooLong"
            case invalidSubject = "idToken.invalidSubject"
            case missingNonce = "idToken.missingNonce"
            case nonceMismatch = "idToken.nonceMismatch"
            case jwksMalformed = "issuerKeys.malformed"
            case discoveryMalformed = "discovery.malformed"
            case discoveryIssuerMismatch = "discovery.issuerMismatch"
            case invalidIssuer = "issuer.invalid"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The ID token is not a compact JWS with a JSON object header and claims of the documented types.
        public static let malformed = Code(.malformed)
        /// The token's `alg` is not RS256 or ES256.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The token's `kid` is missing or names no key of the issuer's set.
        public static let unknownKey = Code(.unknownKey)
        /// The key the token names is not a key for the token's `alg`.
        public static let keyMismatch = Code(.keyMismatch)
        /// The token signature does not verify.
        public static let invalidSignature = Code(.invalidSignature)
        /// The token's `iss` is not the configured issuer.
        public static let wrongIssuer = Code(.wrongIssuer)
        /// A multi-tenant issuer's token has no usable `tid`, or its `iss` is not the template with that `tid`.
        public static let wrongTenant = Code(.wrongTenant)
        /// The token's `aud` names none of the configured client IDs.
        public static let wrongAudience = Code(.wrongAudience)
        /// The token has several audiences and no `azp`.
        public static let missingAuthorizedParty = Code(.missingAuthorizedParty)
        /// The token's `azp` is not one of the configured client IDs.
        public static let wrongAuthorizedParty = Code(.wrongAuthorizedParty)
        /// The token expired.
        public static let expired = Code(.expired)
        /// The token's `iat` is in the future.
        public static let issuedInFuture = Code(.issuedInFuture)
        /// The token's `exp` is further after its `iat` than any provider's documented lifetime.
        public static let lifetimeTooLong = Code(.lifetimeTooLong)
        /// The token's `sub` is missing, empty or longer than 255 bytes.
        public static let invalidSubject = Code(.invalidSubject)
        /// A nonce was expected and the token has none.
        public static let missingNonce = Code(.missingNonce)
        /// The token's nonce is not the SHA-256 of the expected raw nonce.
        public static let nonceMismatch = Code(.nonceMismatch)
        /// The issuer's JWKS document or one of its keys is unusable.
        public static let jwksMalformed = Code(.jwksMalformed)
        /// The discovery document is not a JSON object with the required members.
        public static let discoveryMalformed = Code(.discoveryMalformed)
        /// The discovery document's `issuer` is not the configured issuer.
        public static let discoveryIssuerMismatch = Code(.discoveryIssuerMismatch)
        /// A configured issuer is not an https URL, or is a template this verifier cannot check.
        public static let invalidIssuer = Code(.invalidIssuer)

        /// The wire and log form, e.g. `idToken.malformed`.
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
