import AccountEvents
import Foundation
import HTTPEdge
import Storage

/// An identity provider whose ID tokens sign people in: Sign in with Apple is the first (`AppleIdentityProvider`); the
/// same seam is meant for Google, any OpenID Connect issuer, and the ID tokens of a team's previous auth system.
///
/// The contract every provider keeps:
/// - `verify` checks everything a token must satisfy before any part of it is trusted: its signature by a current key
///   of the issuer, its issuer, an audience that is one of this server's client IDs, its lifetime (with the provider's
///   leeway), and its nonce bound to `rawNonce` (how it is bound is the provider's: Apple's carries its SHA-256). A token
///   that fails is `401 invalid_identity_token`, the rule in the log and never in the answer; keys that cannot be had
///   now are a `503` that a retry may pass. `verify` writes nothing: a token's single use (its nonce and itself) is the
///   caller's replay guard, in the transaction that uses the identity.
/// - An identity is keyed by its issuer and subject (`VerifiedIdentity.issuer`, `.subject`), never by its email: an
///   email, verified or not, only suggests a link. `linkedIdentity` finds the link of a verified identity (a provider
///   may find it under an earlier key, as Apple's team transfer does: `recordSignIn` then re-keys it); `link` adds a
///   new identity to an account; `recordSignIn` records a sign-in of a linked one. Each writes only in the transaction
///   it is given and returns the account events of what it wrote, which the caller appends with its own.
/// - The provider's own claims are kept: `VerifiedIdentity.claims` is its typed reading, `rawClaims` the payload as
///   signed, so that nothing a provider says is lost to the common shape.
/// - What only some providers do (revoking tokens, notifications, moving identities between developer accounts,
///   exchanging an authorization code) is in `capabilities`; a caller asks a provider only for what it has.
package protocol IdentityProvider: Sendable {
    /// The provider's typed reading of a verified token's claims (Apple's `AppleIdentityToken`).
    associatedtype Claims: Sendable
    /// What the store keeps of a linked identity (Apple's `AppleIdentityRecord`).
    associatedtype Link: Sendable

    /// A short stable name for logs (`apple`).
    var name: String { get }
    /// What the provider does beyond verifying tokens and linking identities.
    var capabilities: IdentityProviderCapabilities { get }

    /// The identity an ID token stands for, once every rule is checked (see the contract above).
    func verify(_ idToken: String, rawNonce: String) throws(ServerError) -> VerifiedIdentity<Claims>

    /// The stored link of `identity`, or nil when no account has it.
    func linkedIdentity(for identity: VerifiedIdentity<Claims>, in transaction: any StoreTransaction) throws(StorageError) -> Link?

    /// The account a link belongs to.
    func owner(of link: Link) -> [UInt8]

    /// Links a new identity to the account `userID`; returns the events of the link.
    func link(
        _ identity: VerifiedIdentity<Claims>,
        to userID: [UInt8],
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent]

    /// Records a sign-in of a linked identity (what the token says anew, a re-keying); returns the events it wrote.
    func recordSignIn(
        _ identity: VerifiedIdentity<Claims>,
        of link: Link,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) -> [AccountEvent]
}
