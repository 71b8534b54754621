import Foundation

/// A key that signs access tokens (and later the OpenID provider's ID tokens), shared by every node of a deployment.
/// Only its public JWK is in the clear; the private key is sealed by the server (AES-256-GCM under a key derived
/// from the server secret). A key is published in the JWKS from `createdAt` to `expiresAt`, and signs from
/// `activatesAt` until `retiresAt`.
public struct SigningKeyRecord: Sendable, Equatable {
    /// The longest `id` a store accepts.
    public static let maximumIDLength = 64
    /// The longest `publicJWK` or `sealedPrivateKey` a store accepts (an RSA-2048 PEM, sealed, is under 2 KB).
    public static let maximumKeyLength = 8192

    /// The key ID (`kid`): base64url, unique across the deployment's keys.
    public var id: String
    /// The JWS algorithm (`ES256`, `EdDSA`, `RS256`).
    public var algorithm: String
    /// The public key as JWK JSON, as the JWKS publishes it.
    public var publicJWK: [UInt8]
    /// The private key (PKCS #8 PEM), sealed by the server; the store never sees it in the clear.
    public var sealedPrivateKey: [UInt8]
    /// When the key was created (and first published).
    public var createdAt: Date
    /// From when it signs: at least one token lifetime after `createdAt`, so that every verifier has seen it first.
    public var activatesAt: Date
    /// From when it no longer signs; nil while it is the newest key.
    public var retiresAt: Date?
    /// From when it is no longer published: after the last token it signed has expired; nil while it signs.
    public var expiresAt: Date?

    public init(
        id: String,
        algorithm: String,
        publicJWK: [UInt8],
        sealedPrivateKey: [UInt8],
        createdAt: Date,
        activatesAt: Date,
        retiresAt: Date? = nil,
        expiresAt: Date? = nil
    ) {
        self.id = id
        self.algorithm = algorithm
        self.publicJWK = publicJWK
        self.sealedPrivateKey = sealedPrivateKey
        self.createdAt = createdAt
        self.activatesAt = activatesAt
        self.retiresAt = retiresAt
        self.expiresAt = expiresAt
    }

    /// The order of the contract's key lists: by `activatesAt`, then by `id`.
    public static func precedes(_ left: SigningKeyRecord, _ right: SigningKeyRecord) -> Bool {
        if left.activatesAt != right.activatesAt { return left.activatesAt < right.activatesAt }
        return Array(left.id.utf8).lexicographicallyPrecedes(Array(right.id.utf8))
    }

    /// Refuses a record no store keeps: an empty or long ID, an empty or long key. For drivers to check before they write.
    public func validate() throws(StorageError) {
        guard !id.isEmpty, id.utf8.count <= Self.maximumIDLength, !algorithm.isEmpty, algorithm.utf8.count <= 16 else {
            throw StorageError(.invalidRecord, "a signing key's ID is 1 to \(Self.maximumIDLength) bytes and its algorithm 1 to 16")
        }
        guard (1...Self.maximumKeyLength).contains(publicJWK.count), (1...Self.maximumKeyLength).contains(sealedPrivateKey.count) else {
            throw StorageError(.invalidRecord, "a signing key's JWK and sealed key are 1 to \(Self.maximumKeyLength) bytes")
        }
    }
}
