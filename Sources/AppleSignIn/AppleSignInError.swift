/// The one error type of AppleSignIn: a stable machine `code` naming the rule that failed (e.g.
/// `appleToken.wrongAudience`) and a human `reason` safe to log. Neither contains tokens, keys or nonces.
///
/// Codes: `appleToken.malformed`, `appleToken.unsupportedAlgorithm`, `appleToken.unknownKey`,
/// `appleToken.invalidSignature`, `appleToken.wrongIssuer`, `appleToken.wrongAudience`, `appleToken.expired`,
/// `appleToken.issuedInFuture`, `appleToken.missingSubject`, `appleToken.missingNonce`, `appleToken.nonceMismatch`,
/// `jwks.malformed`, `clientSecret.invalidKey`, `clientSecret.invalidParameter`, `notification.malformed`,
/// `notification.unsupportedEvent`.
public struct AppleSignInError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let reason: String

    public init(_ code: String, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
