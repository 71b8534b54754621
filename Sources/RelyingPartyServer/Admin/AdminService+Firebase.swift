import CryptoCore
import Foundation
import Storage

extension AdminService {
    /// The largest Firebase file read (`firebase auth:export`), and its most accounts.
    public static let maximumFirebaseFileBytes = 256 << 20

    /// Imports the accounts of a `firebase auth:export` JSON file that sign in with Apple, idempotently: each user with
    /// an `apple.com` provider becomes an account (its ID derived from the Firebase `localId`, so a second import finds
    /// it) with that Apple identity (`rawId` is Apple's `sub`, the same when the app's Team ID is unchanged), its email
    /// and display name; its username is the email when there is one (64 bytes at most), `firebase-<localId>`
    /// otherwise. Every other user is skipped and counted by provider, and so is a disabled one. One transaction.
    /// - Throws: `400 import_invalid` for a file that is not Firebase's format, too large or with too many users (with
    ///   `line`: the user's position in the file, from 1); what `importBatch` throws.
    public func importFirebase(_ body: [UInt8]) throws(ServerError) -> AdminImportReport {
        guard body.count <= Self.maximumFirebaseFileBytes,
            let file = try? JSONDecoder().decode(FirebaseAuthExport.self, from: Data(body)),
            file.users.count <= AdminExport.maximumLines
        else { throw ServerError(.importInvalid, member: "users") }
        var batch = AdminExport.Batch()
        var skipped = AdminImportReport.Skipped()
        let now = time.now
        for (index, user) in file.users.enumerated() {
            let providers = user.providerUserInfo.map(\.providerId)
            guard let apple = user.providerUserInfo.first(where: { $0.providerId == FirebaseAuthExport.appleProvider }) else {
                skipped.count += 1
                skipped.providers[providers.isEmpty ? "none" : providers.sorted().joined(separator: "+"), default: 0] += 1
                continue
            }
            guard user.disabled != true else {
                skipped.count += 1
                skipped.disabled += 1
                continue
            }
            do throws(ServerError) {
                let (account, identity) = try Self.account(user, apple: apple, now: now, token: random.uuid())
                batch.users.append((index + 1, account))
                batch.appleIdentities.append((index + 1, identity))
            } catch {
                throw error.onLine(index + 1)
            }
        }
        var report = try importBatch(batch)
        report.skipped = skipped
        return report
    }

    /// The account and Apple identity of a Firebase user with Sign in with Apple.
    private static func account(
        _ user: FirebaseAuthExport.User,
        apple: FirebaseAuthExport.ProviderUserInfo,
        now: Date,
        token: UUID
    ) throws(ServerError) -> (UserRecord, AppleIdentityRecord) {
        guard (1...128).contains(user.localId.utf8.count) else { throw ServerError(.importInvalid, member: "localId") }
        guard let subject = apple.rawId, AdminExport.isAppleSubject(subject) else { throw ServerError(.importInvalid, member: "rawId") }
        let email = try validEmail(user.email ?? apple.email).flatMap { $0.isEmpty ? nil : $0 }
        let username = email.flatMap { $0.count <= 64 ? $0 : nil } ?? String("firebase-\(user.localId)".prefix(64))
        let name = try RelyingPartyServer.validName(username, member: "localId")
        let displayName = try (user.displayName ?? apple.displayName).map { (text: String) throws(ServerError) -> String in
            try RelyingPartyServer.validName(text, member: "displayName")
        }
        let createdAt = user.createdAt ?? now
        let userID = DigestAlgorithm.sha256.hash(Array("firebase:\(user.localId)".utf8))
        let account = UserRecord(
            id: userID,
            name: name,
            displayName: displayName ?? name,
            displayNameIsDefault: displayName == nil,
            appAccountToken: token,
            email: email,
            emailVerified: email != nil && user.emailVerified == true,
            createdAt: createdAt
        )
        let identity = AppleIdentityRecord(
            subject: subject,
            userID: userID,
            email: email,
            emailVerified: email != nil && user.emailVerified == true,
            isPrivateEmail: email?.lowercased().hasSuffix("@privaterelay.appleid.com") == true,
            realUserStatus: nil,
            transferSubject: nil,
            createdAt: createdAt
        )
        return (account, identity)
    }
}
