import AccessTokens
import CryptoCore
import Foundation
import Storage

/// One access token minted as the server mints it (claims of a passkey session with an email, the JWS header, the
/// signature, base64url), next to OpenSSL signing the same key on its own (`ReferenceSigner`: a reused context and a
/// digest computed in advance; for EdDSA, one `EVP_DigestSign` of a message of the same length).
final class TokenFixture {
    let key: JWSSigningKey
    let minter: AccessTokenMinter
    let subject: AccessTokenSubject
    let reference: ReferenceSigner
    let referenceInput: [UInt8]
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    init(algorithm: JWSAlgorithm) throws {
        let privateKey = try algorithm.generateKey()
        key = try JWSSigningKey(privateKey: privateKey, algorithm: algorithm, keyID: "bench-key-0001")
        minter = AccessTokenMinter(
            issuer: "https://example.com",
            audiences: ["example.com"],
            clientID: "example.com",
            lifetime: 900,
            random: SystemRandom()
        )
        subject = AccessTokenSubject(
            userID: SystemRandom().bytes(count: 32),
            username: "ada.lovelace",
            email: "ada@example.com",
            emailVerified: true,
            sessionID: SystemRandom().bytes(count: 16),
            authenticatedAt: now,
            sessionExpiresAt: now.addingTimeInterval(604_800),
            method: .passkey,
            userVerified: true
        )
        reference = try ReferenceSigner(key: privateKey, algorithm: algorithm)
        // The same bytes passkeyd signs: the signing input of a token like the ones minted here.
        let signingInput = Array(try minter.mint(for: subject, with: key, now: now).token.split(separator: ".").prefix(2).joined(separator: ".").utf8)
        referenceInput = algorithm.signatureAlgorithm.digest?.hash(signingInput) ?? signingInput
    }

    func rawSign() -> Bool { reference.sign(referenceInput) }

    func mint() -> Bool { (try? minter.mint(for: subject, with: key, now: now)) != nil }

    func mintVerifies() -> Bool {
        guard let token = try? minter.mint(for: subject, with: key, now: now).token, let jws = try? CompactJWS(token) else { return false }
        return jws.verifySignature(with: key.publicKey, allowedAlgorithms: [key.algorithm.rawValue])
    }
}
