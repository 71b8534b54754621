import Foundation

/// A verified Apple server-to-server notification: the body `{"payload": "<JWS>"}` Apple posts to the app's
/// notification endpoint. The JWS passes the identity token's signature, issuer, audience and `exp`/`iat` rules
/// (with the verifier's leeway); there is no nonce and no top-level `sub`. Signature and claim failures carry the
/// `appleToken.*` codes; the body and event shape carry `notification.*` codes.
public struct ServerNotification: Sendable, Equatable {
    /// The longest body accepted.
    public static let maximumBodyLength = 32_768

    public let issuer: String
    public let audiences: [String]
    public let issuedAt: Date
    public let expiresAt: Date
    /// `jti`, if present: unique per notification, for replay detection by the caller.
    public let jwtID: String?
    public let event: ServerNotificationEvent

    private struct Body: Decodable {
        let payload: String
    }

    private enum CodingKeys: String, CodingKey {
        case iss, aud, iat, exp, jti, events
    }

    private struct Claims: Decodable {
        let issuer: String
        let audiences: [String]
        let issuedAt: Date
        let expiresAt: Date
        let jwtID: String?
        let events: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            issuer = try container.decode(String.self, forKey: .iss)
            audiences = try container.decodeAudience(forKey: .aud)
            issuedAt = try container.decodeNumericDate(forKey: .iat)
            expiresAt = try container.decodeNumericDate(forKey: .exp)
            jwtID = try container.decodeIfPresent(String.self, forKey: .jti)
            events = try container.decode(String.self, forKey: .events)
        }
    }

    /// Verifies the HTTP request body Apple posted.
    public init(body: [UInt8], verifier: IdentityTokenVerifier, keys: JSONWebKeySet) throws(AppleSignInError) {
        // Bound the work done on an unauthenticated request body.
        guard body.count <= Self.maximumBodyLength else {
            throw AppleSignInError(.notificationMalformed, "body is longer than \(Self.maximumBodyLength) bytes")
        }
        // Apple: the body is a JSON object whose payload member is the signed JWT.
        let parsed: Body
        do {
            parsed = try JSONDecoder().decode(Body.self, from: Data(body))
        } catch {
            throw AppleSignInError(.notificationMalformed, "body is not {\"payload\": \"<JWS>\"}")
        }
        try self.init(payload: parsed.payload, verifier: verifier, keys: keys)
    }

    /// Verifies the JWS of a notification (the body's `payload`).
    public init(payload: String, verifier: IdentityTokenVerifier, keys: JSONWebKeySet) throws(AppleSignInError) {
        // Apple: the notification is a JWS signed like an identity token (form, RS256, kid, signature).
        let jws = try verifier.verifiedSignature(payload, keys: keys)
        // RFC 7519 §4.1: iss, aud, iat and exp are required, with their JSON types.
        let claims: Claims
        do {
            claims = try JSONDecoder().decode(Claims.self, from: Data(jws.payload))
        } catch {
            throw AppleSignInError(.appleTokenMalformed, "notification claims are unusable: \(ClaimDecodingFailure.describe(error))")
        }
        // Apple: the identity token's issuer, audience and validity rules, with the verifier's leeway.
        try verifier.checkRegisteredClaims(issuer: claims.issuer, audiences: claims.audiences, expiresAt: claims.expiresAt, issuedAt: claims.issuedAt)
        // Apple: events is a string holding the JSON event object.
        event = try ServerNotificationEvent(json: claims.events)
        issuer = claims.issuer
        audiences = claims.audiences
        issuedAt = claims.issuedAt
        expiresAt = claims.expiresAt
        jwtID = claims.jwtID
    }
}
