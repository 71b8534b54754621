import CryptoCore
import Foundation
import PasswordHashes
import Storage
import UserImport

extension AdminService {
    /// Imports the accounts of a `firebase auth:export` JSON file that sign in with Apple, Google or, given the
    /// project's `hashParameters`, a password, idempotently: each such user becomes an account (its ID derived from the
    /// Firebase `localId`, so a second import finds it) with its Apple identity (`rawId` is Apple's `sub`, the same
    /// when the app's Team ID is unchanged), its Google identity (`rawId` is Google's `sub`, keyed with Google's issuer
    /// and shown as provider `google`) and its password hash (Firebase's scrypt), its email and display name; its
    /// username is the email when there is one (64 bytes at most), `firebase-<localId>` otherwise. Every other user is
    /// skipped and counted by provider (password users too without `hashParameters`), and so is a disabled one. One
    /// transaction.
    /// - Throws: `400 import_invalid` for a file that is not Firebase's format, too large or with too many users, or a
    ///   user's hash that the parameters cannot read (with `line`: the user's position in the file, from 1); what
    ///   `importBatch` throws.
    public func importFirebase(_ body: [UInt8], hashParameters: FirebaseHashParameters? = nil) throws(ServerError) -> AdminImportReport {
        let file = try ServerError.importing { () throws(UserImportError) -> FirebaseAuthExport in try FirebaseAuthExport.read(body) }
        var batch = AdminExport.Batch()
        var skipped = AdminImportReport.Skipped()
        let now = time.now
        for (index, user) in file.users.enumerated() {
            let providers = user.providerUserInfo.map(\.providerId)
            let apple = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.appleProvider }
            let google = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.googleProvider }
            let password = hashParameters.flatMap { parameters in user.passwordHash.map { (parameters, $0) } }
            guard apple != nil || google != nil || password != nil else {
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
                let account = try Self.account(user, apple: apple ?? google, now: now, token: random.uuid())
                batch.users.append((index + 1, account))
                if let apple {
                    batch.appleIdentities.append((index + 1, try Self.appleIdentity(user, apple: apple, account: account)))
                }
                if let google {
                    batch.identities.append((index + 1, try Self.googleIdentity(user, google, of: account)))
                }
                if let (parameters, hash) = password {
                    batch.passwords.append(
                        (index + 1, try Self.passwordHash(hash, salt: user.salt, parameters: parameters, userID: account.id, now: now))
                    )
                }
            } catch {
                throw error.onLine(index + 1)
            }
        }
        var report = try importBatch(batch)
        report.skipped = skipped
        return report
    }

    /// The account of a Firebase user (`apple`: the Apple or Google provider entry, for what the user lacks).
    private static func account(
        _ user: FirebaseAuthExport.User,
        apple: FirebaseAuthExport.ProviderUserInfo?,
        now: Date,
        token: UUID
    ) throws(ServerError) -> UserRecord {
        guard (1...128).contains(user.localId.utf8.count) else { throw ServerError(.importInvalid, member: "localId") }
        let email = try validEmail(user.email ?? apple?.email).flatMap { $0.isEmpty ? nil : $0 }
        let displayName = try (user.displayName ?? apple?.displayName).map { (text: String) throws(ServerError) -> String in
            try RelyingPartyServer.validName(text, member: "displayName")
        }
        return try newImportedAccount(
            source: "firebase",
            key: user.localId,
            email: email,
            emailVerified: user.emailVerified == true,
            displayName: displayName,
            createdAt: user.createdAt ?? now,
            token: token
        )
    }

    /// The Apple identity of a Firebase user with Sign in with Apple.
    private static func appleIdentity(
        _ user: FirebaseAuthExport.User,
        apple: FirebaseAuthExport.ProviderUserInfo,
        account: UserRecord
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

    /// A password user's hash under the project's parameters (`400 import_invalid` naming what does not read).
    private static func passwordHash(
        _ hash: String,
        salt: String?,
        parameters: FirebaseHashParameters,
        userID: [UInt8],
        now: Date
    ) throws(ServerError) -> PasswordHashRecord {
        do {
            let parsed = try PasswordHash.firebaseScrypt(
                passwordHash: hash,
                salt: salt ?? "",
                signerKey: parameters.signerKey,
                saltSeparator: parameters.saltSeparator,
                rounds: parameters.rounds,
                memoryCost: parameters.memoryCost
            )
            return PasswordHashRecord(userID: userID, hash: parsed.encoded, createdAt: now)
        } catch {
            throw ServerError(.importInvalid, member: "passwordHash", detail: error.description)
        }
    }
}
