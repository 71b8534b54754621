import CryptoCore
import Foundation

/// Sealed sign-in challenges: a discoverable sign-in's challenge carries its own expiry and user-verification
/// requirement under an HMAC, so that issuing one stores nothing. Only its use is stored: the ceremony that ends with
/// it writes it as spent in its final transaction (`CeremonyStore.completeAuthentication`), a failed one writes it on
/// its own, and a spent challenge is refused until long after it expired.
///
/// Layout, 48 bytes: version (1), expiry in milliseconds since 1970, big-endian (8), user verification (1), random
/// (22), the first 16 bytes of HMAC-SHA256 over the 32 bytes before it. Stored challenges are 32 bytes, so the two
/// kinds never meet. Nothing in it is secret: the client was given the expiry and the requirement with the options.
struct ChallengeSeal: Sendable {
    static let length = 48
    static let randomLength = 22
    static let authenticatorLength = 16
    private static let version: UInt8 = 1
    private static let userVerifications = ["required", "preferred", "discouraged"]

    private let key: MessageAuthenticationKey

    /// Derives its key from the server secret, which every node of a deployment holds alike (`server_secrets`).
    init(serverSecret: [UInt8]) throws(CryptoError) {
        key = MessageAuthenticationKey(
            key: try KeyDerivation.hkdfSHA256(secret: serverSecret, info: Array("passkeyd sealed sign-in challenge v1".utf8), length: 32)
        )
    }

    /// A challenge for `userVerification` that expires at `expiresAt`, made unique by `random` (22 bytes).
    func seal(userVerification: String, expiresAt: Date, random: [UInt8]) -> [UInt8] {
        precondition(random.count == Self.randomLength, "a sealed challenge takes \(Self.randomLength) random bytes")
        guard let requirement = Self.userVerifications.firstIndex(of: userVerification) else {
            preconditionFailure("a sealed challenge's user verification is required, preferred or discouraged")
        }
        var body: [UInt8] = [Self.version]
        let milliseconds = UInt64(max(0, (expiresAt.timeIntervalSince1970 * 1000).rounded(.down)))
        for shift in stride(from: 56, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: milliseconds >> UInt64(shift))) }
        body.append(UInt8(requirement))
        body += random
        return body + authenticator(body)
    }

    /// The requirement and expiry of a challenge this key sealed; nil for any other bytes (another length, another
    /// version, a changed byte, another deployment's key).
    func open(_ challenge: [UInt8]) -> (userVerification: String, expiresAt: Date)? {
        guard challenge.count == Self.length, challenge[0] == Self.version else { return nil }
        let body = Array(challenge[..<(Self.length - Self.authenticatorLength)])
        guard ConstantTime.equals(authenticator(body), Array(challenge[(Self.length - Self.authenticatorLength)...])) else { return nil }
        let milliseconds = body[1...8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard Int(body[9]) < Self.userVerifications.count else { return nil }
        return (Self.userVerifications[Int(body[9])], Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    private func authenticator(_ body: [UInt8]) -> [UInt8] {
        Array(key.authenticate(body).prefix(Self.authenticatorLength))
    }
}
