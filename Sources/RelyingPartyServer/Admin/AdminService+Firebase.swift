import CryptoCore
import Foundation
import HTTPEdge
import PasswordHashes
import Storage
import UserImport

extension AdminService {
    /// Adds a user of a `firebase auth:export` file to `batch` when it signs in with Apple, Google or, given the
    /// project's `hashParameters`, a password: it becomes an account (its ID derived from the Firebase `localId`, so a
    /// second import finds it) with its Apple identity (`rawId` is Apple's `sub`, the same when the app's Team ID is
    /// unchanged), its Google identity (`rawId` is Google's `sub`, keyed with Google's issuer and shown as provider
    /// `google`) and its password hash (Firebase's scrypt), its email and display name; its username is the email when
    /// there is one (64 bytes at most), `firebase-<localId>` otherwise. Every other user is skipped and counted by
    /// provider (password users too without `hashParameters`), and so is a disabled one.
    /// `number`: the user's position in the file, which the batch's refusals name.
    /// - Throws: `400 import_invalid` for a user out of bounds, or whose hash the parameters cannot read.
    func addFirebaseUser(
        _ user: FirebaseAuthExport.User,
        hashParameters: FirebaseHashParameters?,
        now: Date,
        line number: Int,
        to batch: inout AdminExport.Batch,
        skipped: inout AdminImportReport.Skipped
    ) throws(ServerError) {
        let apple = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.appleProvider }
        let google = user.providerUserInfo.first { $0.providerId == FirebaseAuthExport.googleProvider }
        let password = hashParameters.flatMap { parameters in user.passwordHash.map { (parameters, $0) } }
        guard apple != nil || google != nil || password != nil else {
            skipped.count += 1
            skipped.count(providers: user.providerUserInfo.map(\.providerId))
            return
        }
        guard user.disabled != true else {
            skipped.count += 1
            skipped.disabled += 1
            return
        }
        let account = try Self.account(user, apple: apple ?? google, now: now, token: random.uuid())
        batch.users.append((number, account))
        if let apple {
            batch.appleIdentities.append((number, try Self.appleIdentity(user, apple: apple, account: account)))
        }
        if let google {
            batch.identities.append((number, try Self.googleIdentity(user, google, of: account)))
        }
        if let (parameters, hash) = password {
            batch.passwords.append((number, try Self.passwordHash(hash, salt: user.salt, parameters: parameters, userID: account.id, now: now)))
        }
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
