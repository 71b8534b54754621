/// The ceremony a challenge was issued for.
public enum CeremonyKind: String, Sendable {
    /// Creating a credential (navigator.credentials.create).
    case registration
    /// Asserting a credential (navigator.credentials.get).
    case authentication
    /// A Sign in with Apple nonce, stored under the SHA-256 of the raw nonce.
    case appleNonce
    /// A merge token (`apple_identity_taken`, `merge_conflict`), stored under a hash of the token.
    case merge
    /// A session hand-off code (`POST /session/handoff`), stored under a hash of the code.
    case sessionHandoff
    /// The `state` of Apple's web flow (`GET /auth/apple/start`), stored under a hash of the state: its raw nonce, the
    /// paths to return to and the hash of the browser's binding cookie.
    case appleWebState
    /// The `state` of an identity provider's web flow (`GET /auth/{provider}/start`), stored under a hash of the state:
    /// the provider, its raw nonce, the PKCE verifier, the paths to return to and the hash of the binding cookie.
    case identityWebState
    /// A sealed sign-in challenge that was used (`ChallengeSeal` in the server), stored under its bytes until some
    /// time after it expired: while it is stored, the challenge is refused. Never taken.
    case spentAuthentication
}
