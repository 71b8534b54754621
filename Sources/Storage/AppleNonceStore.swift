import Foundation

/// The replay guard for Sign in with Apple nonces: each raw nonce is accepted once until its token expires. Nonces
/// are remembered in the transaction that signs the person in (`StoreTransaction.rememberNonce`), so that a sign-in
/// that fails to be written leaves its nonce usable for the retry.
public protocol AppleNonceStore: Sendable {
    /// Forgets every remembered nonce whose entry expired (`until <= now`).
    /// - Returns: the number of entries removed.
    func purgeExpiredNonces(now: Date) throws(StorageError) -> Int
}
