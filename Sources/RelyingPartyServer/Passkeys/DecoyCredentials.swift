import CryptoCore
import WebAuthnCore

/// The `allowCredentials` of a username that names no account: shaped like a real account's (how many passkeys,
/// credential-ID lengths, transports as browsers report them), and the same every time for the same name, derived
/// with HMAC-SHA256 under the server secret so that nobody without it can tell them from real ones or predict them.
/// The same secret makes the user handles of a ceremony that can never succeed.
struct DecoyCredentials: Sendable {
    /// What one passkey looks like in an account: the credential-ID length its authenticator makes and the transports
    /// the browser reported at registration (`getTransports()`, which lists them in lexicographic order).
    struct Profile: Sendable, Equatable {
        let weight: Int
        let length: Int
        let transports: [String]
    }

    /// Common authenticators, by share: platform passkeys synced through a phone's or a browser's password manager
    /// (16- and 20-byte IDs, hybrid + internal), Windows Hello (32, internal), password managers (16–32), security
    /// keys (48 or 64, usb or nfc + usb) and clients that report no transports.
    static let profiles: [Profile] = [
        Profile(weight: 36, length: 20, transports: ["hybrid", "internal"]),
        Profile(weight: 20, length: 16, transports: ["hybrid", "internal"]),
        Profile(weight: 10, length: 32, transports: ["internal"]),
        Profile(weight: 8, length: 32, transports: ["hybrid", "internal"]),
        Profile(weight: 6, length: 16, transports: ["internal"]),
        Profile(weight: 6, length: 64, transports: ["nfc", "usb"]),
        Profile(weight: 5, length: 48, transports: ["usb"]),
        Profile(weight: 4, length: 64, transports: ["usb"]),
        Profile(weight: 5, length: 32, transports: []),
    ]

    /// How many passkeys an account has, by share of accounts (1 to 4).
    static let countWeights = [58, 27, 10, 5]

    private let secret: MessageAuthenticationKey
    /// A P-256 key made at start-up whose private half is dropped at once: no assertion verifies with it.
    let key: COSEKey

    init(secret: [UInt8]) throws {
        self.secret = MessageAuthenticationKey(key: secret)
        let (x, y) = try PrivateKey.generateEC(.p256).publicKey().ecCoordinates()
        // COSE_Key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}, as an authenticator encodes it.
        key = try COSEKey(bytes: [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + x + [0x22, 0x58, 0x20] + y)
    }

    /// The decoys of `username` (already normalised): one to four descriptors.
    func descriptors(for username: String) -> [PublicKeyCredentialDescriptorJSON] {
        let seed = derive("decoy:" + username)
        let count = 1 + Self.pick(seed[0], seed[1], weights: Self.countWeights)
        return (0..<count).map { index in
            let material = derive(seed + [UInt8(index)])
            let profile = Self.profiles[Self.pick(material[0], material[1], weights: Self.profiles.map(\.weight))]
            let identifier = Array((derive(material + [0x01]) + derive(material + [0x02])).prefix(profile.length))
            return PublicKeyCredentialDescriptorJSON(id: identifier, transports: profile.transports)
        }
    }

    /// The user handle of nobody: what a ceremony for a username that names no account expects, and that no user has
    /// (user handles are random; this one is secret).
    var nobodysUserHandle: [UInt8] { derive("nobody's user handle") }

    /// The user handle given to a credential this server does not have, so that checking it fails as it would for a
    /// real passkey of someone else.
    var strangersUserHandle: [UInt8] { derive("a stranger's user handle") }

    private func derive(_ label: String) -> [UInt8] { derive(Array(label.utf8)) }

    private func derive(_ message: [UInt8]) -> [UInt8] {
        secret.authenticate(message)
    }

    /// An index into `weights` chosen by two bytes (0…65535 spread over the total weight).
    static func pick(_ high: UInt8, _ low: UInt8, weights: [Int]) -> Int {
        var point = (Int(high) << 8 | Int(low)) * weights.reduce(0, +) / 65_536
        for (index, weight) in weights.enumerated() {
            if point < weight { return index }
            point -= weight
        }
        return weights.count - 1
    }
}
