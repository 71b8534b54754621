import Foundation
import Storage

/// What both drivers' signing-key migration must leave of the same pre-migration rows: user 1 (`alice`) with a session
/// of public ID `sessionID` expiring at `sessionExpiresAt` (token hash `[1]`), each test writing them in its driver's old
/// schema.
public enum SigningKeyMigration {
    public static let sessionID = [UInt8](repeating: 7, count: 16)
    public static let sessionExpiresAt = StoreSamples.now.addingTimeInterval(600)

    /// Fails unless `store` still holds the account and its session, finds the session by its public ID (an access
    /// token's `sid`) until it expires, and has an empty table of signing keys that stores and returns a key.
    public static func check(_ store: any PasskeyStore) throws {
        try expectEqual(try store.user(id: StoreSamples.userID(1))?.name, "alice", "the account")
        guard let session = try store.session(id: sessionID, now: StoreSamples.now) else {
            throw StoreContractFailure(message: "the session is not found by its ID", file: #filePath, line: #line)
        }
        try expect(session.tokenHash == [1] && session.userID == StoreSamples.userID(1), "the session's token hash and user")
        try expectEqual(session.expiresAt, sessionExpiresAt, "the session's expiry")
        try expect(try store.session(id: sessionID, now: sessionExpiresAt) == nil, "an expired session is not found")
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }, [], "no keys yet")
        let key = StoreSamples.signingKey(1, activatesAt: StoreSamples.now)
        try store.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(key) }
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }, [key], "a key")
    }
}
