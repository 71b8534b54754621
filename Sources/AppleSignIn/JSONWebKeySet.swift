import Foundation

/// Apple's JSON Web Key Set (`https://appleid.apple.com/auth/keys`): the RSA signing keys that identity tokens and
/// server notifications name by `kid`. Pure: the caller fetches and caches the document.
public struct JSONWebKeySet: Sendable {
    /// The largest JWKS document accepted; Apple's is about 1.5 KB.
    public static let maximumDocumentLength = 262_144

    /// The usable keys, in document order.
    public let keys: [JSONWebKey]

    /// The members read from each key; other members are ignored (RFC 7517 §4).
    private struct Member: Decodable {
        let kty: String
        let kid: String?
        let use: String?
        let alg: String?
        let n: String?
        let e: String?
    }

    private struct Document: Decodable {
        let keys: [Member]
    }

    /// A set of keys; refuses duplicate key IDs.
    public init(keys: [JSONWebKey]) throws(AppleSignInError) {
        // RFC 7517 §4.5: kids must be distinct within a set so that a token names exactly one key.
        var seen = Set<String>()
        for key in keys where !seen.insert(key.keyID).inserted {
            throw AppleSignInError(.jwksMalformed, "kid \(key.keyID) appears more than once")
        }
        self.keys = keys
    }

    /// Parses a JWKS document `{"keys": [...]}`. Keys whose `kty` is not `RSA`, whose `use` is present and not
    /// `sig`, or whose `alg` is present and not `RS256` are ignored (they cannot verify an Apple token); a duplicate
    /// `kid` anywhere in the document, a malformed RSA signing key, or a document without one is refused.
    public init(json: [UInt8]) throws(AppleSignInError) {
        // Bound the work done on a document before it is parsed.
        guard json.count <= Self.maximumDocumentLength else {
            throw AppleSignInError(.jwksMalformed, "JWKS document is longer than \(Self.maximumDocumentLength) bytes")
        }
        // RFC 7517 §5: a JWK Set is a JSON object whose keys member is an array of JWKs.
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(json))
        } catch {
            throw AppleSignInError(.jwksMalformed, "JWKS is not {\"keys\": [...]} with a string kty in every key")
        }
        // RFC 7517 §4.5: distinct kids across the whole document, including keys this verifier ignores.
        var seen = Set<String>()
        for member in document.keys {
            guard let keyID = member.kid else { continue }
            guard seen.insert(keyID).inserted else { throw AppleSignInError(.jwksMalformed, "kid \(keyID) appears more than once") }
        }
        var keys: [JSONWebKey] = []
        for member in document.keys {
            // RFC 7517 §4.1–4.4: only RSA keys meant for signatures with RS256 can verify Apple's tokens.
            guard member.kty == "RSA", member.use == nil || member.use == "sig", member.alg == nil || member.alg == "RS256" else { continue }
            guard let keyID = member.kid, let modulus = member.n, let exponent = member.e else {
                throw AppleSignInError(.jwksMalformed, "an RSA signing key lacks kid, n or e")
            }
            keys.append(try JSONWebKey(keyID: keyID, modulus: modulus, exponent: exponent))
        }
        // Fail closed: a set without a usable key is an error at load time, not a silent refusal of every token.
        guard !keys.isEmpty else { throw AppleSignInError(.jwksMalformed, "JWKS has no RSA signing key") }
        try self.init(keys: keys)
    }

    /// The key with `kid` equal to `id`, if any.
    public func key(id: String) -> JSONWebKey? {
        keys.first { $0.keyID == id }
    }
}
