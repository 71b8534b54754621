import Foundation

/// The claims of a verified Sign in with Apple identity token. Only `IdentityTokenVerifier` makes these from a token
/// (the type is deliberately not `Decodable`), so every value has passed its rules.
public struct AppleIdentityToken: Sendable, Equatable {
    /// `iss`: the issuer, `https://appleid.apple.com`.
    public let issuer: String
    /// `sub`: the stable, team-scoped user identifier.
    public let subject: String
    /// `aud`: the client IDs (bundle ID or Services ID) the token is for; Apple sends one, as a string.
    public let audiences: [String]
    /// `exp`: when the token expires.
    public let expiresAt: Date
    /// `iat`: when Apple issued the token.
    public let issuedAt: Date
    /// `nonce`: what the client passed as the request nonce (Apple's samples send hex SHA-256 of the raw nonce).
    public let nonce: String?
    /// `nonce_supported`: false on platforms that cannot pass a nonce.
    public let nonceSupported: Bool?
    /// `email`: the user's address or private relay address.
    public let email: String?
    /// `email_verified`: sent by Apple as a boolean or as the string "true"/"false".
    public let emailVerified: Bool?
    /// `is_private_email`: whether `email` is a private relay address; boolean or string like `email_verified`.
    public let isPrivateEmail: Bool?
    /// `real_user_status`.
    public let realUserStatus: RealUserStatus?
    /// `transfer_sub`: the user's identifier in the team that transferred the app.
    public let transferSubject: String?
    /// `auth_time`: when the user authenticated.
    public let authenticationTime: Date?
    /// `c_hash`: hash of the authorization code issued with the token.
    public let codeHash: String?
}

extension AppleIdentityToken {
    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, email
        case nonceSupported = "nonce_supported"
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case realUserStatus = "real_user_status"
        case transferSubject = "transfer_sub"
        case authenticationTime = "auth_time"
        case codeHash = "c_hash"
    }

    /// Decodes a claims set (JSON object text). `iss`, `aud`, `exp` and `iat` are required; a missing `sub` decodes
    /// as empty so that the verifier refuses it with its own code. Any claim of the wrong type is `appleToken.malformed`.
    init(claims: [UInt8]) throws(AppleSignInError) {
        do {
            self = try JSONDecoder().decode(Claims.self, from: Data(claims)).token
        } catch {
            throw AppleSignInError(.appleTokenMalformed, "identity token claims are unusable: \(ClaimDecodingFailure.describe(error))")
        }
    }

    /// Decodes through a private type so that the public one cannot be decoded from unverified JSON.
    private struct Claims: Decodable {
        let token: AppleIdentityToken

        init(from decoder: any Decoder) throws {
            token = try AppleIdentityToken(try decoder.container(keyedBy: CodingKeys.self))
        }
    }

    private init(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        issuer = try container.decode(String.self, forKey: .iss)
        subject = try container.decodeIfPresent(String.self, forKey: .sub) ?? ""
        audiences = try container.decodeAudience(forKey: .aud)
        expiresAt = try container.decodeNumericDate(forKey: .exp)
        issuedAt = try container.decodeNumericDate(forKey: .iat)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        nonceSupported = try container.decodeAppleBooleanIfPresent(forKey: .nonceSupported)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeAppleBooleanIfPresent(forKey: .emailVerified)
        isPrivateEmail = try container.decodeAppleBooleanIfPresent(forKey: .isPrivateEmail)
        if let status = try container.decodeIfPresent(Int.self, forKey: .realUserStatus) {
            guard let known = RealUserStatus(rawValue: status) else {
                throw DecodingError.dataCorruptedError(forKey: .realUserStatus, in: container, debugDescription: "not 0, 1 or 2")
            }
            realUserStatus = known
        } else {
            realUserStatus = nil
        }
        transferSubject = try container.decodeIfPresent(String.self, forKey: .transferSubject)
        authenticationTime = try container.decodeNumericDateIfPresent(forKey: .authenticationTime)
        codeHash = try container.decodeIfPresent(String.self, forKey: .codeHash)
    }
}
