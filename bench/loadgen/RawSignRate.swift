import CryptoCore
import Foundation

/// OpenSSL's raw ES256 signing rate on one core, measured like `RawVerifyRate` (one reused context, a digest
/// computed in advance): what the access token's signature costs at least, for the ceremony's CPU floor.
enum RawSignRate {
    static func measure(seconds: Double) -> Double {
        let key = try! PrivateKey.generateEC(.p256)
        let digest = DigestAlgorithm.sha256.hash(SystemRandom().bytes(count: 69))
        let signer = try! ReferenceSigner(key: key, algorithm: .es256)
        precondition(signer.sign(digest), "the reference signer failed")
        for _ in 0..<200 { _ = signer.sign(digest) }
        let start = DispatchTime.now().uptimeNanoseconds
        var calls = 0
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<100 { _ = signer.sign(digest) }
            calls += 100
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < seconds * 1e9
        return Double(calls) / (Double(elapsed) / 1e9)
    }
}
