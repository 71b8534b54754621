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

    /// The users of `body`, or `invalid` (with `line` for an NDJSON line, `member: user_id` for a row without
    /// an id; `member: users` for a file over `ImportedUser.maximumFileBytes` or with more than
    /// `AdminExport.maximumLines` users).
    public static func users(_ body: [UInt8]) throws(UserImportError) -> [ImportedUser] {
        guard body.count <= ImportedUser.maximumFileBytes else { throw UserImportError(.invalid, member: "users") }
        let rows: [Row]
        if body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) == UInt8(ascii: "[") {
            guard let array = try? JSONDecoder().decode([Row].self, from: Data(body)) else { throw UserImportError(.invalid, member: "users") }
            rows = array
        } else {
            var parsed: [Row] = []
            for (index, line) in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
            where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
                guard line.count <= AdminExport.maximumLineBytes, let row = try? JSONDecoder().decode(Row.self, from: Data(line)) else {
                    throw UserImportError(.invalid, member: "users").onLine(index + 1)
                }
                parsed.append(row)
            }
            rows = parsed
        }
        var users: [ImportedUser] = []
        for (index, row) in rows.enumerated() {
            guard let id = row.user_id ?? row._id.map({ "auth0|" + $0.oid }) else {
                throw UserImportError(.invalid, member: "user_id").onLine(index + 1)
            }
            users.append(
                ImportedUser(
                    externalID: id,
                    email: row.email,
                    emailVerified: row.email_verified ?? false,
                    displayName: row.name,
                    createdAt: ImportedUser.time(row.created_at),
                    passwordHash: row.passwordHash,
                    disabled: row.blocked == true
                )
            )
        }
        guard users.count <= AdminExport.maximumLines else { throw UserImportError(.invalid, member: "users") }
        return users
    }
}
