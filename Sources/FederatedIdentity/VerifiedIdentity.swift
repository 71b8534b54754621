import CryptoCore
import Foundation
import JSON
import WebAuthnCore

/// What an identity provider's verified ID token says, in the shape common to every provider (`IdentityProvider`),
/// with the provider's own claims kept whole.
package struct VerifiedIdentity<Claims: Sendable>: Sendable {
    /// The token's `iss`: with `subject`, the key of the identity.
    package let issuer: String
    /// The token's `sub`: unique and stable within `issuer` only.
    package let subject: String
    /// The token's `aud`: the client IDs it was issued to (one of this server's).
    package let audiences: [String]
    /// The email the provider gives, when it gives one (it may be a relay address: see `claims`).
    package let email: String?
    /// Whether the provider verified `email`; nil when it does not say.
    package let emailVerified: Bool?
    /// The token's `iat` and `exp`.
    package let issuedAt: Date
    package let expiresAt: Date
    /// The provider's typed reading of its claims (Apple's `AppleIdentityToken`, with its transfer subject, private
    /// relay and real-user facts).
    package let claims: Claims
    /// The token's payload as signed: every claim, those the typed reading does not name too (empty when the payload
    /// could not be read as a JSON object after verification, which a verified token's always can).
    package let rawClaims: [String: JSONValue]

    /// The payload claims of a compact JWS (`header.payload.signature`), read after its verification; empty when they
    /// are not a JSON object.
    package static func payloadClaims(of compact: String) -> [String: JSONValue] {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: Data(payload))
        else { return [:] }
        return claims
    }
}
