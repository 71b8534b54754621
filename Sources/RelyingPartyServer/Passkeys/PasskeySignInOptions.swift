import HTTPEdge
import HTTPServer
import RateLimiting
import Storage
import WebAuthnCore

/// The request options of a passkey sign-in: discoverable (autofill) without a username, whose challenge is sealed and
/// nothing stored; with one, the user's passkeys, and for a name without an account the same shape with stable decoy
/// credentials (no enumeration). Each takes a challenge from the client address's allowance.
struct PasskeySignInOptions: Sendable {
    let store: any PasskeyStore
    let challenges: ChallengeService
    let decoys: DecoyCredentials
    let settings: SettingsInForce
    let limits: RequestLimits
    /// The options' `timeout`: the challenge's lifetime.
    let timeoutMilliseconds: Int

    /// The options for `username` (nil: discoverable). `isOnLoop`: made on the event-loop thread, where the node's own
    /// challenge allowance decides (a draw from the shared one may wait on the database).
    /// - Throws: `400 invalid_username` for a name longer than any account's; `429 rate_limited`.
    func options(
        username: String?,
        userVerification: UserVerificationRequirement,
        request: HTTPRequest,
        isOnLoop: Bool
    ) throws(ServerError) -> PublicKeyCredentialRequestOptionsJSON {
        var allowCredentials: [PublicKeyCredentialDescriptorJSON] = []
        var userID: [UInt8]?
        var stored: [UInt8] = []
        // No account has a longer name: refused before it is normalised or reaches the store or any table.
        if let given = username, given.utf8.count > RelyingPartyServer.maximumLookupNameBytes {
            throw ServerError(.invalidUsername, member: "username")
        }
        if let given = username, case let name = RelyingPartyServer.normalizedName(given), !name.isEmpty {
            // Found by its key (`UserRecord.nameKey`): any case of the name, and one registered before names were NFKC.
            if let user = try storage({ try store.user(name: name) }) {
                userID = user.id
                allowCredentials = try storage { try store.credentials(userID: user.id) }
                    .map { PublicKeyCredentialDescriptorJSON(id: $0.id, transports: RelyingPartyServer.knownTransports($0.transports)) }
            } else {
                allowCredentials = decoys.descriptors(for: UserRecord.nameKey(of: name))
                // Bound to nobody, so that signing in with one's own passkey does not reveal that the name is free.
                stored = JSONBody.encode(AssertionVerifier.AuthenticationContext(unknownUser: true, decoys: allowCredentials.map(\.id)))
            }
        }
        // On the event loop (a discoverable sign-in's options), by the node's own bucket: a draw may wait on the database.
        try limits.take(.challenges, key: limits.clientAddress(request), locally: isOnLoop)
        // A discoverable sign-in's challenge is sealed: nothing to store until it is used (`ChallengeSeal`).
        let challenge =
            userID == nil && stored.isEmpty
            ? challenges.issueSealed(userVerification: userVerification.rawValue)
            : try challenges.issue(.authentication, userID: userID, userVerification: userVerification.rawValue, context: stored)
        return settings.relyingParty.requestOptions(
            challenge: challenge,
            allowCredentials: allowCredentials,
            userVerification: userVerification,
            timeoutMilliseconds: timeoutMilliseconds
        )
    }
}
