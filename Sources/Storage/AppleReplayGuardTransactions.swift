import Foundation

/// The replay guard of Sign in with Apple, in a transaction (`StoreTransaction`): the remembered nonces and the
/// notification watermarks (`AppleNonceStore` purges them).
public protocol AppleReplayGuardTransactions {
    /// Remembers `hash` until `until`, unless an unexpired entry (`now < until` of that entry) is remembered; an
    /// expired entry for `hash` is replaced. Of any number of concurrent transactions with the same hash exactly one
    /// commits having got true, across connections and processes sharing the database. The server remembers the
    /// SHA-256 of every raw nonce, of every identity token and of every notification's `jti` here (each hashed with
    /// its own prefix), each until the token or notification expires.
    /// - Returns: true when the hash was not remembered (it is now); false when an unexpired entry exists.
    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool

    /// The time of the newest notification applied for the Apple `sub` (`event_time`), unless its entry expired
    /// (`until <= now`); nil when there is none.
    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date?

    /// Records that a notification of `eventAt` was applied for the Apple `sub`: the watermark becomes the later of
    /// the stored one and `eventAt`, kept until `until` (or the stored entry's, when later). An expired entry is
    /// replaced.
    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError)
}
