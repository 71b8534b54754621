import CryptoCore
import Testing

/// JOSE `r || s` ECDSA signatures converted to DER verify like the DER signatures OpenSSL makes.
@Suite struct ECDSASignatureEncodingTests {
    /// The raw `r || s` form of a DER ECDSA-Sig-Value, each half left-padded to the curve's length.
    private func raw(_ der: [UInt8], curve: EllipticCurve) throws -> [UInt8] {
        let integers = try ASN1Element.single(der).children()
        return integers.flatMap { integer in
            let magnitude = Array(integer.contents.drop { $0 == 0 })
            return Array(repeating: 0, count: curve.coordinateLength - magnitude.count) + magnitude
        }
    }

    @Test(arguments: [(EllipticCurve.p256, SignatureAlgorithm.ecdsaSHA256), (.p384, .ecdsaSHA384), (.p521, .ecdsaSHA512)])
    func rawSignaturesVerifyAfterConversion(curve: EllipticCurve, algorithm: SignatureAlgorithm) throws {
        let key = try PrivateKey.generateEC(curve)
        let message = Array("header.payload".utf8)
        let der = try key.sign(message, algorithm: algorithm)
        let converted = try #require(ECDSASignatureEncoding.derEncoded(raw: try raw(der, curve: curve), curve: curve))
        #expect(converted == der)
        #expect(try key.publicKey().verify(signature: converted, message: message, algorithm: algorithm))
    }

    @Test func wrongLengthsAreRefused() {
        #expect(ECDSASignatureEncoding.derEncoded(raw: Array(repeating: 1, count: 63), curve: .p256) == nil)
        #expect(ECDSASignatureEncoding.derEncoded(raw: Array(repeating: 1, count: 64), curve: .p384) == nil)
        #expect(ECDSASignatureEncoding.derEncoded(raw: [], curve: .p256) == nil)
    }

    @Test func smallIntegersAreMinimallyEncoded() {
        let raw: [UInt8] = Array(repeating: 0, count: 31) + [1] + Array(repeating: 0, count: 31) + [0x80]
        #expect(ECDSASignatureEncoding.derEncoded(raw: raw, curve: .p256) == [0x30, 0x07, 0x02, 0x01, 0x01, 0x02, 0x02, 0x00, 0x80])
    }
}
