import COpenSSL
import JSON
import Synchronization

/// A private key that signs JWSs with one algorithm under one key ID (`kid`): access tokens, and the OpenID
/// provider's ID tokens. Thread-safe; RSA keeps a few prepared signing contexts (padding and hash set) for reuse, as
/// public keys do for verification, and ES256 signs through one `ECDSASigner`. Never logged.
public final class JWSSigningKey: Sendable {
    public let algorithm: JWSAlgorithm
    /// The `kid` of every JWS it signs and of its JWK.
    public let keyID: String
    public let publicKey: PublicKey
    private let privateKey: PrivateKey
    /// ES256's signer (`ECDSA_do_sign` straight to `r || s`); nil for the other algorithms.
    private let ecdsa: ECDSASigner?
    private let contexts = KeyContextPool()
    /// The largest signature OpenSSL may produce for this key (DER for ECDSA).
    let maximumSignatureLength: Int
    /// The base64url protected headers made so far, by `typ` ("" for none): a key signs with one or two.
    private let headers = Mutex<[String: [UInt8]]>([:])

    /// - Throws: `crypto.invalidKey` when the key is not one `algorithm` signs with, or the key ID is empty or not
    ///   made of base64url characters (it is written into headers and JWKs unescaped).
    public init(privateKey: PrivateKey, algorithm: JWSAlgorithm, keyID: String) throws(CryptoError) {
        guard !keyID.isEmpty, keyID.utf8.count <= 128, Base64URL.isAlphabet(keyID) else {
            throw CryptoError(.invalidKey, "a key ID is 1 to 128 base64url characters")
        }
        let publicKey = try privateKey.publicKey()
        guard algorithm.accepts(publicKey) else { throw CryptoError(.invalidKey, "the key cannot sign \(algorithm.rawValue)") }
        self.algorithm = algorithm
        self.keyID = keyID
        self.publicKey = publicKey
        self.privateKey = privateKey
        if algorithm == .es256 {
            guard let signer = ECDSASigner(privateKey: privateKey) else { throw CryptoError(.invalidKey, "the key cannot sign ES256") }
            ecdsa = signer
        } else {
            ecdsa = nil
        }
        maximumSignatureLength = Int(EVP_PKEY_get_size(privateKey.key))
    }

    /// The JWS signature of `signingInput` (`header.payload` as ASCII): raw `r || s` for ES256 (RFC 7518 §3.4), the
    /// 64-byte Ed25519 signature for EdDSA (RFC 8037 §3.1), the PKCS #1 v1.5 signature for RS256 (RFC 7518 §3.3).
    public func sign(_ signingInput: [UInt8]) throws(CryptoError) -> [UInt8] {
        let scheme = algorithm.signatureAlgorithm
        guard let digest = scheme.digest else { return try signEdwards(signingInput) }
        if let ecdsa { return try signECDSA(signingInput, digest: digest, with: ecdsa) }
        guard let context = contexts.take(scheme) ?? makeSigningContext(scheme) else {
            throw CryptoError(.internalFailure, "no signing context for \(algorithm.rawValue)")
        }
        // The digest and OpenSSL's signature in one scratch buffer on the stack: no array for either.
        let signed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digest.outputLength + maximumSignatureLength) { scratch in
            let hash = UnsafeMutableBufferPointer(rebasing: scratch[..<digest.outputLength])
            let output = UnsafeMutableBufferPointer(rebasing: scratch[digest.outputLength...])
            digest.hash(signingInput, [], into: hash)
            var length = output.count
            guard EVP_PKEY_sign(context, output.baseAddress, &length, hash.baseAddress, hash.count) == 1 else { return nil as [UInt8]? }
            return Array(UnsafeBufferPointer(rebasing: output[..<length]))
        }
        contexts.give(context, for: scheme)
        guard let signed else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "\(algorithm.rawValue) signing failed")
        }
        return signed
    }

    /// ES256: the digest on the stack, then OpenSSL's signature straight to r || s. RFC 7518 §3.4: the JWS form of
    /// an ECDSA signature is r || s, each 32 bytes for P-256, not DER.
    private func signECDSA(_ signingInput: [UInt8], digest: DigestAlgorithm, with signer: ECDSASigner) throws(CryptoError) -> [UInt8] {
        let signed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: digest.outputLength) { hash in
            digest.hash(signingInput, [], into: hash)
            return signer.sign(digest: UnsafeBufferPointer(hash))
        }
        guard let signed else { throw CryptoError(.internalFailure, "ES256 signing failed") }
        return signed
    }

    /// EdDSA signs the message itself (no prehash): one `EVP_DigestSign` on a fresh context.
    private func signEdwards(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError(.internalFailure, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, privateKey.key) == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "EdDSA signing could not start")
        }
        var signature = [UInt8](repeating: 0, count: maximumSignatureLength)
        var length = signature.count
        let status = signature.withUnsafeMutableBufferPointer { output in
            message.withUnsafeBufferPointer { input in EVP_DigestSign(context, output.baseAddress, &length, input.baseAddress, input.count) }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "EdDSA signing failed")
        }
        return Array(signature.prefix(length))
    }

    /// A signing context for `scheme` over a digest (padding and hash set), reusable for any number of signatures.
    private func makeSigningContext(_ scheme: SignatureAlgorithm) -> OpaquePointer? {
        KeyContextPool.prepared(privateKey.key, for: scheme, signing: true)
    }

    /// The base64url of the protected header `{"alg", "kid", "typ"?}` (RFC 7515 §4.1) of this key, made once per `typ`.
    func encodedHeader(type: String?) -> [UInt8] {
        if let made = headers.withLock({ $0[type ?? ""] }) { return made }
        var header = JSONObjectWriter(capacity: 96)
        header.add("alg", algorithm.rawValue)
        header.add("kid", keyID)
        if let type { header.add("typ", type) }
        var encoded: [UInt8] = []
        Base64URL.append(header.finished(), to: &encoded)
        headers.withLock { $0[type ?? ""] = encoded }
        return encoded
    }

    /// The public key as a JWK (`kid`, `alg`, `use: "sig"`), for a JWKS.
    public func jwk() throws(CryptoError) -> PublicKeyJWK {
        try PublicKeyJWK(publicKey, keyID: keyID, algorithm: algorithm)
    }
}
