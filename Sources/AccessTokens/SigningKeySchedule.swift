import CryptoCore
import Foundation
import Storage

/// When signing keys are made, replaced and forgotten, written once for the server's worker and for
/// `passkeyd keys rotate|revoke`, on top of the store's transactions (so that nodes sharing a database agree: one
/// node's transaction makes a key, the others read it).
///
/// - The very first key signs at once: no JWKS was served without it.
/// - A **standby** key is always published beside the signing one: made as soon as a key starts signing, it signs from
///   the next scheduled rotation (`rotationDays` after the signing key started, at least one token lifetime away:
///   `prePublication`). Every verifier that fetched the JWKS since has it long before its first token, and so does one
///   that caches the JWKS for minutes, or refetches an unknown `kid` only after a cooldown (PyJWT's `PyJWKClient`).
/// - `rotate` makes the standby sign early: at once (`immediately`, for a key that may have leaked), else as soon as it
///   has been published for `prePublication`; a new standby follows. Only without a standby is a new key made to sign.
/// - The key it replaces stops signing when the new one starts, and stays published until the last token it signed
///   has expired, plus `clockLeeway` (`expiresAt`); then it is deleted. `revoke` deletes a key at once.
/// - A key is replaced every `rotationDays`, or one token lifetime after `tokens.algorithm` names another algorithm.
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
    /// The least time a new key is published before it signs: one token lifetime.
    var prePublication: TimeInterval { lifetime }
    var rotationInterval: TimeInterval { TimeInterval(settings.rotationDays) * 86_400 }

    /// What a rotation changed.
    public struct Change: Sendable, Equatable {
        public var created: String?
        /// The standby key `rotate` made sign early.
        public var promoted: String?
        public var retired: [String] = []
        public var deleted: [String] = []
    }

    /// Brings the store's keys up to date at `now`: deletes keys past `expiresAt`, makes the first key, and the standby
    /// when none is pending (a first start makes both). A new key is generated before each transaction (which may run
    /// more than once) and stored only when the transaction still finds it needed.
    /// - Returns: what changed, and every key afterwards.
    public func update(store: any TransactionalStore, now: Date) throws -> (change: Change, keys: [SigningKeyRecord]) {
        var change = Change()
        var keys = try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
        // The first key, then its standby: two rounds at most.
        for _ in 0..<2 where needsChange(keys, now: now) {
            let proposed = try vault.newKey(settings.algorithm, now: now, activatesAt: now)
            let round = try store.transaction { transaction throws(StorageError) in
                var change = Change()
                var keys = try transaction.signingKeys()
                for key in keys where key.expiresAt.map({ $0 <= now }) == true {
                    _ = try transaction.deleteSigningKey(id: key.id)
                    change.deleted.append(key.id)
                }
                keys.removeAll { change.deleted.contains($0.id) }
                guard needsNewKey(keys, now: now) else { return (change, keys) }
                var key = proposed
                key.activatesAt = activation(after: keys, now: now)
                try replace(keys, with: key, in: transaction, change: &change)
                return (change, try transaction.signingKeys())
            }
            change.deleted += round.0.deleted
            change.retired += round.0.retired
            change.created = round.0.created ?? change.created
            keys = round.1
        }
        return (change, keys)
    }

    /// Whether `update` has anything to do: a key to delete or a key to make.
    func needsChange(_ keys: [SigningKeyRecord], now: Date) -> Bool {
        keys.contains { $0.expiresAt.map { $0 <= now } == true } || needsNewKey(keys, now: now)
    }

    /// No key signs or waits; or the newest one signs (it needs its standby); or the standby is of another algorithm
    /// than the configured one.
    func needsNewKey(_ keys: [SigningKeyRecord], now: Date) -> Bool {
        guard let newest = keys.last(where: { $0.retiresAt == nil }) else { return true }
        return newest.activatesAt <= now || newest.algorithm != settings.algorithm.rawValue
    }

    /// When a new key made at `now` signs: at once when no key signs or waits; else at the next rotation of the newest
    /// key (`rotationDays` after it started; at once for another algorithm), and never before `prePublication`.
    func activation(after keys: [SigningKeyRecord], now: Date) -> Date {
        guard let newest = keys.last(where: { $0.retiresAt == nil }) else { return now }
        let isCurrent = newest.activatesAt <= now && newest.algorithm == settings.algorithm.rawValue
        let scheduled = isCurrent ? newest.activatesAt.addingTimeInterval(rotationInterval) : now
        return max(scheduled, now.addingTimeInterval(prePublication))
    }

    /// Every key, for `passkeyd keys list`.
    public func current(store: any TransactionalStore) throws(StorageError) -> [SigningKeyRecord] {
        try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
    }

    /// `passkeyd keys rotate`: the standby signs at once (`immediately`: verifiers have had it since it was made), or
    /// as soon as it has been published for `prePublication`. Without a standby, a new key does, at once or after its
    /// pre-publication. Every key still signing or pending stops when it starts and stays published until its tokens
    /// have expired; the worker then makes the next standby.
    public func rotate(store: any TransactionalStore, now: Date, immediately: Bool) throws -> (change: Change, keys: [SigningKeyRecord]) {
        var proposed = try vault.newKey(settings.algorithm, now: now, activatesAt: now)
        proposed.activatesAt = immediately ? now : now.addingTimeInterval(prePublication)
        return try store.transaction { [proposed] transaction throws(StorageError) in
            var change = Change()
            let keys = try transaction.signingKeys()
            if var standby = keys.last(where: { $0.retiresAt == nil && $0.activatesAt > now && $0.algorithm == settings.algorithm.rawValue }) {
                standby.activatesAt = immediately ? now : max(now, standby.createdAt.addingTimeInterval(prePublication))
                // The key's row again with its new start: the same `kid` and sealed key, so no verifier meets it new.
                _ = try transaction.deleteSigningKey(id: standby.id)
                try replace(keys.filter { $0.id != standby.id }, with: standby, in: transaction, change: &change)
                (change.created, change.promoted) = (nil, standby.id)
            } else {
                try replace(keys, with: proposed, in: transaction, change: &change)
            }
            return (change, try transaction.signingKeys())
        }
    }

    /// `passkeyd keys revoke KID`: withdraws the key at once, for a key that leaked: it leaves the store, so every node
    /// stops publishing it and verifying its tokens once it reloads the keys (at once on a store that announces changes, else within
    /// `SigningKeyRing.refreshInterval(for:)`).
    /// When it signs now, the standby (or, without one, a new key) signs in its place at once.
    /// - Returns: what changed and every key afterwards; nil when no key has this ID.
    public func revoke(id: String, store: any TransactionalStore, now: Date) throws -> (change: Change, keys: [SigningKeyRecord])? {
        let proposed = try vault.newKey(settings.algorithm, now: now, activatesAt: now)
        return try store.transaction { transaction throws(StorageError) -> (change: Change, keys: [SigningKeyRecord])? in
            var change = Change()
            var keys = try transaction.signingKeys()
            guard keys.contains(where: { $0.id == id }) else { return nil }
            _ = try transaction.deleteSigningKey(id: id)
            change.deleted.append(id)
            keys.removeAll { $0.id == id }
            let signing = keys.last { $0.activatesAt <= now && ($0.retiresAt.map { now < $0 } ?? true) }
            if signing == nil {
                if var standby = keys.last(where: { $0.retiresAt == nil && $0.activatesAt > now }) {
                    standby.activatesAt = now
                    _ = try transaction.deleteSigningKey(id: standby.id)
                    try replace(keys.filter { $0.id != standby.id }, with: standby, in: transaction, change: &change)
                    (change.created, change.promoted) = (nil, standby.id)
                } else {
                    try replace(keys, with: proposed, in: transaction, change: &change)
                }
            }
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
