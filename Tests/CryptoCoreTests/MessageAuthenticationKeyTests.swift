import CryptoCore
import Dispatch
import Synchronization
import Testing

/// HMAC against RFC 4231's test cases, on a key's first context and on the contexts it reuses.
struct MessageAuthenticationKeyTests {
    /// RFC 4231 test cases 1, 2 and 6 (a 131-byte key, longer than the block, is hashed first): key, message, HMAC-SHA256.
    static let cases: [([UInt8], String, String)] = [
        ([UInt8](repeating: 0x0B, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            [UInt8](repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ]

    @Test func rfc4231TestCasesOnNewAndReusedContexts() {
        for (key, message, expected) in Self.cases {
            let authenticator = MessageAuthenticationKey(key: key)
            for round in 0..<3 {
                #expect(Hex.encode(authenticator.authenticate(Array(message.utf8))) == expected, "round \(round)")
                #expect(authenticator.authenticate([]) != authenticator.authenticate([0]), "a reused context starts again")
            }
        }
        // RFC 4231 test case 2 with SHA-512.
        #expect(
            Hex.encode(MessageAuthenticationKey(.sha512, key: Array("Jefe".utf8)).authenticate(Array("what do ya want for nothing?".utf8)))
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        )
        #expect(MessageAuthenticationKey(key: [1]).authenticate([2]) != MessageAuthenticationKey(key: [1]).authenticate([3]))
        // An empty key and an empty message (RFC 2104 allows both; Python's hmac gives this value).
        #expect(Hex.encode(MessageAuthenticationKey(key: []).authenticate([])) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    /// Threads sharing one key get right answers: each call has a context of its own.
    @Test func concurrentCallsEachGetTheirOwnContext() {
        let (key, message, expected) = Self.cases[1]
        let authenticator = MessageAuthenticationKey(key: key)
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<500 where Hex.encode(authenticator.authenticate(Array(message.utf8))) != expected {
                wrong.add(1, ordering: .relaxed)
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
