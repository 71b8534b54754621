import COpenSSL

/// A curve's order `n` and `n / 2` as big-endian bytes of the curve's coordinate length and as OpenSSL BIGNUMs, read
/// from OpenSSL (`EC_GROUP_get0_order`, `BN_rshift1`) once per curve: building an `EC_GROUP` for every signature cost
/// more than the ES256 signature's other work together (`make bench-core`, `token-sign-es256` 0.59 of OpenSSL's raw
/// rate with it).
///
/// `@unchecked Sendable`: the BIGNUMs are made once, never changed and never freed (process-lifetime constants, like
/// OpenSSL's own curve tables); OpenSSL reads a `const BIGNUM` from any number of threads at once.
struct CurveOrder: @unchecked Sendable {
    let order: [UInt8]
    let half: [UInt8]
    /// `n` and `n / 2` as BIGNUMs, only ever read (`BN_cmp`, and `BN_sub`'s minuend).
    let number: OpaquePointer
    let halfNumber: OpaquePointer

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
        guard let order = EC_GROUP_get0_order(group), let orderCopy = BN_dup(order), let halfOrder = BN_new() else { return nil }
        guard BN_rshift1(halfOrder, order) == 1 else {
            BN_free(orderCopy)
            BN_free(halfOrder)
            return nil
        }
        var orderBytes = [UInt8](repeating: 0, count: Int(length))
        var halfBytes = [UInt8](repeating: 0, count: Int(length))
        guard BN_bn2binpad(order, &orderBytes, length) == length, BN_bn2binpad(halfOrder, &halfBytes, length) == length
        else {
            BN_free(orderCopy)
            BN_free(halfOrder)
            return nil
        }
        (self.order, self.half, number, halfNumber) = (orderBytes, halfBytes, orderCopy, halfOrder)
    }
}
