import Foundation

/// The OpenID provider's OAuth records, in a transaction (`StoreTransaction`): authorization codes, grants and their
/// refresh tokens.
public protocol OpenIDProviderTransactions {
    /// Stores a new authorization code.
    /// - Throws: `storage.notFound` when `code.userID` is not an existing user; `storage.duplicateKey` when a code with
    ///   the same hash is stored; `storage.invalidRecord` when it breaks a bound (`AuthorizationCodeRecord.validate`).
    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError)

    /// Uses the code with this hash: sets its `usedAt` to `now` when it is unused. Of any number of concurrent
    /// transactions using the same code, across connections and processes sharing the database, exactly one commits
    /// having got it with `usedAt` nil.
    /// - Returns: the code as it was before this call (expired or not; `usedAt` set when it had been used: a replay),
    ///   or nil when there is none.
    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord?

    /// Stores a new grant (a refresh-token family).
    /// - Throws: `storage.notFound` when `grant.userID` is not an existing user; `storage.duplicateKey` when a grant
    ///   with this ID is stored; `storage.invalidRecord` when it breaks a bound (`OAuthGrantRecord.validate`).
    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError)

    /// The grant with this ID, expired or not, or nil.
    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord?

    /// Every grant of this account to this client, expired or not, oldest first (by `createdAt`, then `id`): for the
    /// cap on grants per account and client, and the consent a first grant asks for.
    func oauthGrants(userID: [UInt8], clientID: String) throws(StorageError) -> [OAuthGrantRecord]

    /// Deletes the grant with its refresh tokens (revocation, reuse detection).
    /// - Returns: whether there was such a grant.
    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool

    /// Deletes every grant of the user with their refresh tokens, and the user's authorization codes (disabling the
    /// account).
    /// - Returns: how many grants were deleted.
    func deleteOAuthGrants(userID: [UInt8]) throws(StorageError) -> Int

    /// Stores a refresh token of an existing grant.
    /// - Throws: `storage.notFound` when `token.grantID` is no grant; `storage.duplicateKey` when a token with the same
    ///   hash is stored.
    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError)

    /// The refresh token with this hash, used or not, or nil.
    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord?

    /// Uses the refresh token with this hash: sets its `usedAt` to `now` when it is unused. Of any number of
    /// concurrent transactions using the same token exactly one commits having got it with `usedAt` nil.
    /// - Returns: the token as it was before this call, or nil when there is none.
    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord?

    /// Deletes every authorization code with `expiresAt <= now` and every grant with `expiresAt <= now` (with its
    /// refresh tokens).
    /// - Returns: how many codes and grants were deleted.
    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int
}
