import CryptoCore
import TestSupport
import Testing

/// ECDSA malleability: `(r, s)` and its high-S twin `(r, n - s)` both verify; passkeyd's own ES256 signatures are
/// always the low one, `lowS` maps the twin back, and a high or out-of-range `s` is not low.
@Suite struct ECDSALowSTests {
    @Test func issuedSignaturesAreLowAndTheirTwinsVerifyButAreHigh() throws {
        let key = try JWSSigningKey(privateKey: try PrivateKey.generateEC(.p256), algorithm: .es256, keyID: "k")
        let message = Array("header.payload".utf8)
        for _ in 0..<200 {
            let raw = try key.sign(message)
            #expect(ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256))
            let twin = ECDSAHighSTwin.of(raw)
            // The twin is a real signature: OpenSSL verifies it, which is why it must be refused by form.
            let der = try #require(ECDSASignatureEncoding.derEncoded(raw: twin, curve: .p256))
            #expect(key.publicKey.verify(signature: der, message: message, algorithm: .ecdsaSHA256))
            #expect(!ECDSASignatureEncoding.isLowS(raw: twin, curve: .p256))
            #expect(ECDSASignatureEncoding.lowS(raw: twin, curve: .p256) == raw)
        }
    }

    /// Without normalisation about half of OpenSSL's signatures are high: the signer's step is not a no-op.
    @Test func openSSLAloneIssuesHighSignatures() throws {
        let key = try PrivateKey.generateEC(.p256)
        var high = 0
        for index in 0..<64 {
            let der = try key.sign(Array("m\(index)".utf8), algorithm: .ecdsaSHA256)
            let raw = try #require(ECDSASignatureEncoding.rawEncoded(der: der, curve: .p256))
            if !ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256) { high += 1 }
        }
        #expect(high > 0 && high < 64, "\(high) of 64 high")
    }

    /// The signer's one step from DER (`lowSRawEncoded`) gives what the two steps give, for low and high signatures
    /// alike, and nothing for DER that is malformed or whose `s` is out of range.
    @Test func theSignersOneStepIsTheTwoSteps() throws {
        let key = try PrivateKey.generateEC(.p256)
        var high = 0
        for index in 0..<64 {
            let der = try key.sign(Array("m\(index)".utf8), algorithm: .ecdsaSHA256)
            let raw = try #require(ECDSASignatureEncoding.rawEncoded(der: der, curve: .p256))
            if !ECDSASignatureEncoding.isLowS(raw: raw, curve: .p256) { high += 1 }
            #expect(ECDSASignatureEncoding.lowSRawEncoded(der: der, curve: .p256) == ECDSASignatureEncoding.lowS(raw: raw, curve: .p256))
            #expect(ECDSASignatureEncoding.lowSRawEncoded(der: der + [0], curve: .p256) == nil, "trailing bytes")
        }
        #expect(high > 0, "a high signature was among them")
        let r = [UInt8](repeating: 0, count: 31) + [1]
        let encode = { (s: [UInt8]) in try #require(ECDSASignatureEncoding.derEncoded(raw: r + s, curve: .p256)) }
        #expect(ECDSASignatureEncoding.lowSRawEncoded(der: try encode([UInt8](repeating: 0, count: 32)), curve: .p256) == nil, "s = 0")
        #expect(ECDSASignatureEncoding.lowSRawEncoded(der: try encode(ECDSAHighSTwin.p256Order), curve: .p256) == nil, "s = n")
        #expect(ECDSASignatureEncoding.lowSRawEncoded(der: try encode([UInt8](repeating: 0xFF, count: 32)), curve: .p256) == nil, "s > n")
        #expect(ECDSASignatureEncoding.lowSRawEncoded(der: [], curve: .p256) == nil)
        #expect(ECDSASignatureEncoding.lowSRawEncoded(der: [0x30, 0x00], curve: .p256) == nil)
    }

    @Test func theBoundaryAndMalformedValues() {
        let r = [UInt8](repeating: 0, count: 31) + [1]
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let zero = [UInt8](repeating: 0, count: 32)
        let order = ECDSAHighSTwin.p256Order
        #expect(ECDSASignatureEncoding.isLowS(raw: r + one, curve: .p256))
        #expect(!ECDSASignatureEncoding.isLowS(raw: ECDSAHighSTwin.of(r + one), curve: .p256), "n - 1 is high")
        #expect(ECDSASignatureEncoding.lowS(raw: r + zero, curve: .p256) == nil, "s = 0")
        #expect(ECDSASignatureEncoding.lowS(raw: r + order, curve: .p256) == nil, "s = n")
        #expect(ECDSASignatureEncoding.lowS(raw: r + [UInt8](repeating: 0xFF, count: 32), curve: .p256) == nil, "s > n")
        #expect(ECDSASignatureEncoding.lowS(raw: r + one + [0], curve: .p256) == nil, "wrong length")
        #expect(!ECDSASignatureEncoding.isLowS(raw: [], curve: .p256))
        // floor(n / 2) (n is odd) is the largest low s; n - floor(n / 2) the smallest high one.
        let low =
            [0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] as [UInt8]
            + [0xDE, 0x73, 0x7D, 0x56, 0xD3, 0x8B, 0xCF, 0x42, 0x79, 0xDC, 0xE5, 0x61, 0x7E, 0x31, 0x92, 0xA8]
        #expect(ECDSASignatureEncoding.isLowS(raw: r + low, curve: .p256), "s = floor(n / 2)")
        #expect(!ECDSASignatureEncoding.isLowS(raw: r + ECDSAHighSTwin.of(r + low).suffix(32), curve: .p256), "s = n - floor(n / 2)")
    }
}
