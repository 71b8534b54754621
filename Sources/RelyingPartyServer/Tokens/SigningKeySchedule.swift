import CryptoCore
import Foundation
import Storage

/// When signing keys are made, replaced and forgotten, written once for the server's worker and for
/// `passkeyd keys rotate`, on top of the store's transactions (so that nodes sharing a database agree: one node's
/// transaction makes a key, the others read it).
///
/// - A new key is published at once and signs one token lifetime later (`prePublication`), so that every verifier
///   that fetched the JWKS since has it before the first token it signs. The very first key signs at once: no JWKS
///   was served without it.
/// - The key it replaces stops signing when the new one starts, and stays published until the last token it signed
///   has expired, plus `clockLeeway` (`expiresAt`); then it is deleted.
/// - A key is replaced every `rotationDays`, or as soon as `tokens.algorithm` names another algorithm.
public struct SigningKeySchedule: Sendable {
    /// Verifiers' clocks may run this much behind: a retired key stays published this long after its last token expired.
    public static let clockLeeway: TimeInterval = 60

    let settings: TokenSettings
    let vault: SigningKeyVault

    public init(settings: TokenSettings, vault: SigningKeyVault) {
        self.settings = settings
        self.vault = vault
    }

    var lifetime: TimeInterval { TimeInterval(settings.lifetimeSeconds) }
    /// How long a new key is published before it signs: one token lifetime.
    var prePublication: TimeInterval { lifetime }

    /// What a rotation changed.
    public struct Change: Sendable, Equatable {
        public var created: String?
        public var retired: [String] = []
        public var deleted: [String] = []
    }

    /// Brings the store's keys up to date at `now`: deletes keys past `expiresAt`, makes the first key, or replaces the
    /// newest when it is due. A new key is generated before the transaction (which may run more than once) and stored
    /// only when the transaction still finds it needed.
    /// - Returns: what changed, and every key afterwards.
    public func update(store: any TransactionalStore, now: Date) throws -> (change: Change, keys: [SigningKeyRecord]) {
        let current = try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
        guard needsChange(current, now: now) else { return (Change(), current) }
        let proposed = try vault.newKey(settings.algorithm, now: now, activatesAt: now)
        return try store.transaction { transaction throws(StorageError) in
            var change = Change()
            var keys = try transaction.signingKeys()
            for key in keys where key.expiresAt.map({ $0 <= now }) == true {
                _ = try transaction.deleteSigningKey(id: key.id)
                change.deleted.append(key.id)
            }
            keys.removeAll { change.deleted.contains($0.id) }
            guard needsNewKey(keys, now: now) else { return (change, keys) }
            var key = proposed
            // The first key (or one after every key was retired) signs at once; a replacement after its pre-publication.
            key.activatesAt = keys.contains { $0.retiresAt == nil } ? now.addingTimeInterval(prePublication) : now
            try replace(keys, with: key, in: transaction, change: &change)
            return (change, try transaction.signingKeys())
        }
    }

    /// Whether `update` has anything to do: a key to delete or a key to make.
    func needsChange(_ keys: [SigningKeyRecord], now: Date) -> Bool {
        keys.contains { $0.expiresAt.map { $0 <= now } == true } || needsNewKey(keys, now: now)
    }

    /// No key is signing or pending, or the newest one signs and is due: older than `rotationDays`, or of another
    /// algorithm than the configured one. A pending key is never replaced by the schedule.
    func needsNewKey(_ keys: [SigningKeyRecord], now: Date) -> Bool {
        guard let newest = keys.last(where: { $0.retiresAt == nil }) else { return true }
        guard newest.activatesAt <= now else { return false }
        let due = newest.activatesAt.addingTimeInterval(TimeInterval(settings.rotationDays) * 86_400) <= now
        return due || newest.algorithm != settings.algorithm.rawValue
    }

    /// Every key, for `passkeyd keys list`.
    public func current(store: any TransactionalStore) throws(StorageError) -> [SigningKeyRecord] {
        try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
    }

    /// `passkeyd keys rotate`: a new key now, signing after its pre-publication or, `immediately`, at once (verifiers
    /// that cached the JWKS then fetch it again for the unknown `kid`). Every key still signing or pending stops when
    /// it starts and stays published until its tokens have expired.
    public func rotate(store: any TransactionalStore, now: Date, immediately: Bool) throws -> (change: Change, keys: [SigningKeyRecord]) {
        var proposed = try vault.newKey(settings.algorithm, now: now, activatesAt: now)
        proposed.activatesAt = immediately ? now : now.addingTimeInterval(prePublication)
        return try store.transaction { [proposed] transaction throws(StorageError) in
            var change = Change()
            try replace(try transaction.signingKeys(), with: proposed, in: transaction, change: &change)
            return (change, try transaction.signingKeys())
        }
    }

    /// Stores `key` and retires at its activation every key that would still sign then.
    private func replace(
        _ keys: [SigningKeyRecord],
        with key: SigningKeyRecord,
        in transaction: any StoreTransaction,
        change: inout Change
    ) throws(StorageError) {
        for old in keys where old.retiresAt.map({ $0 > key.activatesAt }) ?? true {
            let retiresAt = key.activatesAt
            _ = try transaction.retireSigningKey(
                id: old.id,
                retiresAt: retiresAt,
                expiresAt: retiresAt.addingTimeInterval(lifetime + Self.clockLeeway)
            )
            change.retired.append(old.id)
        }
        try transaction.insertSigningKey(key)
        change.created = key.id
    }

    /// Until when a key must stay published: its `expiresAt`, and never before the last token it may have signed under
    /// the current lifetime has expired (the lifetime may have grown since it was retired); nil while it signs.
    func publishedUntil(_ key: SigningKeyRecord) -> Date? {
        guard let retiresAt = key.retiresAt else { return nil }
        let byLifetime = retiresAt.addingTimeInterval(lifetime + Self.clockLeeway)
        return max(key.expiresAt ?? byLifetime, byLifetime)
    }
}
