import CryptoCore
import Foundation
import Storage

extension AdminService {
    /// The largest Firebase file read (`firebase auth:export`), and its most accounts.
    public static let maximumFirebaseFileBytes = 256 << 20

    /// Imports the accounts of a `firebase auth:export` JSON file that sign in with Apple or Google, idempotently: each
    /// user with an `apple.com` or `google.com` provider becomes an account (its ID derived from the Firebase `localId`,
    /// so a second import finds it) with that Apple identity (`rawId` is Apple's `sub`, the same when the app's Team ID
    /// is unchanged) and that Google identity (`rawId` is Google's `sub`, keyed with Google's issuer and shown as
    /// provider `google`), its email and display name; its username is the email when there is one (64 bytes at most),
    /// `firebase-<localId>` otherwise. Every other user is skipped and counted by provider, and so is a disabled one.
    /// One transaction.
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
            let apple = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.appleProvider }
            let google = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.googleProvider }
            guard apple != nil || google != nil else {
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
                let account = try Self.account(user, from: apple ?? google!, now: now, token: random.uuid())
                batch.users.append((index + 1, account))
                if let apple { batch.appleIdentities.append((index + 1, try Self.appleIdentity(user, apple, of: account))) }
                if let google { batch.identities.append((index + 1, try Self.googleIdentity(user, google, of: account))) }
            } catch {
                throw error.onLine(index + 1)
            }
        }
        var report = try importBatch(batch)
        report.skipped = skipped
        return report
    }

    /// The account of a Firebase user who signs in with Apple or Google (`provider` gives what the user lacks).
    private static func account(
        _ user: FirebaseAuthExport.User,
        from provider: FirebaseAuthExport.ProviderUserInfo,
        now: Date,
        token: UUID
    ) throws(ServerError) -> UserRecord {
        guard (1...128).contains(user.localId.utf8.count) else { throw ServerError(.importInvalid, member: "localId") }
        let email = try validEmail(user.email ?? provider.email).flatMap { $0.isEmpty ? nil : $0 }
        let username = email.flatMap { $0.count <= 64 ? $0 : nil } ?? String("firebase-\(user.localId)".prefix(64))
        let name = try RelyingPartyServer.validName(username, member: "localId")
        let displayName = try (user.displayName ?? provider.displayName).map { (text: String) throws(ServerError) -> String in
            try RelyingPartyServer.validName(text, member: "displayName")
        }
        return UserRecord(
            id: DigestAlgorithm.sha256.hash(Array("firebase:\(user.localId)".utf8)),
            name: name,
            displayName: displayName ?? name,
            displayNameIsDefault: displayName == nil,
            appAccountToken: token,
            email: email,
            emailVerified: email != nil && user.emailVerified == true,
            createdAt: user.createdAt ?? now
        )
    }

    /// The Apple identity of a Firebase user with Sign in with Apple.
    private static func appleIdentity(
        _ user: FirebaseAuthExport.User,
        _ apple: FirebaseAuthExport.ProviderUserInfo,
        of account: UserRecord
    ) throws(ServerError) -> AppleIdentityRecord {
        guard let subject = apple.rawId, AdminExport.isAppleSubject(subject) else { throw ServerError(.importInvalid, member: "rawId") }
        return AppleIdentityRecord(
            subject: subject,
            userID: account.id,
            email: account.email,
            emailVerified: account.emailVerified,
            isPrivateEmail: account.email?.lowercased().hasSuffix("@privaterelay.appleid.com") == true,
            realUserStatus: nil,
            transferSubject: nil,
            createdAt: account.createdAt
        )
    }

    /// The Google identity of a Firebase user with Sign in with Google.
    private static func googleIdentity(
        _ user: FirebaseAuthExport.User,
        _ google: FirebaseAuthExport.ProviderUserInfo,
        of account: UserRecord
    ) throws(ServerError) -> FederatedIdentityRecord {
        guard let subject = google.rawId, (1...FederatedIdentityRecord.maximumSubjectBytes).contains(subject.utf8.count) else {
            throw ServerError(.importInvalid, member: "rawId")
        }
        let email = try validEmail(google.email).flatMap { $0.isEmpty ? nil : $0 }
        return FederatedIdentityRecord(
            issuer: FirebaseAuthExport.googleIssuer,
            subject: subject,
            userID: account.id,
            provider: "google",
            email: email ?? account.email,
            emailVerified: email == nil ? account.emailVerified : user.emailVerified == true,
            createdAt: account.createdAt
        )
    }
}
