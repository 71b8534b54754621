import AccessTokens
import CryptoCore
import Testing

/// A backend's key is found by its hash alone (moved from TokenConfigurationTests with the module).
@Suite struct BackendKeyTests {
    @Test func aBackendKeyMatchesByItsHashOnly() {
        let backends = [
            BackendKey(name: "a", keySHA256: Hex.encode(DigestAlgorithm.sha256.hash(Array("first".utf8)))),
            BackendKey(name: "b", keySHA256: Hex.encode(DigestAlgorithm.sha256.hash(Array("second".utf8)))),
        ]
        #expect(BackendKey.matching("second", in: backends)?.name == "b")
        #expect(BackendKey.matching("first", in: backends)?.name == "a")
        #expect(BackendKey.matching("third", in: backends) == nil)
        #expect(BackendKey.matching(backends[0].keySHA256, in: backends) == nil, "the hash itself is not the key")
    }
}
