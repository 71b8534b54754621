import Foundation
import JSON

/// The claims of an ID token that passkeyd reads (OpenID Connect Core §2, §5.1). Only `IDTokenVerifier` returns
/// these after every rule passed; the parser is internal so that unverified claims never leave the module.
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`: the issuer, as the token states it.
    public let issuer: String
    /// `sub`: the user's identifier at the issuer, unique with `iss`.
    public let subject: String
    /// `aud`: the client IDs the token is for (a string or an array in the token).
    public let audiences: [String]
    /// `azp`: the party the token was issued to, when present.
    public let authorizedParty: String?
    /// `exp` and `iat`.
    public let expiresAt: Date
    public let issuedAt: Date
    /// `nonce`: what the client passed in its request.
    public let nonce: String?
    /// `email` and `email_verified` (a boolean, or the string "true"/"false" some providers send).
    public let email: String?
    public let emailVerified: Bool?
    /// `tid`: Microsoft Entra's tenant ID.
    public let tenantID: String?
}

extension IDTokenClaims {
    /// Reads a claims set (RFC 7519 §7.2: a JSON object; strict JSON, no duplicate members). `iss`, `aud`, `exp`
    /// and `iat` are required with their documented types; a missing `sub` reads as empty so that the verifier
    /// refuses it with its own code. Any claim of the wrong type is `idToken.malformed`.
    init(claims bytes: [UInt8]) throws(OpenIDConnectError) {
        guard let object = StrictJSONParser.strictValue(bytes)?.objectValue else {
            throw OpenIDConnectError(.malformed, "the ID token claims are not a strict JSON object")
        }
        let reader = ClaimReader(object: object)
        issuer = try reader.requiredString("iss")
        subject = try reader.string("sub") ?? ""
        audiences = try reader.audiences()
        authorizedParty = try reader.string("azp")
        expiresAt = try reader.numericDate("exp")
        issuedAt = try reader.numericDate("iat")
        nonce = try reader.string("nonce")
        email = try reader.string("email")
        emailVerified = try reader.boolean("email_verified")
        tenantID = try reader.string("tid")
    }
}

/// Reads typed claims from a claims object, naming the claim (never its value) in a refusal.
private struct ClaimReader {
    let object: [String: JSONValue]

    func string(_ name: String) throws(OpenIDConnectError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw malformed(name) }
        return text
    }

    func requiredString(_ name: String) throws(OpenIDConnectError) -> String {
        guard let text = try string(name) else { throw OpenIDConnectError(.malformed, "the ID token has no \(name)") }
        return text
    }

    /// RFC 7519 §4.1.3: one string or an array of strings, never empty.
    func audiences() throws(OpenIDConnectError) -> [String] {
        switch object["aud"] {
        case .string(let single): return [single]
        case .array(let items):
            let values = items.compactMap(\.stringValue)
            guard !values.isEmpty, values.count == items.count else { throw malformed("aud") }
            return values
        default: throw malformed("aud")
        }
    }

    /// RFC 7519 §2 NumericDate: seconds since the epoch, finite.
    func numericDate(_ name: String) throws(OpenIDConnectError) -> Date {
        guard case .number(let seconds) = object[name], seconds.isFinite else { throw malformed(name) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// A boolean, or the string "true" or "false".
    func boolean(_ name: String) throws(OpenIDConnectError) -> Bool? {
        switch object[name] {
        case nil, .null: return nil
        case .bool(let value): return value
        case .string("true"): return true
        case .string("false"): return false
        default: throw malformed(name)
        }
    }

    private func malformed(_ name: String) -> OpenIDConnectError {
        OpenIDConnectError(.malformed, "the ID token's \(name) has the wrong type")
    }
}
