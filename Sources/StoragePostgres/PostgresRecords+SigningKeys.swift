import Foundation
import Storage

extension PostgresRecords {
    static let signingKeyColumns = "id, algorithm, public_jwk, sealed_private_key, created_at, activates_at, retires_at, expires_at"

    func signingKeys() throws(StorageError) -> [SigningKeyRecord] {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.signingKeyColumns) FROM signing_keys ORDER BY activates_at, id", []) { row throws(PostgresError) in
                SigningKeyRecord(
                    id: row.text(0),
                    algorithm: row.text(1),
                    publicJWK: row.bytes(2),
                    sealedPrivateKey: row.bytes(3),
                    createdAt: try row.date(4),
                    activatesAt: try row.date(5),
                    retiresAt: row.isNull(6) ? nil : try row.date(6),
                    expiresAt: row.isNull(7) ? nil : try row.date(7)
                )
            }
        }
    }

    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try key.validate() }
        try run { connection throws(PostgresError) in try connection.run(Self.insertingSigningKey, Self.signingKeyValues(key)) }
        try announceSigningKeyChange()
    }

    /// The statement of `insertSigningKey` (and of the import), with `signingKeyValues`.
    static let insertingSigningKey =
        "INSERT INTO signing_keys (\(signingKeyColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7::float8, $8::float8)"

    static func signingKeyValues(_ key: SigningKeyRecord) -> [PostgresValue] {
        [
            .text(key.id), .text(key.algorithm), .bytea(key.publicJWK), .bytea(key.sealedPrivateKey), .date(key.createdAt),
            .date(key.activatesAt), .optional(key.retiresAt, PostgresValue.date), .optional(key.expiresAt, PostgresValue.date),
        ]
    }

    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool {
        let retired = try run { connection throws(PostgresError) in
            try connection.run(
                "UPDATE signing_keys SET retires_at = $2, expires_at = $3 WHERE id = $1",
                [.text(id), .date(retiresAt), .date(expiresAt)]
            )
        }
        if retired > 0 { try announceSigningKeyChange() }
        return retired > 0
    }

    func deleteSigningKey(id: String) throws(StorageError) -> Bool {
        let deleted = try run { connection throws(PostgresError) in try connection.run("DELETE FROM signing_keys WHERE id = $1", [.text(id)]) }
        if deleted > 0 { try announceSigningKeyChange() }
        return deleted > 0
    }

    /// Tells every node's listener (`PostgresListener`) that the keys changed: PostgreSQL delivers the notification
    /// when the transaction commits, and once however many times a transaction sends it.
    func announceSigningKeyChange() throws(StorageError) {
        try run { connection throws(PostgresError) in try connection.execute(PostgresListener.signingKeysNotification) }
    }
}
