import CryptoCore
import JSON

/// An issuer's JSON Web Key Set (its `jwks_uri`): the RS256 and ES256 signing keys that ID tokens name by `kid`.
/// Pure: the caller fetches and caches the document.
public struct IssuerKeySet: Sendable {
    /// The largest JWKS document accepted; Google's and Microsoft's are a few kilobytes.
    public static let maximumDocumentLength = 262_144
    /// The longest `kid` accepted.
    public static let maximumKeyIDLength = 256

    /// The usable keys, in document order.
    public let keys: [IssuerKey]

    /// A set of keys; refuses duplicate key IDs and an empty set.
    public init(keys: [IssuerKey]) throws(OpenIDConnectError) {
        // RFC 7517 §4.5: kids are distinct within a set so that a token names exactly one key.
        var seen = Set<String>()
        for key in keys where !seen.insert(key.keyID).inserted {
            throw OpenIDConnectError(.jwksMalformed, "a kid appears more than once")
        }
        // Fail closed: a set without a usable key is an error when it is loaded, not a silent refusal of every token.
        guard !keys.isEmpty else { throw OpenIDConnectError(.jwksMalformed, "the JWKS has no RS256 or ES256 signing key") }
        self.keys = keys
    }

    /// Parses a JWKS document `{"keys": [...]}` (strict JSON: no duplicate members, bounded depth). Keys of another
    /// `kty` or curve, with `use` other than `sig`, or with an `alg` other than the one their type verifies are ignored;
    /// a duplicate `kid` anywhere in the document, a malformed RSA or P-256 signing key, or a document without one is
    /// refused.
    public init(json: [UInt8]) throws(OpenIDConnectError) {
        // Bound the work done on a document before it is parsed.
        guard json.count <= Self.maximumDocumentLength else {
            throw OpenIDConnectError(.jwksMalformed, "the JWKS document is longer than \(Self.maximumDocumentLength) bytes")
        }
        // RFC 7517 §5: a JWK Set is a JSON object whose keys member is an array of JWKs (objects).
        guard let document = StrictJSONParser.strictValue(json)?.objectValue, let members = document["keys"]?.arrayValue,
            case let objects = members.compactMap(\.objectValue), objects.count == members.count
        else { throw OpenIDConnectError(.jwksMalformed, "the JWKS is not {\"keys\": [objects]} in strict JSON") }
        // RFC 7517 §4.5: distinct kids across the whole document, including keys this verifier ignores.
        var seen = Set<String>()
        for member in objects {
            guard let keyID = member["kid"]?.stringValue else { continue }
            guard seen.insert(keyID).inserted else { throw OpenIDConnectError(.jwksMalformed, "a kid appears more than once") }
        }
        var keys: [IssuerKey] = []
        for member in objects {
            if let key = try Self.signingKey(member) { keys.append(key) }
        }
        try self.init(keys: keys)
    }

    /// The key of one JWK member, or nil when it is not an RS256 or ES256 signing key.
    private static func signingKey(_ member: [String: JSONValue]) throws(OpenIDConnectError) -> IssuerKey? {
        // RFC 7517 §4.1: kty names the family; RFC 7518 §6.2.1.1: crv the curve of an EC key.
        let algorithm: IDTokenAlgorithm
        switch (member["kty"]?.stringValue, member["crv"]?.stringValue) {
        case ("RSA", _): algorithm = .rs256
        case ("EC", "P-256"): algorithm = .es256
        default: return nil
        }
        // RFC 7517 §4.2, §4.4: a key meant for encryption, or for another algorithm, cannot verify an ID token.
        guard member["use"] == nil || member["use"]?.stringValue == "sig" else { return nil }
        guard member["alg"] == nil || member["alg"]?.stringValue == algorithm.rawValue else { return nil }
        guard let keyID = member["kid"]?.stringValue else {
            throw OpenIDConnectError(.jwksMalformed, "a signing key has no kid")
        }
        let publicKey: PublicKey
        switch algorithm {
        case .rs256:
            // RFC 7518 §6.3.1: n and e are Base64urlUInt values.
            guard let modulus = Self.bytes(member["n"]), let exponent = Self.bytes(member["e"]) else {
                throw OpenIDConnectError(.jwksMalformed, "an RSA key's n or e is missing or not base64url")
            }
            publicKey = try Self.usable { () throws(CryptoError) in try PublicKey(modulus: modulus, exponent: exponent) }
        case .es256:
            // RFC 7518 §6.2.1: x and y are the full-length coordinates; OpenSSL checks the point is on the curve.
            guard let x = Self.bytes(member["x"]), let y = Self.bytes(member["y"]) else {
                throw OpenIDConnectError(.jwksMalformed, "an EC key's x or y is missing or not base64url")
            }
            publicKey = try Self.usable { () throws(CryptoError) in try PublicKey(curve: .p256, x: x, y: y) }
        }
        return try IssuerKey(keyID: keyID, algorithm: algorithm, publicKey: publicKey)
    }

    /// The key `build` makes, with OpenSSL's refusal reported as a malformed set.
    private static func usable(_ build: () throws(CryptoError) -> PublicKey) throws(OpenIDConnectError) -> PublicKey {
        do {
            return try build()
        } catch {
            throw OpenIDConnectError(.jwksMalformed, "a signing key is not a usable public key: \(error.reason)")
        }
    }

    private static func bytes(_ value: JSONValue?) -> [UInt8]? {
        value?.stringValue.flatMap(Base64URL.decode)
    }

    /// The key with `kid` equal to `id`, if any.
    public func key(id: String) -> IssuerKey? {
        keys.first { $0.keyID == id }
    }
}
