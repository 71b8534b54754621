import COpenSSL
import Foundation

/// The password-based key derivations of imported password hashes, through OpenSSL's `EVP_KDF`: scrypt (RFC 7914) and
/// PBKDF2 (RFC 8018 §5.2), and AES-256-CTR (Firebase's scrypt variant encrypts its signer key with the derived key).
/// Callers bound the work factors before they call: these run what they are given.
public enum PasswordKeyDerivation {
    /// The digests PBKDF2 is used with.
    public enum Digest: String, Sendable {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"
    }

    /// `length` bytes of scrypt(`password`, `salt`, N = 2^`costLog2`, r = `blockSize`, p = `parallelism`).
    public static func scrypt(
        password: [UInt8],
        salt: [UInt8],
        costLog2: Int,
        blockSize: Int,
        parallelism: Int,
        length: Int
    ) throws(CryptoError) -> [UInt8] {
        guard (1...40).contains(costLog2), blockSize > 0, parallelism > 0, (1...1024).contains(length) else {
            throw CryptoError(.invalidKey, "scrypt parameters out of range")
        }
        // OpenSSL refuses more than 32 MiB of scrypt memory by default; the callers' bounds are the limit.
        let memory = UInt64(128) * UInt64(blockSize) * (UInt64(1) << UInt64(costLog2) + UInt64(parallelism) + 2)
        return try derive("SCRYPT", password: password, salt: salt, length: length) { parameters, strings in
            parameters.append(OSSL_PARAM_construct_uint64(strings.name("n"), strings.uint64(UInt64(1) << UInt64(costLog2))))
            parameters.append(OSSL_PARAM_construct_uint32(strings.name("r"), strings.uint32(UInt32(blockSize))))
            parameters.append(OSSL_PARAM_construct_uint32(strings.name("p"), strings.uint32(UInt32(parallelism))))
            parameters.append(OSSL_PARAM_construct_uint64(strings.name("maxmem_bytes"), strings.uint64(memory)))
        }
    }

    /// `length` bytes of PBKDF2 with HMAC-`digest`, `iterations` rounds.
    public static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int, digest: Digest, length: Int) throws(CryptoError) -> [UInt8] {
        guard iterations > 0, iterations <= Int(UInt32.max), (1...1024).contains(length) else {
            throw CryptoError(.invalidKey, "PBKDF2 parameters out of range")
        }
        return try derive("PBKDF2", password: password, salt: salt, length: length) { parameters, strings in
            parameters.append(OSSL_PARAM_construct_utf8_string(strings.name("digest"), strings.name(digest.rawValue), 0))
            parameters.append(OSSL_PARAM_construct_uint(strings.name("iter"), strings.uint32(UInt32(iterations))))
        }
    }

    /// AES-256-CTR of `data` under `key` (32 bytes) from the counter block `iv` (16 bytes).
    public static func aes256CTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32, iv.count == 16 else { throw CryptoError(.invalidKey, "AES-256-CTR needs a 32-byte key and a 16-byte IV") }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError(.internalFailure, "EVP_CIPHER_CTX_new failed") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: data.count + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_ctr(), nil, key, iv) == 1,
            EVP_EncryptUpdate(context, &output, &written, data, Int32(data.count)) == 1,
            output.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(context, $0.baseAddress! + Int(written), &final) }) == 1
        else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "AES-256-CTR failed")
        }
        return Array(output.prefix(Int(written + final)))
    }

    /// C strings and integers that outlive the OSSL_PARAMs pointing at them (an OSSL_PARAM keeps pointers).
    final class ParameterStorage {
        private var strings: [UnsafeMutablePointer<CChar>] = []
        private var integers: [UnsafeMutableRawPointer] = []

        func name(_ text: String) -> UnsafeMutablePointer<CChar> {
            let copy = strdup(text)!
            strings.append(copy)
            return copy
        }

        private func integer<Value>(_ value: Value) -> UnsafeMutablePointer<Value> {
            let pointer = UnsafeMutablePointer<Value>.allocate(capacity: 1)
            pointer.initialize(to: value)
            integers.append(UnsafeMutableRawPointer(pointer))
            return pointer
        }

        func uint64(_ value: UInt64) -> UnsafeMutablePointer<UInt64> { integer(value) }
        func uint32(_ value: UInt32) -> UnsafeMutablePointer<UInt32> { integer(value) }

        deinit {
            strings.forEach { free($0) }
            integers.forEach { $0.deallocate() }
        }
    }

    private static func derive(
        _ name: String,
        password: [UInt8],
        salt: [UInt8],
        length: Int,
        _ addParameters: (inout [OSSL_PARAM], ParameterStorage) -> Void
    ) throws(CryptoError) -> [UInt8] {
        guard let kdf = EVP_KDF_fetch(nil, name, nil) else { throw CryptoError(.internalFailure, "OpenSSL has no \(name)") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw CryptoError(.internalFailure, "EVP_KDF_CTX_new failed") }
        defer { EVP_KDF_CTX_free(context) }
        let strings = ParameterStorage()
        var password = password
        var salt = salt
        var output = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeMutableBytes { passwordBytes in
            salt.withUnsafeMutableBytes { saltBytes in
                var parameters = [
                    OSSL_PARAM_construct_octet_string(strings.name("pass"), passwordBytes.baseAddress, passwordBytes.count),
                    OSSL_PARAM_construct_octet_string(strings.name("salt"), saltBytes.baseAddress, saltBytes.count),
                ]
                addParameters(&parameters, strings)
                parameters.append(OSSL_PARAM_construct_end())
                return output.withUnsafeMutableBufferPointer { out in EVP_KDF_derive(context, out.baseAddress, out.count, &parameters) }
            }
        }
        guard status == 1 else {
            ERR_clear_error()
            throw CryptoError(.internalFailure, "\(name) derivation failed")
        }
        return output
    }
}
