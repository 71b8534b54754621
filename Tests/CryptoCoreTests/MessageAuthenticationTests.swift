import CryptoCore
import Testing

/// HMAC-SHA256 against RFC 4231's test cases.
struct MessageAuthenticationTests {
    @Test func rfc4231TestCases() {
        // Test case 1: a 20-byte key of 0x0b, "Hi There".
        #expect(
            Hex.encode(MessageAuthentication.hmac(key: [UInt8](repeating: 0x0B, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        )
        // Test case 2: key "Jefe".
        #expect(
            Hex.encode(MessageAuthentication.hmac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
        // Test case 6: a 131-byte key, longer than the block, is hashed first.
        #expect(
            Hex.encode(
                MessageAuthentication.hmac(
                    key: [UInt8](repeating: 0xAA, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
                )
            ) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        )
        #expect(MessageAuthentication.hmac(key: [1], message: [2]) != MessageAuthentication.hmac(key: [1], message: [3]))
    }
}
