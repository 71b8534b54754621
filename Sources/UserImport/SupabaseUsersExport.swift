import Foundation

/// Supabase (GoTrue) users: a JSON array of `auth.users` rows, as `select json_agg(u) from auth.users u` writes them
/// (`id`, `email`, `encrypted_password`: bcrypt, `email_confirmed_at`, `created_at`, `raw_user_meta_data` with
/// `full_name` or `name`, `deleted_at`, `banned_until`). Identities of `auth.identities` (Google, Apple) are not read.
public enum SupabaseUsersExport {
    struct Row: Decodable {
        let id: String
        let email: String?
        let encrypted_password: String?
        let email_confirmed_at: String?
        let created_at: String?
        let raw_user_meta_data: Metadata?
        let deleted_at: String?
        let banned_until: String?
    }

    struct Metadata: Decodable {
        let full_name: String?
        let name: String?
    }

    /// The users of `body`, or `invalid` (`member: users`) for a body that is not such an array, is over
    /// `ImportedUser.maximumFileBytes` or has more than `AdminExport.maximumLines` users.
    public static func users(_ body: [UInt8], now: Date) throws(UserImportError) -> [ImportedUser] {
        guard body.count <= ImportedUser.maximumFileBytes, let rows = try? JSONDecoder().decode([Row].self, from: Data(body)),
            rows.count <= AdminExport.maximumLines
        else { throw UserImportError(.invalid, member: "users") }
        return rows.map { row in
            ImportedUser(
                externalID: row.id,
                email: row.email.flatMap { $0.isEmpty ? nil : $0 },
                emailVerified: row.email_confirmed_at != nil,
                displayName: row.raw_user_meta_data?.full_name ?? row.raw_user_meta_data?.name,
                createdAt: ImportedUser.time(row.created_at),
                passwordHash: row.encrypted_password.flatMap { $0.isEmpty ? nil : $0 },
                disabled: row.deleted_at != nil || (ImportedUser.time(row.banned_until).map { $0 > now } ?? false)
            )
        }
    }
}
