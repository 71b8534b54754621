import CryptoCore
import Foundation

/// A user of another auth system's export (Supabase's `auth.users`, Auth0's export), in the one shape their imports
/// share: the previous system's user id becomes the account's `externalId`, so that an app reading its user id from
/// `sub` (`tokens.subject: externalId`) keeps working.
public struct ImportedUser: Sendable {
    /// The previous system's user id (Supabase's UUID, Auth0's `user_id`).
    public let externalID: String
    public let email: String?
    public let emailVerified: Bool
    public let displayName: String?
    public let createdAt: Date?
    /// Its password hash as the previous system stored it (bcrypt for both), or nil for a user without a password.
    public let passwordHash: String?
    /// Deleted, banned or blocked: not imported, counted.
    public let disabled: Bool

    /// A time as PostgreSQL's JSON and Auth0 write them: RFC 3339 with up to six fractional digits, or PostgreSQL's
    /// text form (`2024-05-01 10:00:00.123456+00`).
    static func time(_ text: String?) -> Date? {
        guard var text, text.utf8.count <= 64 else { return nil }
        text = text.replacingOccurrences(of: " ", with: "T")
        if let zone = text.range(of: #"[+-]\d\d$"#, options: .regularExpression) { text.replaceSubrange(zone, with: text[zone] + ":00") }
        if let fraction = text.range(of: #"\.\d+"#, options: .regularExpression) {
            text.replaceSubrange(fraction, with: String(text[fraction].prefix(4)))
        }
        return ISO8601Time.parse(text)
    }
}
