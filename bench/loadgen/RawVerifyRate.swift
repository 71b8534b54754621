import CryptoCore
import Foundation

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
        for _ in 0..<200 { _ = verifier.verify(signature: signature, digest: digest) }
        let start = DispatchTime.now().uptimeNanoseconds
        var calls = 0
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<100 { _ = verifier.verify(signature: signature, digest: digest) }
            calls += 100
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < seconds * 1e9
        return Double(calls) / (Double(elapsed) / 1e9)
    }
}
