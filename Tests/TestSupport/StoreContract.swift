import Foundation
import Storage

/// The contract every `PasskeyStore` driver must meet, as functions taking a factory of fresh stores.
/// Run `StoreContract.checks` against each driver.
public enum StoreContract {
    /// Every check, named for the clause it covers.
    public static let checks: [StoreContractCheck] =
        [
            StoreContractCheck(name: "lookups of missing records return nil", run: missingRecordsAreNil)
        ] + userChecks + usernameChecks + externalIDChecks + passwordChecks + credentialChecks + challengeChecks + sessionChecks + ceremonyChecks
        + spentChallengeChecks + expectedSignInChecks + transactionChecks + accountChecks + accountRecoveryChecks + appleChecks
        + federatedIdentityChecks
        + signingKeyChecks + openIDProviderChecks + eventChecks
        + webhookChecks + statusChecks + disabledUserChecks + mailOutboxChecks + emailTokenChecks
        + registrationMailChecks + sessionLineageChecks + mailBounceChecks

    /// Registers a new account with `completeRegistration` and a session of its own (derived from the owner and the
    /// credential's number, so that no two calls of a check collide), without events.
    static func register(_ store: any PasskeyStore, _ user: UserRecord, _ credential: CredentialRecord) throws(StorageError) {
        let key = [credential.userID[0], credential.id[1]]
        let session = SessionRecord(
            tokenHash: [0x5E] + key + [UInt8](repeating: 0, count: 29),
            id: [0x1E] + key + [UInt8](repeating: 0, count: 13),
            userID: credential.userID,
            method: .passkey,
            credentialID: credential.id,
            userVerified: false,
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(60)
        )
        try store.completeRegistration(newUser: user, credential: credential, session: session, events: [])
    }

    public static func missingRecordsAreNil(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try expectEqual(try store.user(id: StoreSamples.userID(9)), nil, "user(id:)")
        try expectEqual(try store.user(name: "nobody"), nil, "user(name:)")
        try expectEqual(try store.credential(id: [1, 2, 3]), nil, "credential(id:)")
        try expectEqual(try store.credentials(userID: StoreSamples.userID(9)), [], "credentials(userID:)")
        try expectEqual(try store.session(tokenHash: [1], now: StoreSamples.now), nil, "session")
        try expectEqual(try store.takeChallenge([1], now: StoreSamples.now), .unknown, "takeChallenge")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(9)) },
            false,
            "deleteUser"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSession(tokenHash: [1]) },
            [],
            "deleteSession"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.deleteSessions(userID: StoreSamples.userID(9), except: nil) },
            [],
            "deleteSessions"
        )
        try store.recordSessionUse(tokenHash: [1], at: StoreSamples.now)
    }

}
