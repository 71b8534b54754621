import COpenSSL

/// Converts ECDSA signatures between the fixed-length `r || s` form of JOSE (RFC 7518 §3.4) and the DER
/// `ECDSA-Sig-Value` that `PublicKey.verify` takes, with OpenSSL's ECDSA_SIG.
public enum ECDSASignatureEncoding {
    /// The DER encoding of a raw `r || s` signature whose halves are each `curve.coordinateLength` bytes;
    /// nil when the length is wrong.
    public static func derEncoded(raw: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        let half = curve.coordinateLength
        guard raw.count == 2 * half, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &output)
        guard length > 0, let output else { return nil }
        defer { pk_OPENSSL_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
