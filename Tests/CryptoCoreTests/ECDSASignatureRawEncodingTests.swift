import CryptoCore
import Testing

/// DER ECDSA signatures convert to the JOSE `r || s` form and back unchanged; malformed DER is refused.
@Suite struct ECDSASignatureRawEncodingTests {
    @Test(arguments: [(EllipticCurve.p256, SignatureAlgorithm.ecdsaSHA256), (.p384, .ecdsaSHA384), (.p521, .ecdsaSHA512)])
    func derRoundTripsThroughRaw(curve: EllipticCurve, algorithm: SignatureAlgorithm) throws {
        let key = try PrivateKey.generateEC(curve)
        for index in 0..<8 {
            let der = try key.sign(Array("message \(index)".utf8), algorithm: algorithm)
            let raw = try #require(ECDSASignatureEncoding.rawEncoded(der: der, curve: curve))
            #expect(raw.count == 2 * curve.coordinateLength)
            #expect(ECDSASignatureEncoding.derEncoded(raw: raw, curve: curve) == der)
        }
    }

    @Test func smallIntegersArePadded() {
        let der: [UInt8] = [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80]
        #expect(
            ECDSASignatureEncoding.rawEncoded(der: der, curve: .p256) == Array(repeating: 0, count: 31) + [1] + Array(repeating: 0, count: 31) + [
                0x80
            ]
        )
    }

    @Test func malformedDERIsRefused() throws {
        let der = try PrivateKey.generateEC(.p384).sign(Array("m".utf8), algorithm: .ecdsaSHA384)
        #expect(ECDSASignatureEncoding.rawEncoded(der: der, curve: .p256) == nil)
        #expect(ECDSASignatureEncoding.rawEncoded(der: der + [0], curve: .p384) == nil)
        #expect(ECDSASignatureEncoding.rawEncoded(der: Array(der.dropLast()), curve: .p384) == nil)
        #expect(ECDSASignatureEncoding.rawEncoded(der: [], curve: .p256) == nil)
        #expect(ECDSASignatureEncoding.rawEncoded(der: [0x30, 0x00], curve: .p256) == nil)
    }
}
