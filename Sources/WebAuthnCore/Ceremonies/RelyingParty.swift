import CryptoCore

/// The relying party's fixed settings: identity, accepted origins, embedding policy and the injected clock.
/// Per-ceremony values (challenge, user verification, trust anchors) travel in the expectations types.
public struct RelyingParty: Sendable {
    /// The RP ID (a registrable domain suffix of the origins, e.g. "example.com").
    public let id: String
    /// Human-palatable name shown by authenticators.
    public var name: String
    /// Origins that may run ceremonies, compared exactly (e.g. "https://example.com", "android:apk-key-hash:…").
    public var origins: [String]
    /// Further RP IDs whose rpIdHash is accepted (for migrations between domains).
    public let additionalIDs: [String]
    /// Accept client data with `crossOrigin: true` (the RP expects to be embedded in a cross-origin iframe).
    public var allowsCrossOriginEmbedding: Bool
    /// Top-level origins the RP may be embedded in (`topOrigin`); only consulted when embedding is allowed.
    public var topOrigins: [String]
    /// Algorithms offered in `pubKeyCredParams`, most preferred first.
    public var algorithms: [COSEAlgorithm]
    public var time: any TimeSource
    /// SHA-256 of every accepted RP ID, the configured one first (computed once).
    let acceptedIDHashes: [[UInt8]]

    public init(
        id: String,
        name: String,
        origins: [String],
        additionalIDs: [String] = [],
        allowsCrossOriginEmbedding: Bool = false,
        topOrigins: [String] = [],
        algorithms: [COSEAlgorithm] = COSEAlgorithm.defaultOffered,
        time: any TimeSource = SystemTime()
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.additionalIDs = additionalIDs
        self.allowsCrossOriginEmbedding = allowsCrossOriginEmbedding
        self.topOrigins = topOrigins
        self.algorithms = algorithms
        self.time = time
        acceptedIDHashes = ([id] + additionalIDs).map { DigestAlgorithm.sha256.hash(Array($0.utf8)) }
    }
}
