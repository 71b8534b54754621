import CryptoCore

/// OpenSSL's raw ES256 signing rate on one core, measured like `RawVerifyRate` (one reused context, a digest
/// computed in advance): what the access token's signature costs at least, for the ceremony's CPU floor.
enum RawSignRate {
    static func measure(seconds: Double) -> Double {
        let key = try! PrivateKey.generateEC(.p256)
        let digest = DigestAlgorithm.sha256.hash(SystemRandom().bytes(count: 69))
        let signer = try! ReferenceSigner(key: key, algorithm: .es256)
        precondition(signer.sign(digest), "the reference signer failed")
        return CallRate.measure(seconds: seconds) { _ = signer.sign(digest) }
    }
}
