import CryptoCore

/// `tokens.subject`: what `sub` of passkeyd's tokens (access tokens, introspection, the OpenID provider's ID tokens,
/// access tokens and userinfo) names. `id` (the default): passkeyd's user id (the base64url user handle), with the
/// app's own id as the claim `external_id` when the account has one. `externalId`: the app's own id, so that the app's
/// backend reads its user id from `sub` as before; an account without one keeps passkeyd's id (the `external_id`
/// claim, equal to `sub` only then, tells them apart).
public enum TokenSubject: String, Sendable, Equatable {
    case id
    case externalId

    /// The `sub` of the account `userID` with `externalID`.
    public func subject(userID: [UInt8], externalID: String?) -> String {
        if self == .externalId, let externalID { return externalID }
        return Base64URL.encode(userID)
    }

    /// Whether a verified token's `sub` names the account `userID` (`externalID` read only when it is needed): its
    /// passkeyd id (every token minted before an external id was set has it), or, under `externalId`, its external id.
    public func names<Failure: Error>(_ subject: String, userID: [UInt8], externalID: () throws(Failure) -> String?) throws(Failure) -> Bool {
        if subject == Base64URL.encode(userID) { return true }
        guard self == .externalId else { return false }
        return try externalID() == subject
    }
}
