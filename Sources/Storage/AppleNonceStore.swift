import Foundation

/// The replay guard of Sign in with Apple: each raw nonce, identity token and notification is accepted once until it
/// expires, and notifications apply in `event_time` order per `sub`. Entries are written in the transaction of the
/// sign-in or notification they let through (`StoreTransaction.rememberNonce`, `raiseAppleNotificationWatermark`),
/// so that one that fails to be written leaves its nonce and token usable for the retry.
public protocol AppleNonceStore: Sendable {
    /// Forgets every remembered nonce (token, notification ID) and every notification watermark whose entry expired
    /// (`until <= now`).
    /// - Returns: the number of entries removed.
    func purgeExpiredNonces(now: Date) throws(StorageError) -> Int
}
