/// The messages passkeyd sends, each with its template files (`<rawValue>.subject.txt`, `.txt`, `.html`) and the
/// values its templates may use.
package enum MailKind: String, CaseIterable, Sendable {
    /// A link and a 6-digit code that verify a new address (`PATCH /me {"email"}`, the admin API).
    case verifyAddress
    /// To the old address, when the account's verified address changed.
    case addressChanged
    /// A single-use link that opens a restricted session to add a passkey (`POST /auth/recovery/email`).
    case recovery
    /// Something happened to the account: a passkey added or removed, an identity linked or unlinked, recovery used,
    /// the account deleted, sessions revoked by an administrator.
    case securityNotice
    /// The admin API's enrollment link, sent by passkeyd (`"send": true`).
    case enrollment

    /// The names its templates may use; every kind has `appName` (the relying party's name).
    package var names: Set<String> {
        switch self {
        case .verifyAddress: ["appName", "code", "link", "expiresMinutes"]
        case .addressChanged: ["appName", "time"]
        case .recovery: ["appName", "link", "expiresMinutes"]
        case .securityNotice: ["appName", "notice", "time"]
        case .enrollment: ["appName", "link", "expiresHours"]
        }
    }

    /// The member of `email.messages` that turns it on or off.
    package var switchName: String {
        switch self {
        case .verifyAddress, .addressChanged: "verifyAddress"
        case .recovery: "recovery"
        case .securityNotice: "securityNotices"
        case .enrollment: "enrollment"
        }
    }
}
