import COpenSSL

/// AES-256-GCM through OpenSSL's EVP interface, for small secrets kept at rest (Apple refresh tokens).
///
/// A sealed value is `nonce (12 bytes) || ciphertext || tag (16 bytes)`; every call to `seal` draws a fresh random
/// nonce. `associatedData` binds a value to its context (for example the record it belongs to) without being stored.
public struct AuthenticatedEncryption: Sendable {
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let tagLength = 16

    private let key: [UInt8]
    private let random: any RandomSource

    /// - Throws: `crypto.invalidKey` unless `key` is 32 bytes.
    public init(key: [UInt8], random: any RandomSource = SystemRandom()) throws(CryptoError) {
        guard key.count == Self.keyLength else { throw CryptoError(.invalidKey, "AES-256-GCM keys are 32 bytes") }
        self.key = key
        self.random = random
    }

    /// Encrypts and authenticates `plaintext`.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let nonce = random.bytes(count: Self.nonceLength)
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.internalFailure, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex2(context, EVP_aes_256_gcm(), key, nonce, nil) == 1 else {
            throw CryptoError(.internalFailure, "AES-256-GCM initialisation failed")
        }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw CryptoError(.internalFailure, "AES-256-GCM associated data failed")
            }
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &ciphertext, &written, plaintext, Int32(plaintext.count)) == 1 else {
                throw CryptoError(.internalFailure, "AES-256-GCM encryption failed")
            }
        }
        var finalLength: Int32 = 0
        let finished = ciphertext.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &finalLength)
        }
        guard finished == 1 else { throw CryptoError(.internalFailure, "AES-256-GCM finalisation failed") }
        var tag = [UInt8](repeating: 0, count: Self.tagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), &tag) == 1 else {
            throw CryptoError(.internalFailure, "AES-256-GCM tag retrieval failed")
        }
        return nonce + ciphertext.prefix(Int(written + finalLength)) + tag
    }

    /// Checks and decrypts a value made by `seal` with the same key and associated data.
    /// - Throws: `crypto.decryptionFailed` when the value is too short, was altered, or belongs to another key or context.
    public func open(_ sealed: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= Self.nonceLength + Self.tagLength else { throw Self.decryptionFailed }
        let nonce = Array(sealed.prefix(Self.nonceLength))
        let ciphertext = Array(sealed.dropFirst(Self.nonceLength).dropLast(Self.tagLength))
        var tag = Array(sealed.suffix(Self.tagLength))
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.internalFailure, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex2(context, EVP_aes_256_gcm(), key, nonce, nil) == 1 else {
            throw CryptoError(.internalFailure, "AES-256-GCM initialisation failed")
        }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw Self.decryptionFailed
            }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        if !ciphertext.isEmpty {
            guard EVP_DecryptUpdate(context, &plaintext, &written, ciphertext, Int32(ciphertext.count)) == 1 else {
                throw Self.decryptionFailed
            }
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &tag) == 1 else {
            throw CryptoError(.internalFailure, "AES-256-GCM tag setting failed")
        }
        var finalLength: Int32 = 0
        let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &finalLength)
        }
        guard verified == 1 else { throw Self.decryptionFailed }
        return Array(plaintext.prefix(Int(written + finalLength)))
    }

    private static let decryptionFailed = CryptoError(
        .decryptionFailed,
        "the sealed value is altered, truncated or under another key"
    )
}
