import AccountEvents
import CryptoCore
import Foundation
import HTTPEdge
import Storage
import UserImport

extension AdminService {
    /// Users read per transaction by the export.
    static let exportPageSize = 200

    /// Every account with its passkeys, Apple identities and identities at OpenID providers as NDJSON (`AdminExport`), in name-key order, read a page
    /// of accounts per transaction (not one snapshot: `passkeyd migrate` copies a stopped store whole).
    public func export() throws(ServerError) -> [UInt8] {
        let header = AdminExport.Header(
            version: AdminExport.version,
            relyingPartyId: relyingPartyID,
            exportedAt: time.now
        )
        var output = AdminExport.line(header)
        var after: String?
        while true {
            let cursor = after
            let page = try transaction { transaction throws(StorageError) -> [ExportedAccount] in
                try transaction.users(namePrefix: "", after: cursor, limit: Self.exportPageSize).map { user throws(StorageError) in
                    ExportedAccount(
                        user: user,
                        passkeys: try transaction.credentials(userID: user.id),
                        appleIdentities: try transaction.appleIdentities(userID: user.id),
                        identities: try transaction.federatedIdentities(userID: user.id)
                    )
                }
            }
            for account in page {
                output += AdminExport.line(AdminExport.User(account.user, metadata: UserMetadata.value(of: account.user.metadata)))
                for passkey in account.passkeys { output += AdminExport.line(AdminExport.Passkey(passkey)) }
                for identity in account.appleIdentities { output += AdminExport.line(AdminExport.AppleIdentity(identity)) }
                for identity in account.identities { output += AdminExport.line(AdminExport.Identity(identity)) }
            }
            guard page.count == Self.exportPageSize, let last = page.last?.user.name else { return output }
            after = last
        }
    }

    /// One account of the export with what it holds.
    struct ExportedAccount: Sendable {
        let user: UserRecord
        let passkeys: [CredentialRecord]
        let appleIdentities: [AppleIdentityRecord]
        let identities: [FederatedIdentityRecord]
    }

