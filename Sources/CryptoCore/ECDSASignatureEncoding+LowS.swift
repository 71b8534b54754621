import COpenSSL

extension ECDSASignatureEncoding {
    /// The low-S form of a raw `r || s` signature (each half `curve.coordinateLength` bytes): `s` replaced by `n - s`
    /// when it is above half the curve's order `n`. Both forms verify under ECDSA; a signer that issues only the low
    /// one and a verifier that refuses the high one leave every token a single valid signature. Nil when the length
    /// is wrong or `s` is not in `1..<n`. The arithmetic is OpenSSL's BIGNUM.
    public static func lowS(raw: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        let half = curve.coordinateLength
        guard raw.count == 2 * half, let group = EC_GROUP_new_by_curve_name(OBJ_sn2nid(curve.openSSLName)) else { return nil }
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group), let halfOrder = BN_new() else { return nil }
        defer { BN_free(halfOrder) }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }) else { return nil }
        defer { BN_free(s) }
        guard BN_rshift1(halfOrder, order) == 1, BN_is_zero(s) == 0, BN_cmp(s, order) < 0 else { return nil }
        guard BN_cmp(s, halfOrder) > 0 else { return raw }
        guard let low = BN_new() else { return nil }
        defer { BN_free(low) }
        guard BN_sub(low, order, s) == 1 else { return nil }
        var output = raw
        let written = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(low, buffer.baseAddress! + half, Int32(half)) == Int32(half)
        }
        return written ? output : nil
    }

    /// Whether a raw `r || s` signature is in low-S form (`s` in `1...n/2`); false when malformed.
    public static func isLowS(raw: [UInt8], curve: EllipticCurve) -> Bool {
        lowS(raw: raw, curve: curve) == raw
    }
}
