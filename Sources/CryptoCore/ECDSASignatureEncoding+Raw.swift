import COpenSSL

extension ECDSASignatureEncoding {
    /// The fixed-length JOSE `r || s` form (RFC 7518 §3.4) of a DER `ECDSA-Sig-Value`, each half left-padded to
    /// `curve.coordinateLength` bytes; nil when the DER is malformed, has trailing bytes, or an integer is too long.
    public static func rawEncoded(der: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        guard let parsed = parse(der: der) else { return nil }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { return nil }
        return raw(r: r, s: s, curve: curve)
    }

    /// OpenSSL's `ECDSA_SIG` of a DER `ECDSA-Sig-Value` (the caller frees it); nil when malformed or followed by more
    /// bytes.
    static func parse(der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { parse(der: $0) }
    }

    /// `parse` of DER where it lies.
    static func parse(der: UnsafeBufferPointer<UInt8>) -> OpaquePointer? {
        guard let start = der.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = start
        let parsed = d2i_ECDSA_SIG(nil, &cursor, der.count)
        let consumed = cursor.map { $0 - start } ?? 0
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        guard consumed == der.count else {
            ECDSA_SIG_free(parsed)
            return nil
        }
        return parsed
    }

    /// `r || s`, each left-padded to `curve.coordinateLength` bytes; nil when either is longer.
    static func raw(r: OpaquePointer, s: OpaquePointer, curve: EllipticCurve) -> [UInt8]? {
        let half = curve.coordinateLength
        var output = [UInt8](repeating: 0, count: 2 * half)
        let written = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(half)) == Int32(half)
                && BN_bn2binpad(s, buffer.baseAddress! + half, Int32(half)) == Int32(half)
        }
        return written ? output : nil
    }
}
