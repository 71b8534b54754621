import Foundation

/// The replay guard for Sign in with Apple nonces: each raw nonce is accepted once until its token expires.
public protocol AppleNonceStore: Sendable {
    /// Atomically remembers `hash` (the SHA-256 of a raw nonce) until `until`, unless it is already remembered.
    ///
    /// An entry is unexpired while `now < until`. Expired entries (of any hash) may be removed by the call; an
    /// expired entry for `hash` is replaced. Of any number of concurrent callers with the same hash exactly one
    /// gets true, across connections and processes sharing the database.
    /// - Returns: true when the hash was not remembered (it is now); false when an unexpired entry exists.
    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool
}
