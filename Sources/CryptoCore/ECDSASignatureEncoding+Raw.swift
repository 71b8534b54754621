import COpenSSL

extension ECDSASignatureEncoding {
    /// The fixed-length JOSE `r || s` form (RFC 7518 §3.4) of a DER `ECDSA-Sig-Value`, each half left-padded to
    /// `curve.coordinateLength` bytes; nil when the DER is malformed, has trailing bytes, or an integer is too long.
    public static func rawEncoded(der: [UInt8], curve: EllipticCurve) -> [UInt8]? {
        let half = curve.coordinateLength
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = start
            let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            if let cursor { consumed = cursor - start }
            return signature
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(parsed) }
        guard consumed == der.count else { return nil }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        guard let r, let s else { return nil }
        var output = [UInt8](repeating: 0, count: 2 * half)
        let written = output.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(half)) == Int32(half)
                && BN_bn2binpad(s, buffer.baseAddress! + half, Int32(half)) == Int32(half)
        }
        return written ? output : nil
    }
}
