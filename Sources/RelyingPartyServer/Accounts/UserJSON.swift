import CryptoCore
import JSON
import Storage

/// The one shape of a user in every answer that carries one (registration and authentication verify, `POST /auth/apple`,
/// `GET /me`, `POST /me/merge`).
public struct UserJSON: Encodable, Equatable, Sendable {
    /// The base64url user handle.
    public let id: String
    public let username: String
    public let displayName: String
    /// Whether passkeyd chose `displayName` (the username, an email's local part, a private relay address's random one
    /// too, or "Apple user") rather than the person: the app may ask for a name.
    public let displayNameIsDefault: Bool
    public let email: String?
    /// Present with `email`.
    public let emailVerified: Bool?
    /// The app's own id of the person, when its backend gave one (`POST /admin/users`, an import).
    public let externalId: String?
    /// The account's random UUID for StoreKit (lowercase), stable for the account's lifetime.
    public let appAccountToken: String
    /// Whether an admin disabled the account (no sign-in gets in).
    public let disabled: Bool
    /// Deprecated, removed in the next release: the username again, as registration, authentication and `/me` called
    /// it before `username` (`POST /auth/apple` used it for the display name).
    public let name: String

    init(_ user: UserRecord) {
        id = Base64URL.encode(user.id)
        username = user.name
        displayName = user.displayName
        displayNameIsDefault = user.displayNameIsDefault
        email = user.email
        emailVerified = user.email == nil ? nil : user.emailVerified
        appAccountToken = user.appAccountToken.lowercaseText
        externalId = user.externalID
        disabled = user.disabled
        name = user.name
    }

    /// The members as `JSONBody`'s encoder writes them (sorted, nil left out), into an object of the caller's.
    package func write(to object: inout JSONObjectWriter) {
        object.add("appAccountToken", appAccountToken)
        object.add("disabled", disabled)
        object.add("displayName", displayName)
        object.add("displayNameIsDefault", displayNameIsDefault)
        if let email { object.add("email", email) }
        if let emailVerified { object.add("emailVerified", emailVerified) }
        if let externalId { object.add("externalId", externalId) }
        object.add("id", id)
        object.add("name", name)
        object.add("username", username)
    }
}
