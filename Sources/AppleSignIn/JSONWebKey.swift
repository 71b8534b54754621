import CryptoCore

/// One RSA signing key of a JSON Web Key Set (RFC 7517 §4, RFC 7518 §6.3.1), as Apple publishes them.
public struct JSONWebKey: Sendable {
    /// The smallest RSA modulus accepted: Apple's keys are 2048-bit.
    public static let minimumModulusBits = 2048

    /// `kid`: selects the key named by a token's header.
    public let keyID: String
    /// The key built from `n` and `e`.
    public let publicKey: PublicKey

    /// A key from its `kid` and OpenSSL public key, which must be RSA of at least `minimumModulusBits` bits.
    public init(keyID: String, publicKey: PublicKey) throws(AppleSignInError) {
        // RFC 7517 §4.5: kid is how a token names its key, so it must be present.
        guard !keyID.isEmpty else { throw AppleSignInError(.jwksMalformed, "an RSA signing key has an empty kid") }
        // RFC 7518 §3.3: RS256 needs an RSA key of 2048 bits or more.
        guard publicKey.type == .rsa, publicKey.bits >= Self.minimumModulusBits else {
            throw AppleSignInError(.jwksMalformed, "key \(keyID) is not an RSA key of at least \(Self.minimumModulusBits) bits")
        }
        self.keyID = keyID
        self.publicKey = publicKey
    }

    /// A key from the base64url (unpadded, strict) big-endian modulus `n` and exponent `e` of an RSA JWK.
    public init(keyID: String, modulus: String, exponent: String) throws(AppleSignInError) {
        // RFC 7518 §6.3.1: n and e are Base64urlUInt values.
        guard let modulusBytes = Base64URL.decode(modulus), let exponentBytes = Base64URL.decode(exponent) else {
            throw AppleSignInError(.jwksMalformed, "key \(keyID) n or e is not unpadded base64url")
        }
        let key: PublicKey
        do {
            key = try PublicKey(modulus: modulusBytes, exponent: exponentBytes)
        } catch {
            throw AppleSignInError(.jwksMalformed, "key \(keyID) is not a usable RSA public key: \(error.reason)")
        }
        try self.init(keyID: keyID, publicKey: key)
    }
}
