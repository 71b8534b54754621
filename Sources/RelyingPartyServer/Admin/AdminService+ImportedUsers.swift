import CryptoCore
import Foundation
import HTTPEdge
import Storage
import UserImport

extension AdminService {
    /// Imports `body`, a whole file of `format`, in one transaction: all of it or, on any refusal, nothing
    /// (`AdminImporter`; at most `AdminExport.maximumLines` lines or users).
    public func importFile(_ body: [UInt8], format: AdminImporter.Format) throws(ServerError) -> AdminImportReport {
        var importer = AdminImporter(service: self, format: format, batchSize: nil)
        try importer.read(body[...])
        return try importer.finish()
    }

    /// Adds a user of a Supabase or Auth0 export (`source`) to `batch` unless it is deleted, banned or blocked: it
    /// becomes an account whose `externalId` is the previous system's user id (an account that has that `externalId`
    /// already, such as one the app's backend made for passkeys beside the old system, is that user's account;
    /// otherwise the account's ID is derived from the id, so a second import finds it), with its email, display name
    /// and creation time, and its password hash when it had one (bcrypt, read and bounded as every imported hash). Its
    /// username is the email when there is one (64 bytes at most), `<source>-<id>` otherwise. `number`: the user's
    /// position (or line) in the file, which the batch's refusals name.
    /// - Throws: `400 import_invalid` for a user id out of bounds or a hash that does not read.
    func addImportedUser(
        _ user: ImportedUser,
        source: String,
        now: Date,
        line number: Int,
        to batch: inout AdminExport.Batch,
        skipped: inout AdminImportReport.Skipped
    ) throws(ServerError) {
        guard !user.disabled else {
            skipped.count += 1
            skipped.disabled += 1
            return
        }
        let account = try account(user, source: source, now: now)
        batch.users.append((number, account))
        if let hash = user.passwordHash {
            let password = try ServerError.importing { () throws(UserImportError) -> PasswordHashRecord in
                try AdminExport.passwordHash(hash, userID: account.id, now: now)
            }
            batch.passwords.append((number, password))
        }
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
