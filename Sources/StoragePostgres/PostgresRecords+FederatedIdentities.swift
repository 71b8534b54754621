import Foundation
import Storage

extension PostgresRecords {
    static let federatedIdentityColumns = "issuer, subject, user_id, provider, email, email_verified, created_at, last_sign_in_at"

    func federatedIdentity(issuer: String, subject: String) throws(StorageError) -> FederatedIdentityRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.federatedIdentityColumns) FROM federated_identities WHERE issuer = $1 AND subject = $2",
                [.text(issuer), .text(subject)],
                row: Self.federatedIdentityRecord
            ).first
        }
    }

    /// The C collation compares byte-wise, as the contract says.
    func federatedIdentities(userID: [UInt8]) throws(StorageError) -> [FederatedIdentityRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                SELECT \(Self.federatedIdentityColumns) FROM federated_identities WHERE user_id = $1
                ORDER BY created_at, issuer COLLATE "C", subject COLLATE "C"
                """,
                [.bytea(userID)],
                row: Self.federatedIdentityRecord
            )
        }
    }

    func insertFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try identity.validate() }
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.federatedIdentityValues(identity))
        try run { connection throws(PostgresError) in
            try connection.run("INSERT INTO federated_identities (\(Self.federatedIdentityColumns)) VALUES (\(values))", parameters.values)
        }
    }

    func updateFederatedIdentity(_ identity: FederatedIdentityRecord) throws(StorageError) -> Bool {
        try validate { () throws(StorageError) in try identity.validate() }
        var parameters = PostgresParameters()
        let values = parameters.bind(Self.federatedIdentityValues(identity))
        return try run { connection throws(PostgresError) in
            try connection.run(
                """
                UPDATE federated_identities SET (\(Self.federatedIdentityColumns)) = ROW(\(values))
                WHERE issuer = $1 AND subject = $2
                """,
                parameters.values
            ) == 1
        }
    }

    func deleteFederatedIdentity(issuer: String, subject: String) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM federated_identities WHERE issuer = $1 AND subject = $2", [.text(issuer), .text(subject)]) == 1
        }
    }

    func moveFederatedIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            try connection.run("UPDATE federated_identities SET user_id = $2 WHERE user_id = $1", [.bytea(userID), .bytea(targetUserID)])
        }
    }

    static func federatedIdentityValues(_ identity: FederatedIdentityRecord) -> [(PostgresValue, String)] {
        [
            (.text(identity.issuer), "text"), (.text(identity.subject), "text"), (.bytea(identity.userID), "bytea"),
            (.text(identity.provider), "text"), (.optional(identity.email, PostgresValue.text), "text"),
            (.boolean(identity.emailVerified), "boolean"), (.date(identity.createdAt), "float8"),
            (.optional(identity.lastSignInAt, PostgresValue.date), "float8"),
        ]
    }

    static func federatedIdentityRecord(_ row: PostgresRow) throws(PostgresError) -> FederatedIdentityRecord {
        FederatedIdentityRecord(
            issuer: row.text(0),
            subject: row.text(1),
            userID: row.bytes(2),
            provider: row.text(3),
            email: row.isNull(4) ? nil : row.text(4),
            emailVerified: try row.boolean(5),
            createdAt: try row.date(6),
            lastSignInAt: row.isNull(7) ? nil : try row.date(7)
        )
    }
}
