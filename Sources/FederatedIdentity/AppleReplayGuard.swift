import Foundation
import Storage

/// The replay guard of one Apple identity token: the raw nonce's key and the token's own, each remembered until the
/// token expires (plus the leeway), in the transaction that uses the token. A server-issued nonce is also taken
/// from the challenge store when the guard is made (`AppleAccountResolver.replayGuard`; an expired one is refused).
package struct AppleReplayGuard {
    package let nonceKey: [UInt8]
    package let tokenKey: [UInt8]
    package let until: Date

    package init(nonceKey: [UInt8], tokenKey: [UInt8], until: Date) {
        self.nonceKey = nonceKey
        self.tokenKey = tokenKey
        self.until = until
    }

    /// Remembers both; false when either was already remembered (the token is a replay, whatever its nonce).
    package func remember(in transaction: any StoreTransaction, now: Date) throws(StorageError) -> Bool {
        let freshNonce = try transaction.rememberNonce(nonceKey, until: until, now: now)
        let freshToken = try transaction.rememberNonce(tokenKey, until: until, now: now)
        return freshNonce && freshToken
    }
}
