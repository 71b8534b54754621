import Foundation
import Storage

extension SQLiteRecords {
    static let signingKeyColumns = "id, algorithm, public_jwk, sealed_private_key, created_at, activates_at, retires_at, expires_at"

    func signingKeys() throws(StorageError) -> [SigningKeyRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.signingKeyColumns) FROM signing_keys ORDER BY activates_at, id").run([]) {
                row throws(SQLiteError) in Self.signingKeyRecord(row)
            }
        }
    }

    static func signingKeyRecord(_ row: SQLiteRow) -> SigningKeyRecord {
        SigningKeyRecord(
            id: row.text(0),
            algorithm: row.text(1),
            publicJWK: row.blob(2),
            sealedPrivateKey: row.blob(3),
            createdAt: row.date(4),
            activatesAt: row.date(5),
            retiresAt: row.isNull(6) ? nil : row.date(6),
            expiresAt: row.isNull(7) ? nil : row.date(7)
        )
    }

    func insertSigningKey(_ key: SigningKeyRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try key.validate() }
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO signing_keys (\(Self.signingKeyColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)").run([
                .text(key.id), .text(key.algorithm), .blob(key.publicJWK), .blob(key.sealedPrivateKey), .date(key.createdAt),
                .date(key.activatesAt), key.retiresAt.map { .date($0) } ?? .null, key.expiresAt.map { .date($0) } ?? .null,
            ])
        }
    }

    func retireSigningKey(id: String, retiresAt: Date, expiresAt: Date) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE signing_keys SET retires_at = ?2, expires_at = ?3 WHERE id = ?1")
                .run([.text(id), .date(retiresAt), .date(expiresAt)])
        } > 0
    }

    func deleteSigningKey(id: String) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in try connection.statement("DELETE FROM signing_keys WHERE id = ?1").run([.text(id)]) } > 0
    }
}
