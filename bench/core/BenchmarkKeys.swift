import CBOR
import CryptoCore
import WebAuthnCore

/// Key material for the benchmark fixtures: a private key and its COSE_Key encoding.
enum BenchmarkKeys {
    static func make(_ algorithm: COSEAlgorithm) throws -> (PrivateKey, [UInt8]) {
        switch algorithm {
        case .es256:
            let key = try PrivateKey.generateEC(.p256)
            let (x, y) = try key.publicKey().ecCoordinates()
            return (
                key,
                CBOREncoder.encode(
                    .map([
                        .init(key: CBORValue(1), value: CBORValue(2)), .init(key: CBORValue(3), value: CBORValue(-7)),
                        .init(key: CBORValue(-1), value: CBORValue(1)), .init(key: CBORValue(-2), value: .bytes(x)),
                        .init(key: CBORValue(-3), value: .bytes(y)),
                    ])
                )
            )
        case .eddsa:
            let key = try PrivateKey.generateEdwards(.ed25519)
            let raw = try key.publicKey().rawEdwardsKey()
            return (
                key,
                CBOREncoder.encode(
                    .map([
                        .init(key: CBORValue(1), value: CBORValue(1)), .init(key: CBORValue(3), value: CBORValue(-8)),
                        .init(key: CBORValue(-1), value: CBORValue(6)), .init(key: CBORValue(-2), value: .bytes(raw)),
                    ])
                )
            )
        default:
            let key = try PrivateKey.generateRSA(bits: 2048)
            let (n, e) = try key.publicKey().rsaComponents()
            return (
                key,
                CBOREncoder.encode(
                    .map([
                        .init(key: CBORValue(1), value: CBORValue(3)), .init(key: CBORValue(3), value: CBORValue(-257)),
                        .init(key: CBORValue(-1), value: .bytes(n)), .init(key: CBORValue(-2), value: .bytes(e)),
                    ])
                )
            )
        }
    }
}
