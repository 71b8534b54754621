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

    /// Where the users are in the file: the document is their array.
    public static let layout = ImportRecordReader.Layout.array(.array)

    /// The user of one element of the array, or `invalid` (`member: users`) for one that is not such a row.
    public static func user(_ record: [UInt8], now: Date) throws(UserImportError) -> ImportedUser {
        guard let row = try? JSONDecoder().decode(Row.self, from: Data(record)) else { throw UserImportError(.invalid, member: "users") }
        return ImportedUser(
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
