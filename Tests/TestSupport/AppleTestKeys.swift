import CryptoCore
import Foundation

/// The keys of the Apple stand-in, generated once per test process (RSA generation is slow): the signing key Apple
/// publishes, a rotated key published later, a key Apple never publishes, and the team's `.p8` key.
public enum AppleTestKeys {
    public static let primaryKeyID = "STANDIN001"
    public static let rotatedKeyID = "STANDIN002"

    public struct Keys: @unchecked Sendable {
        public let primary: PrivateKey
        public let rotated: PrivateKey
        public let outsider: PrivateKey
        public let p8: PrivateKey
    }

    public static let shared: Keys = {
        do {
            return Keys(
                primary: try .generateRSA(bits: 2048),
                rotated: try .generateRSA(bits: 2048),
                outsider: try .generateRSA(bits: 2048),
                p8: try .generateEC(.p256)
            )
        } catch {
            fatalError("test keys could not be generated: \(error)")
        }
    }()

    public static func key(id: String) -> PrivateKey { id == rotatedKeyID ? shared.rotated : shared.primary }

    /// A JWKS document publishing the keys named.
    public static func jwks(_ keyIDs: [String]) throws -> [UInt8] {
        let members: [[String: Any]] = try keyIDs.map { id in
            let components = try key(id: id).publicKey().rsaComponents()
            return [
                "kty": "RSA", "kid": id, "use": "sig", "alg": "RS256",
                "n": Base64URL.encode(components.modulus), "e": Base64URL.encode(components.exponent),
            ]
        }
        return Array(try JSONSerialization.data(withJSONObject: ["keys": members], options: [.sortedKeys]))
    }
}
