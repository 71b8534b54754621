import COpenSSL

/// A curve's order `n` and `n / 2` as big-endian bytes of the curve's coordinate length, read from OpenSSL
/// (`EC_GROUP_get0_order`, `BN_rshift1`) once per curve: building an `EC_GROUP` for every signature cost more than the
/// ES256 signature's other work together (`make bench-core`, `token-sign-es256` 0.59 of OpenSSL's raw rate with it).
struct CurveOrder: Sendable {
    let order: [UInt8]
    let half: [UInt8]

    /// Immutable constants of OpenSSL's curves, computed on first use; nil only if OpenSSL lacks the curve.
    private static let p256 = CurveOrder(.p256)
    private static let p384 = CurveOrder(.p384)
    private static let p521 = CurveOrder(.p521)

    static func of(_ curve: EllipticCurve) -> CurveOrder? {
        switch curve {
        case .p256: p256
        case .p384: p384
        case .p521: p521
        }
    }

    private init?(_ curve: EllipticCurve) {
        let length = Int32(curve.coordinateLength)
        guard let group = EC_GROUP_new_by_curve_name(OBJ_sn2nid(curve.openSSLName)) else { return nil }
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group), let halfOrder = BN_new() else { return nil }
        defer { BN_free(halfOrder) }
        guard BN_rshift1(halfOrder, order) == 1 else { return nil }
        var orderBytes = [UInt8](repeating: 0, count: Int(length))
        var halfBytes = [UInt8](repeating: 0, count: Int(length))
        guard BN_bn2binpad(order, &orderBytes, length) == length, BN_bn2binpad(halfOrder, &halfBytes, length) == length
        else { return nil }
        (self.order, self.half) = (orderBytes, halfBytes)
    }
}
