import Foundation

/// Auth0 users: its export (the User Import/Export extension's JSON or NDJSON: `user_id`, `email`, `email_verified`,
/// `name`, `created_at`, `blocked`) or the password-hash export Auth0's support provides (NDJSON: `_id.$oid` for the id
/// `auth0|<oid>`, `email`, `email_verified`, `passwordHash`: bcrypt). Either file, one object a line or one JSON array.
public enum Auth0UsersExport {
    struct Row: Decodable {
        struct ObjectID: Decodable {
            let oid: String
            enum CodingKeys: String, CodingKey { case oid = "$oid" }
        }
        let user_id: String?
        let _id: ObjectID?
        let email: String?
        let email_verified: Bool?
        let name: String?
        let created_at: String?
        let blocked: Bool?
        let passwordHash: String?
    }

    /// Where the users are in the file: one a line, or one JSON array.
    public static let layout = ImportRecordReader.Layout.linesOrArray

    /// The user of one line or element, or `invalid` (`member: users` for one that is not JSON of such a row,
    /// `member: user_id` for a row without an id).
    public static func user(_ record: [UInt8]) throws(UserImportError) -> ImportedUser {
        guard let row = try? JSONDecoder().decode(Row.self, from: Data(record)) else { throw UserImportError(.invalid, member: "users") }
        guard let id = row.user_id ?? row._id.map({ "auth0|" + $0.oid }) else { throw UserImportError(.invalid, member: "user_id") }
        return ImportedUser(
            externalID: id,
            email: row.email,
            emailVerified: row.email_verified ?? false,
            displayName: row.name,
            createdAt: ImportedUser.time(row.created_at),
            passwordHash: row.passwordHash,
            disabled: row.blocked == true
        )
    }
}
