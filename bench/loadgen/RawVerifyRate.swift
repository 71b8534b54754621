import CryptoCore

/// OpenSSL's raw ES256 verify rate on one core, measured the way `openssl speed` does (one reused context,
/// a precomputed digest): the reference the end-to-end figure is divided by.
enum RawVerifyRate {
    static func measure(seconds: Double) -> Double {
        let key = try! PrivateKey.generateEC(.p256)
        let message = SystemRandom().bytes(count: 69)
        let signature = try! key.sign(message, algorithm: .ecdsaSHA256)
        let digest = DigestAlgorithm.sha256.hash(message)
        let verifier = try! ReferenceVerifier(key: try! key.publicKey(), algorithm: .ecdsaSHA256)
        precondition(verifier.verify(signature: signature, digest: digest), "the reference signature does not verify")
        return CallRate.measure(seconds: seconds) { _ = verifier.verify(signature: signature, digest: digest) }
    }
}