    /// Writes `batch` in ONE transaction, all of it or, on any refusal, nothing: users upserted by ID (a new one
    /// `user.created` with `method: import`, a changed username, display name or email `user.updated`); password
    /// hashes set when new or changed (no event: they are a bridge, not a way in the person chose); passkeys, Apple
    /// identities and identities at OpenID providers added when new (`passkey.registered`, `apple.linked`,
    /// `identity.linked`) and left as they are when they exist
    /// (their counters and Apple's state are the live ones).
    /// - Throws: with the `line`: `409 username_taken`, `external_id_taken`, `credential_exists` (a passkey of another account),
    ///   `apple_identity_taken` (an Apple identity of another account), `400 import_invalid` (`userId` names no
    ///   account).
    func importBatch(_ batch: AdminExport.Batch) throws(ServerError) -> AdminImportReport {
        let now = time.now
        var line = 0
        var refusal: ServerError?
        func refuse(_ error: ServerError) -> StorageError {
            refusal = error.onLine(line)
            return StorageError(.invalidRecord, "import refused")
        }
        let report: AdminImportReport
        do {
            report = try store.transaction { transaction throws(StorageError) -> AdminImportReport in
                refusal = nil
                var report = AdminImportReport()
                for (number, user) in batch.users {
                    line = number
                    guard var stored = try transaction.user(id: user.id) else {
                        try transaction.insertUser(user)
                        try transaction.appendEvent(
                            AccountEvent.userCreated(userID: user.id, method: .import, externalID: user.externalID).event(at: now, random: random)
                        )
                        if user.disabled { try accounts.recordDisabledChange(of: user, in: transaction, at: now) }
                        report.users.created += 1
                        continue
                    }
                    let wasDisabled = stored.disabled
                    stored.disabled = batch.disabled[number] ?? stored.disabled
                    var changes: [String] = []
                    if stored.name != user.name { changes.append("username") }
                    if stored.displayName != user.displayName || stored.displayNameIsDefault != user.displayNameIsDefault {
                        changes.append("displayName")
                    }
                    if stored.email != user.email { changes.append("email") }
                    if stored.emailVerified != user.emailVerified { changes.append("emailVerified") }
                    // A line without an external id (as 0.1.0 wrote them) leaves the account's as it is.
                    if let externalID = user.externalID, stored.externalID != externalID {
                        stored.externalID = externalID
                        changes.append("externalId")
                    }
                    if let metadata = batch.metadata[number], metadata != stored.metadata {
                        stored.metadata = metadata
                        changes.append("metadata")
                    }
                    guard !changes.isEmpty || stored.disabled != wasDisabled else {
                        report.users.unchanged += 1
                        continue
                    }
                    (stored.name, stored.displayName, stored.displayNameIsDefault) = (user.name, user.displayName, user.displayNameIsDefault)
                    (stored.email, stored.emailVerified) = (user.email, user.emailVerified)
                    _ = try transaction.updateUser(stored)
                    if !changes.isEmpty {
                        try transaction.appendEvent(
                            AccountEvent.userUpdated(userID: user.id, changes: changes, externalID: stored.externalID).event(at: now, random: random)
                        )
                    }
                    if stored.disabled != wasDisabled { try accounts.recordDisabledChange(of: stored, in: transaction, at: now) }
                    report.users.updated += 1
                }
                for (number, passkey) in batch.passkeys {
                    line = number
                    if let stored = try transaction.credential(id: passkey.id) {
                        guard stored.userID == passkey.userID else { throw refuse(ServerError(.credentialExists)) }
                        report.passkeys.unchanged += 1
                        continue
                    }
                    guard try transaction.user(id: passkey.userID) != nil else { throw refuse(ServerError(.importInvalid, member: "userId")) }
                    try transaction.insertCredential(passkey)
                    try transaction.appendEvent(
                        AccountEvent.passkeyRegistered(userID: passkey.userID, credentialID: passkey.id).event(at: now, random: random)
                    )
                    report.passkeys.created += 1
                }
                for (number, identity) in batch.appleIdentities {
                    line = number
                    if let stored = try transaction.appleIdentity(subject: identity.subject) {
                        guard stored.userID == identity.userID else { throw refuse(ServerError(.appleIdentityTaken)) }
                        report.appleIdentities.unchanged += 1
                        continue
                    }
                    guard try transaction.user(id: identity.userID) != nil else { throw refuse(ServerError(.importInvalid, member: "userId")) }
                    try transaction.insertAppleIdentity(identity)
                    try transaction.appendEvent(
                        AccountEvent.appleLinked(userID: identity.userID, appleUserID: identity.subject, realUserStatus: identity.realUserStatus)
                            .event(at: now, random: random)
                    )
                    report.appleIdentities.created += 1
                }
                for (number, password) in batch.passwords {
                    line = number
                    let stored = try transaction.passwordHash(userID: password.userID)
                    guard stored?.hash != password.hash else {
                        report.passwords.unchanged += 1
                        continue
                    }
                    try transaction.setPasswordHash(password)
                    if stored == nil { report.passwords.created += 1 } else { report.passwords.updated += 1 }
                }
                for (number, identity) in batch.identities {
                    line = number
                    if let stored = try transaction.federatedIdentity(issuer: identity.issuer, subject: identity.subject) {
                        guard stored.userID == identity.userID else { throw refuse(ServerError(.identityTaken)) }
                        report.identities.unchanged += 1
                        continue
                    }
                    guard try transaction.user(id: identity.userID) != nil else { throw refuse(ServerError(.importInvalid, member: "userId")) }
                    try transaction.insertFederatedIdentity(identity)
                    let linked = AccountEvent.identityLinked(
                        userID: identity.userID,
                        provider: identity.provider,
                        issuer: identity.issuer,
                        subject: identity.subject
                    )
                    try transaction.appendEvent(linked.event(at: now, random: random))
                    report.identities.created += 1
                }
                return report
            }
        } catch {
            if let refusal { throw refusal }
            let mapped = ServerError.storage(error)
            switch error.code {
            case .usernameTaken, .externalIDTaken, .credentialExists, .appleIdentityTaken, .federatedIdentityTaken: throw mapped.onLine(line)
            case .duplicateKey, .invalidRecord: throw ServerError(.importInvalid, detail: error.description).onLine(line)
            default: throw mapped
            }
        }
        webhooks.wake()
        return report
    }
}
