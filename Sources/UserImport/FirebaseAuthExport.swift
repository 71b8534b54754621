import Foundation

/// The JSON file `firebase auth:export users.json` writes: `{"users": [...]}`, one object per account with `localId`,
/// `email`, `emailVerified`, `displayName`, `createdAt` (milliseconds since 1970, as a string), `disabled` and
/// `providerUserInfo` (`providerId`, `rawId`: the provider's user ID, `email`, `displayName`), and for password users
/// `passwordHash` and `salt` (base64; Firebase's scrypt under the project's parameters). Phone numbers and custom
/// claims are in the file too; they are not read. For Sign in with Apple the `rawId` of the
/// `apple.com` entry is Apple's `sub`, the same for passkeyd when the app's Team ID is unchanged.
/// The file is read one user at a time (`ImportRecordReader` with `.array(.member("users"))`), never whole.
public enum FirebaseAuthExport {
    public struct User: Decodable, Sendable {
        public let localId: String
        public let email: String?
        public let emailVerified: Bool?
        public let displayName: String?
        /// Milliseconds since 1970.
        public let createdAt: Date?
        public let disabled: Bool?
        public let providerUserInfo: [ProviderUserInfo]
        public let passwordHash: String?
        public let salt: String?

        enum CodingKeys: String, CodingKey {
            case localId, email, emailVerified, displayName, createdAt, disabled, providerUserInfo, passwordHash, salt
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            localId = try container.decode(String.self, forKey: .localId)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
            displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
            // The CLI writes the milliseconds as a string; the REST API's users have a number.
            let milliseconds =
                (try? container.decodeIfPresent(String.self, forKey: .createdAt)).flatMap { $0.flatMap(Double.init) }
                ?? (try? container.decodeIfPresent(Double.self, forKey: .createdAt)) ?? nil
            createdAt = milliseconds.map { Date(timeIntervalSince1970: $0 / 1000) }
            disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled)
            providerUserInfo = try container.decodeIfPresent([ProviderUserInfo].self, forKey: .providerUserInfo) ?? []
            passwordHash = try container.decodeIfPresent(String.self, forKey: .passwordHash)
            salt = try container.decodeIfPresent(String.self, forKey: .salt)
        }
    }

    public struct ProviderUserInfo: Decodable, Sendable {
        /// "apple.com", "google.com", "password" …
        public let providerId: String
        /// The provider's user ID: Apple's `sub` for "apple.com".
        public let rawId: String?
        public let email: String?
        public let displayName: String?
    }

    /// The provider ID of Sign in with Apple.
    public static let appleProvider = "apple.com"
    /// Sign in with Google's provider: its `rawId` is Google's `sub` (the ID tokens' issuer is `googleIssuer`).
    public static let googleProvider = "google.com"
    public static let googleIssuer = "https://accounts.google.com"

    /// Where the users are in the file.
    public static let layout = ImportRecordReader.Layout.array(.member("users"))

    /// The user of one element of the file's `users`; `invalid` (`member: users`) for one that is not Firebase's.
    public static func user(_ record: [UInt8]) throws(UserImportError) -> User {
        guard let user = try? JSONDecoder().decode(User.self, from: Data(record)) else { throw UserImportError(.invalid, member: "users") }
        return user
    }
}
