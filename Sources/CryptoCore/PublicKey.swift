import COpenSSL

/// A public key held as an OpenSSL `EVP_PKEY`. Immutable after construction, so safe to share across threads
/// and to cache per stored credential.
public final class PublicKey: @unchecked Sendable {
    /// The kinds of key passkeyd verifies with.
    public enum KeyType: String, Sendable {
        case ec, rsa, ed25519, ed448
    }

    let key: OpaquePointer
    /// Idle verification contexts, reused across calls and threads (one thread uses a context at a time).
    private let contexts = KeyContextPool()
    public let type: KeyType
    /// The curve of an EC key; nil for other types.
    public let curve: EllipticCurve?

    init(owning key: OpaquePointer) throws(CryptoError) {
        self.key = key
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_EC:
            type = .ec
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
                let curve = EllipticCurve(openSSLName: String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            else {
                EVP_PKEY_free(key)
                throw CryptoError(.unsupported, "EC key on a curve passkeyd does not support")
            }
            self.curve = curve
        case EVP_PKEY_RSA:
            type = .rsa
            curve = nil
        case EVP_PKEY_ED25519:
            type = .ed25519
            curve = nil
        case EVP_PKEY_ED448:
            type = .ed448
            curve = nil
        default:
            EVP_PKEY_free(key)
            throw CryptoError(.unsupported, "key type passkeyd does not support")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// An EC public key from its affine coordinates, each exactly the curve's field length.
    /// Fails when the point is not on the curve.
    public convenience init(curve: EllipticCurve, x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == curve.coordinateLength, y.count == curve.coordinateLength else {
            throw CryptoError(.invalidKey, "EC coordinates must be \(curve.coordinateLength) bytes for \(curve.rawValue)")
        }
        let point = [0x04] + x + y
        let built: OpaquePointer? = curve.openSSLName.withCString { groupName in
            point.withUnsafeBytes { pointBytes in
                guard let builder = OSSL_PARAM_BLD_new() else { return nil }
                defer { OSSL_PARAM_BLD_free(builder) }
                guard OSSL_PARAM_BLD_push_utf8_string(builder, PK_PARAM_GROUP_NAME, groupName, 0) == 1,
                    OSSL_PARAM_BLD_push_octet_string(builder, PK_PARAM_PUB_KEY, pointBytes.baseAddress, pointBytes.count) == 1,
                    let parameters = OSSL_PARAM_BLD_to_param(builder)
                else { return nil }
                defer { OSSL_PARAM_free(parameters) }
                return PublicKey.fromData(algorithm: "EC", parameters: parameters)
            }
        }
        guard let built else { throw CryptoError(.invalidKey, "EC point is not on \(curve.rawValue)") }
        try self.init(owning: built)
        try checkPublicKey()
    }

    /// An RSA public key from its modulus and public exponent (big-endian, unsigned).
    public convenience init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        guard !modulus.isEmpty, !exponent.isEmpty, modulus.count <= 2048, exponent.count <= 8 else {
            throw CryptoError(.invalidKey, "RSA modulus or exponent has an unusable length")
        }
        let built: OpaquePointer? = modulus.withUnsafeBufferPointer { modulusBytes in
            exponent.withUnsafeBufferPointer { exponentBytes in
                guard let n = BN_bin2bn(modulusBytes.baseAddress, Int32(modulusBytes.count), nil) else { return nil }
                defer { BN_free(n) }
                guard let e = BN_bin2bn(exponentBytes.baseAddress, Int32(exponentBytes.count), nil) else { return nil }
                defer { BN_free(e) }
                guard let builder = OSSL_PARAM_BLD_new() else { return nil }
                defer { OSSL_PARAM_BLD_free(builder) }
                guard OSSL_PARAM_BLD_push_BN(builder, PK_PARAM_RSA_N, n) == 1,
                    OSSL_PARAM_BLD_push_BN(builder, PK_PARAM_RSA_E, e) == 1,
                    let parameters = OSSL_PARAM_BLD_to_param(builder)
                else { return nil }
                defer { OSSL_PARAM_free(parameters) }
                return PublicKey.fromData(algorithm: "RSA", parameters: parameters)
            }
        }
        guard let built else { throw CryptoError(.invalidKey, "RSA key could not be built") }
        try self.init(owning: built)
        try checkPublicKey()
    }

    /// An Ed25519 or Ed448 public key from its raw encoding (32 or 57 bytes).
    public convenience init(edwards type: KeyType, raw: [UInt8]) throws(CryptoError) {
        let identifier: Int32
        switch type {
        case .ed25519:
            guard raw.count == 32 else { throw CryptoError(.invalidKey, "Ed25519 public keys are 32 bytes") }
            identifier = EVP_PKEY_ED25519
        case .ed448:
            guard raw.count == 57 else { throw CryptoError(.invalidKey, "Ed448 public keys are 57 bytes") }
            identifier = EVP_PKEY_ED448
        default:
            throw CryptoError(.invalidKey, "not an Edwards-curve key type")
        }
        guard let built = raw.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(identifier, nil, $0.baseAddress, $0.count) }) else {
            throw CryptoError(.invalidKey, "Edwards-curve key could not be built")
        }
        try self.init(owning: built)
    }

    /// A key from a DER SubjectPublicKeyInfo.
    public convenience init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError(.invalidKey, "SubjectPublicKeyInfo could not be parsed") }
        try self.init(owning: parsed)
    }

    private static func fromData(algorithm: String, parameters: UnsafeMutablePointer<OSSL_PARAM>) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else { return nil }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, PK_EVP_PKEY_PUBLIC_KEY, parameters) == 1
        else { return nil }
        return key
    }

    private func checkPublicKey() throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw CryptoError(.internalFailure, "EVP_PKEY_CTX_new failed") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check_quick(context) == 1 else {
            ERR_clear_error()
            throw CryptoError(.invalidKey, "public key failed OpenSSL's check (point not on the curve, or bad RSA parameters)")
        }
    }

    /// Size of an RSA modulus in bits (or the key's security size for other types).
    public var bits: Int { Int(EVP_PKEY_get_bits(key)) }

    /// The DER SubjectPublicKeyInfo of this key, for comparing keys from different encodings.
    public var subjectPublicKeyInfo: [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &output)
        guard length > 0, let output else { return [] }
        defer { pk_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// True when both keys are the same public key.
    public func matches(_ other: PublicKey) -> Bool {
        EVP_PKEY_eq(key, other.key) == 1
    }

    /// Verifies `signature` over `message` (ECDSA signatures in DER). False on any mismatch or malformed input.
    public func verify(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard algorithm.keyType == type else { return false }
        guard let digest = algorithm.digest else { return verifyEdwards(signature: signature, message: message, algorithm: algorithm) }
        return verify(signature: signature, digest: digest.hash(message), algorithm: algorithm)
    }

    /// Verifies `signature` over an already computed digest of the message with `algorithm`'s hash.
    public func verify(signature: [UInt8], digest: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        digest.withUnsafeBufferPointer { verify(signature: signature, digestBytes: $0, algorithm: algorithm) }
    }

    /// Verifies `signature` over `first || second` (a WebAuthn assertion's authenticator data and client data
    /// hash), hashing into a stack buffer: no joined message and no digest array.
    public func verify(signature: [UInt8], over first: [UInt8], _ second: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard let hash = algorithm.digest else { return verify(signature: signature, message: first + second, algorithm: algorithm) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: hash.outputLength) { digest in
            hash.hash(first, second, into: digest)
            return verify(signature: signature, digestBytes: UnsafeBufferPointer(digest), algorithm: algorithm)
        }
    }

    private func verify(signature: [UInt8], digestBytes: UnsafeBufferPointer<UInt8>, algorithm: SignatureAlgorithm) -> Bool {
        guard algorithm.keyType == type, let hash = algorithm.digest, digestBytes.count == hash.outputLength,
            let context = contexts.take(algorithm) ?? makeVerificationContext(algorithm)
        else { return false }
        let status = signature.withUnsafeBufferPointer { signatureBytes in
            EVP_PKEY_verify(context, signatureBytes.baseAddress, signatureBytes.count, digestBytes.baseAddress, digestBytes.count)
        }
        if status != 1 { ERR_clear_error() }
        contexts.give(context, for: algorithm)
        return status == 1
    }

    /// EdDSA signs the message itself (no prehash), so each verification needs a fresh digest context.
    private func verifyEdwards(signature: [UInt8], message: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else {
            ERR_clear_error()
            return false
        }
        let status = signature.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress, messageBytes.count)
            }
        }
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    /// A verification context for `algorithm` (padding and hash set), reusable for any number of verifications.
    private func makeVerificationContext(_ algorithm: SignatureAlgorithm) -> OpaquePointer? {
        guard algorithm.keyType == type else { return nil }
        return KeyContextPool.prepared(key, for: algorithm, signing: false)
    }
}
