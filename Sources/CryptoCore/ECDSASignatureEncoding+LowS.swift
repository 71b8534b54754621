import COpenSSL

extension ECDSASignatureEncoding {
    /// The low-S form of a raw `r || s` signature (each half `curve.coordinateLength` bytes): `s` replaced by `n - s`
    /// when it is above half the curve's order `n`. Both forms verify under ECDSA; a signer that issues only the low
    /// one and a verifier that refuses the high one leave every token a single valid signature. Nil when the length
    /// is wrong or `s` is not in `1..<n`. The orders come from OpenSSL once per curve (`CurveOrder`); the subtraction
    /// is OpenSSL's BIGNUM.
    public static func lowS(raw: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        let half = curve.coordinateLength
        guard raw.count == 2 * half, let order = CurveOrder.of(curve) else { return nil }
        let s = raw[half...]
        // Equal-length big-endian byte strings compare as the numbers they encode.
        guard s.contains(where: { $0 != 0 }), s.lexicographicallyPrecedes(order.order) else { return nil }
        guard order.half.lexicographicallyPrecedes(s) else { return raw }
        guard let n = order.order.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress!, Int32(half), nil) }) else { return nil }
        defer { BN_free(n) }
        guard let high = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }) else { return nil }
        defer { BN_free(high) }
        guard let low = BN_new() else { return nil }
        defer { BN_free(low) }
        guard BN_sub(low, n, high) == 1 else { return nil }
        var output = raw
        let written = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(low, buffer.baseAddress! + half, Int32(half)) == Int32(half)
        }
        return written ? output : nil
    }

    /// The low-S `r || s` form of a DER `ECDSA-Sig-Value`: what `rawEncoded` then `lowS` give, in one step (the DER
    /// parsed once, `lowSRaw` on OpenSSL's `ECDSA_SIG`). Nil when the DER is malformed, an integer is too long, or `s`
    /// is not in `1..<n`.
    public static func lowSRawEncoded(der: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        guard let parsed = parse(der: der) else { return nil }
        defer { ECDSA_SIG_free(parsed) }
        return lowSRaw(signature: parsed, curve: curve)
    }

    /// The low-S `r || s` form of OpenSSL's `ECDSA_SIG`, which the caller owns and frees: its `s` is replaced by
    /// `n - s` in place when high. Nil when an integer is too long or `s` is not in `1..<n`.
    static func lowSRaw(signature: OpaquePointer, curve: EllipticCurve) -> [UInt8]? {
        guard let order = CurveOrder.of(curve) else { return nil }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        guard let r, let s, BN_is_zero(s) == 0, BN_is_negative(s) == 0, BN_cmp(s, order.number) < 0 else { return nil }
        // RFC 7518 §3.4 leaves both twins valid; only s ≤ n/2 is issued. `s` belongs to `signature`, the caller's.
        if BN_cmp(s, order.halfNumber) > 0 {
            guard BN_sub(s, order.number, s) == 1 else { return nil }
        }
        return raw(r: r, s: s, curve: curve)
    }

    /// Whether a raw `r || s` signature is in low-S form (`s` in `1...n/2`); false when malformed.
    public static func isLowS(raw: [UInt8], curve: EllipticCurve) -> Bool {
        lowS(raw: raw, curve: curve) == raw
    }
}
