import Foundation
import Storage

/// The replay guard of one Apple identity token: the raw nonce's key and the token's own, each remembered until the
/// token expires (plus the leeway), in the transaction that uses the token. A server-issued nonce is also taken
/// from the challenge store when the guard is made (`AppleAccountResolver.replayGuard`; an expired one is refused).
struct AppleReplayGuard {
    let nonceKey: [UInt8]
    let tokenKey: [UInt8]
    let until: Date

    /// Remembers both; false when either was already remembered (the token is a replay, whatever its nonce).
    func remember(in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Bool {
        let freshNonce = try transaction.rememberNonce(nonceKey, until: until, now: now)
        let freshToken = try transaction.rememberNonce(tokenKey, until: until, now: now)
        return freshNonce && freshToken
    }
}
