import CryptoCore
import Foundation
import Storage

/// Seals signing keys for the store and opens them again: AES-256-GCM under a key derived from the server secret
/// with HKDF-SHA256 and its own label (so that it is no other purpose's key), the key ID as associated data (a sealed
/// key moved to another record does not open). Every node holds the same server secret, so every node opens every key.
public struct SigningKeyVault: Sendable {
    /// HKDF `info` of the sealing key.
    static let derivationLabel = Array("passkeyd signing keys v1".utf8)
    /// Random bytes of a key ID (16 base64url characters).
    package static let keyIDLength = 12

    private let sealing: AuthenticatedEncryption
    private let random: any RandomSource

    /// - Throws: `crypto.invalidKey` when the server secret is empty.
    public init(serverSecret: [UInt8], random: any RandomSource = SystemRandom()) throws(CryptoError) {
        sealing = try AuthenticatedEncryption(
            key: try KeyDerivation.hkdfSHA256(secret: serverSecret, info: Self.derivationLabel, length: AuthenticatedEncryption.keyLength),
            random: random
        )
        self.random = random
    }

    /// A new key for `algorithm`, published from `now` and signing from `activatesAt`.
    public func newKey(_ algorithm: JWSAlgorithm, now: Date, activatesAt: Date) throws(CryptoError) -> SigningKeyRecord {
        // Never with a leading '-': an operator types the kid as an argument (`passkeyd keys revoke KID`), where "--…"
        // reads as an option (1 key in 4,096 could not be revoked without `--` before it).
        var keyID = Base64URL.encode(random.bytes(count: Self.keyIDLength))
        while keyID.hasPrefix("-") { keyID = Base64URL.encode(random.bytes(count: Self.keyIDLength)) }
        let privateKey = try algorithm.generateKey()
        let signing = try JWSSigningKey(privateKey: privateKey, algorithm: algorithm, keyID: keyID)
        let jwk: [UInt8]
        do {
            jwk = Array(try JSONEncoder().encode(try signing.jwk()))
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(.internalFailure, "the JWK could not be encoded")
        }
        return SigningKeyRecord(
            id: keyID,
            algorithm: algorithm.rawValue,
            publicJWK: jwk,
            sealedPrivateKey: try sealing.seal(Array(try privateKey.pem().utf8), associatedData: Array(keyID.utf8)),
            createdAt: now,
            activatesAt: activatesAt
        )
    }

    /// The signing key of a stored record, checked against its public JWK.
    /// - Throws: `crypto.decryptionFailed` under another server secret or for an altered record; `crypto.invalidKey`
    ///   when the parts do not belong together.
    public func open(_ record: SigningKeyRecord) throws(CryptoError) -> JWSSigningKey {
        guard let algorithm = JWSAlgorithm(rawValue: record.algorithm) else {
            throw CryptoError(.unsupported, "unknown algorithm \(record.algorithm)")
        }
        let pem = try sealing.open(record.sealedPrivateKey, associatedData: Array(record.id.utf8))
        let key = try JWSSigningKey(privateKey: try PrivateKey.fromPEM(String(decoding: pem, as: UTF8.self)), algorithm: algorithm, keyID: record.id)
        guard try Self.jwk(of: record).publicKey().matches(key.publicKey) else {
            throw CryptoError(.invalidKey, "the sealed key does not match the published one")
        }
        return key
    }

    /// The record's public JWK.
    public static func jwk(of record: SigningKeyRecord) throws(CryptoError) -> PublicKeyJWK {
        guard let jwk = try? JSONDecoder().decode(PublicKeyJWK.self, from: Data(record.publicJWK)), jwk.kid == record.id, jwk.alg == record.algorithm
        else { throw CryptoError(.invalidKey, "the stored JWK is unreadable or names another key") }
        return jwk
    }
}
