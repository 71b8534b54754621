import CryptoCore
import Foundation
import Observability
import Storage
import Synchronization

/// The signing keys of the deployment as this node holds them in memory, opened once each: which key signs now,
/// which keys the JWKS publishes, and the public key of a `kid` for verifying the server's own tokens. Loaded from
/// the store by the key worker (every `refreshInterval(for:)`, and at once when the store announces a change), so that a key made by another node is published and used
/// here too; requests never wait for the store, except when the set is older than `maximumAge` (the worker stalled).
public final class SigningKeyRing: Sendable {
    /// How often the worker reloads the keys (and runs the schedule) on a store of one node (SQLite): a rotation or
    /// revocation by `passkeyd keys` takes effect within it. One read of the keys' table a second.
    public static let refreshInterval: TimeInterval = 1
    /// How often on a shared store that announces changes (`SigningKeyChangeFeed`: PostgreSQL's `LISTEN`): a node
    /// reloads at each announcement, so this slow round only bounds a change missed some other way.
    public static let announcedRefreshInterval: TimeInterval = 30
    /// How often on a shared store that cannot announce them (behind a transaction-mode pooler without a listening
    /// connection): a change reaches every node within it, at one read per node every 5 s (ten nodes: 2 a second).
    public static let sharedRefreshInterval: TimeInterval = 5

    /// The interval of the worker for a store that is `feed` (nil: a store of one node).
    public static func refreshInterval(for feed: (any SigningKeyChangeFeed)?) -> TimeInterval {
        guard let feed else { return refreshInterval }
        return feed.canWatchSigningKeys ? announcedRefreshInterval : sharedRefreshInterval
    }
    /// A set older than this is reloaded by the request that finds it (a stalled worker must not let a node sign with a
    /// key the others retired).
    package static let maximumAge: TimeInterval = 120

    public struct Key: Sendable {
        public let record: SigningKeyRecord
        let signing: JWSSigningKey
        public let jwk: PublicKeyJWK
    }

    private struct Loaded: Sendable {
        var keys: [Key] = []
        var loadedAt: Date?
    }

    private let loaded = Mutex(Loaded())
    public let schedule: SigningKeySchedule
    private let log: Logger

    public init(schedule: SigningKeySchedule, log: Logger) {
        self.schedule = schedule
        self.log = log
    }

    /// Replaces the set with `records`, opening the keys it does not hold yet. A record that does not open (another
    /// server secret, an altered row) is left out and logged by its `kid`.
    public func load(_ records: [SigningKeyRecord], at now: Date) {
        let held = loaded.withLock { loaded in Dictionary(loaded.keys.map { ($0.record.id, $0) }, uniquingKeysWith: { first, _ in first }) }
        var keys: [Key] = []
        for record in records {
            if let key = held[record.id] {
                keys.append(Key(record: record, signing: key.signing, jwk: key.jwk))
                continue
            }
            do {
                keys.append(Key(record: record, signing: try schedule.vault.open(record), jwk: try SigningKeyVault.jwk(of: record)))
            } catch {
                log.error("signing key \(record.id) cannot be opened: \(error.code)", event: "signingKeys")
            }
        }
        loaded.withLock { $0 = Loaded(keys: keys, loadedAt: now) }
    }

    /// Whether the set must be loaded before it is used (never loaded, or older than `maximumAge`).
    public func isStale(at now: Date) -> Bool {
        loaded.withLock { loaded in loaded.loadedAt.map { now.timeIntervalSince($0) >= Self.maximumAge } ?? true }
    }

    /// The key that signs at `now`: of the keys whose `activatesAt` has come and whose `retiresAt` has not, the one
    /// that activated last.
    public func signingKey(at now: Date) -> JWSSigningKey? {
        activeKey(at: now)?.signing
    }

    /// The key that signs at `now` with its record (its `createdAt` for the signing-key age metric).
    public func activeKey(at now: Date) -> Key? {
        loaded.withLock { loaded in
            loaded.keys.last { $0.record.activatesAt <= now && ($0.record.retiresAt.map { now < $0 } ?? true) }
        }
    }

    /// The keys the JWKS publishes at `now`: every key until it is no longer published (pending keys included).
    public func publishedKeys(at now: Date) -> [Key] {
        loaded.withLock { loaded in loaded.keys.filter { key in schedule.publishedUntil(key.record).map { now < $0 } ?? true } }
    }

    /// The published key with this `kid`, for verifying a token the deployment signed.
    public func publishedKey(id: String, at now: Date) -> Key? {
        publishedKeys(at: now).first { $0.record.id == id }
    }
}
