import COpenSSL

extension PublicKey {
    /// The affine coordinates of an EC key, each padded to the curve's coordinate length.
    public func ecCoordinates() throws(CryptoError) -> (x: [UInt8], y: [UInt8]) {
        guard type == .ec, let curve else { throw CryptoError(.invalidKey, "not an EC key") }
        return (
            try bigNumberParameter(PK_PARAM_EC_PUB_X, length: curve.coordinateLength),
            try bigNumberParameter(PK_PARAM_EC_PUB_Y, length: curve.coordinateLength)
        )
    }

    /// The modulus and exponent of an RSA key, big-endian without leading zeros.
    public func rsaComponents() throws(CryptoError) -> (modulus: [UInt8], exponent: [UInt8]) {
        guard type == .rsa else { throw CryptoError(.invalidKey, "not an RSA key") }
        return (try bigNumberParameter(PK_PARAM_RSA_N, length: nil), try bigNumberParameter(PK_PARAM_RSA_E, length: nil))
    }

    /// The raw public key of an Ed25519 or Ed448 key.
    public func rawEdwardsKey() throws(CryptoError) -> [UInt8] {
        guard type == .ed25519 || type == .ed448 else { throw CryptoError(.invalidKey, "not an Edwards-curve key") }
        var length = 0
        guard EVP_PKEY_get_raw_public_key(key, nil, &length) == 1 else { throw CryptoError(.internalFailure, "raw key length query failed") }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(key, &output, &length) == 1 else { throw CryptoError(.internalFailure, "raw key export failed") }
        return Array(output.prefix(length))
    }

    private func bigNumberParameter(_ name: UnsafePointer<CChar>, length: Int?) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else { throw CryptoError(.internalFailure, "key parameter unreadable") }
        defer { BN_free(number) }
        let size = length ?? Int((BN_num_bits(number) + 7) / 8)
        var output = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(number, &output, Int32(size)) == Int32(size) else { throw CryptoError(.internalFailure, "key parameter too long") }
        return output
    }
}
