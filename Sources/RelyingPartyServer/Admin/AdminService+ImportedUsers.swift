import CryptoCore
import Foundation
import Storage
import UserImport

extension AdminService {
    /// The formats of other auth systems' exports `POST /admin/import?format=` takes besides Firebase's.
    public enum ImportFormat: String, Sendable {
        case supabase
        case auth0
    }

    /// Imports the users of a Supabase or Auth0 export (`ImportFormat`), idempotently, in one transaction: each user
    /// that is not deleted, banned or blocked becomes an account whose `externalId` is the previous system's user id
    /// (an account that has that `externalId` already, such as one the app's backend made for passkeys beside the old
    /// system, is that user's account; otherwise the account's ID is derived from the id, so a second import finds it),
    /// with its email, display name and creation time, and its password hash when it had one (bcrypt, read and bounded
    /// as every imported hash). Its username is the email when there is one (64 bytes at most), `<format>-<id>`
    /// otherwise.
    /// - Throws: `400 import_invalid` (with `line`: the user's position in the file, from 1) for a file that is not the
    ///   format, a user id out of bounds, a hash that does not read; what `importBatch` throws.
    public func importUsers(_ body: [UInt8], format: ImportFormat) throws(ServerError) -> AdminImportReport {
        let now = time.now
        let users = try ServerError.importing { () throws(UserImportError) -> [ImportedUser] in
            switch format {
            case .supabase: try SupabaseUsersExport.users(body, now: now)
            case .auth0: try Auth0UsersExport.users(body)
            }
        }
        var batch = AdminExport.Batch()
        var skipped = AdminImportReport.Skipped()
        for (index, user) in users.enumerated() {
            guard !user.disabled else {
                skipped.count += 1
                skipped.disabled += 1
                continue
            }
            do throws(ServerError) {
                let account = try account(user, source: format.rawValue, now: now)
                batch.users.append((index + 1, account))
                if let hash = user.passwordHash {
                    let password = try ServerError.importing { () throws(UserImportError) -> PasswordHashRecord in
                        try AdminExport.passwordHash(hash, userID: account.id, now: now)
                    }
                    batch.passwords.append((index + 1, password))
                }
            } catch {
                throw error.onLine(index + 1)
            }
        }
        var report = try importBatch(batch)
        report.skipped = skipped
        return report
    }

    /// The account of an imported user: the one with its `externalId` when there is one (its name kept, the export's
    /// email and display name taken), else a new one with an ID derived from it.
    func account(_ user: ImportedUser, source: String, now: Date) throws(ServerError) -> UserRecord {
        let externalID = try Self.validExternalID(user.externalID)
        let email = try Self.validEmail(user.email).flatMap { $0.isEmpty ? nil : $0 }
        let displayName = try user.displayName.flatMap { $0.isEmpty ? nil : $0 }.map { (text: String) throws(ServerError) -> String in
            try RelyingPartyServer.validName(text, member: "displayName")
        }
        if var existing = try transaction({ transaction throws(StorageError) in try transaction.user(externalID: externalID) }) {
            // Its name and identity stay; what the export knows of the person comes in.
            if let email { (existing.email, existing.emailVerified) = (email, user.emailVerified) }
            if let displayName { (existing.displayName, existing.displayNameIsDefault) = (displayName, false) }
            return existing
        }
        var account = try Self.newImportedAccount(
            source: source,
            key: externalID,
            email: email,
            emailVerified: user.emailVerified,
            displayName: displayName,
            createdAt: user.createdAt ?? now,
            token: random.uuid()
        )
        account.externalID = externalID
        return account
    }

    /// A new account of an import from another system (`source`: `firebase`, `supabase`, `auth0`): its ID derived
    /// from the source and the user's `key` there (a second import finds it), its username the email when there is one
    /// (64 bytes at most), `<source>-<key>` otherwise, its display name the given one or the username.
    static func newImportedAccount(
        source: String,
        key: String,
        email: String?,
        emailVerified: Bool,
        displayName: String?,
        createdAt: Date,
        token: UUID
    ) throws(ServerError) -> UserRecord {
        let username = email.flatMap { $0.count <= 64 ? $0 : nil } ?? String("\(source)-\(key)".prefix(64))
        let name = try RelyingPartyServer.validName(username, member: "email")
        return UserRecord(
            id: DigestAlgorithm.sha256.hash(Array("\(source):\(key)".utf8)),
            name: name,
            displayName: displayName ?? name,
            displayNameIsDefault: displayName == nil,
            appAccountToken: token,
            email: email,
            emailVerified: email != nil && emailVerified,
            createdAt: createdAt
        )
    }
}
