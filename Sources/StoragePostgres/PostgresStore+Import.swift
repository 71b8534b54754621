import Foundation
import Storage

/// An import copies every record in one transaction, so its time grows with the records: it is over by
/// `importBaseAllowance` (the wait for the table locks, the emptiness check, the commit) plus `importRowAllowance` for
/// each row it writes (a million events: 600 s + about 14 hours), and each statement by the pool's reply deadline all the same.
/// A server that stops answering fails the import within one reply deadline; one that answers too slowly, within the
/// allowance.
extension PostgresStore: ImportableStore {
    /// The part of an import's time that does not depend on its size: as long as a migration may take.
    static let importBaseAllowance = PostgresMigrations.replyDeadline
    /// The time an import may take for each row it writes: 50 ms, some hundred times a local insert's round trip.
    static let importRowAllowance = Duration.milliseconds(50)

    public func importRecords(_ export: StoreExport) throws(StorageError) {
        try importRecords(export, base: Self.importBaseAllowance, perRow: Self.importRowAllowance)
    }

    /// `importRecords` over by `base` plus `perRow` for each row written.
    func importRecords(_ export: StoreExport, base: Duration, perRow: Duration) throws(StorageError) {
        var inserts: [(sql: String, values: [PostgresValue])] = []
        func insert(_ table: String, _ columns: String, _ row: [(PostgresValue, String)]) {
            var parameters = PostgresParameters()
            let values = parameters.bind(row)
            inserts.append(("INSERT INTO \(table) (\(columns)) VALUES (\(values))", parameters.values))
        }
        for user in export.users {
            insert("users", PostgresRecords.userColumns, PostgresRecords.userValues(user))
        }
        for credential in export.credentials {
            insert("credentials", PostgresRecords.credentialColumns, try PostgresRecords.credentialValues(credential))
        }
        for session in export.sessions {
            insert("sessions", PostgresRecords.sessionColumns, PostgresRecords.sessionValues(session))
        }
        for grant in export.oauthGrants {
            insert(
                "oauth_grants",
                PostgresRecords.grantColumns,
                [
                    (.bytea(grant.id), "bytea"), (.text(grant.clientID), "text"), (.bytea(grant.userID), "bytea"), (.bytea(grant.sessionID), "bytea"),
                    (.text(grant.scope), "text"), (.date(grant.authenticatedAt), "float8"), (.text(grant.authenticationMethods), "text"),
                    (.date(grant.createdAt), "float8"), (.date(grant.expiresAt), "float8"),
                ]
            )
        }
        for token in export.oauthRefreshTokens {
            insert(
                "oauth_refresh_tokens",
                "token_hash, grant_id, created_at, used_at",
                [
                    (.bytea(token.tokenHash), "bytea"), (.bytea(token.grantID), "bytea"), (.date(token.createdAt), "float8"),
                    (.optional(token.usedAt, PostgresValue.date), "float8"),
                ]
            )
        }
        for identity in export.appleIdentities {
            insert("apple_identities", PostgresRecords.appleIdentityColumns, PostgresRecords.appleIdentityValues(identity))
        }
        for token in export.appleRefreshTokens {
            insert(
                "apple_refresh_tokens",
                PostgresRecords.appleRefreshTokenColumns,
                [(.text(token.subject), "text"), (.text(token.clientID), "text"), (.bytea(token.encryptedToken), "bytea")]
            )
        }
        for identity in export.federatedIdentities {
            insert("federated_identities", PostgresRecords.federatedIdentityColumns, PostgresRecords.federatedIdentityValues(identity))
        }
        for decline in export.linkDeclines {
            insert("link_declines", "first_user_id, second_user_id", [(.bytea(decline.first), "bytea"), (.bytea(decline.second), "bytea")])
        }
        for watermark in export.appleNotificationWatermarks {
            insert(
                "apple_notification_watermarks",
                "subject, event_at, expires_at",
                [(.text(watermark.subject), "text"), (.date(watermark.eventAt), "float8"), (.date(watermark.until), "float8")]
            )
        }
        for token in export.enrollmentTokens {
            insert(
                "enrollment_tokens",
                PostgresRecords.enrollmentTokenColumns,
                [
                    (.bytea(token.tokenHash), "bytea"), (.bytea(token.userID), "bytea"), (.date(token.createdAt), "float8"),
                    (.date(token.expiresAt), "float8"),
                ]
            )
        }
        for code in export.recoveryCodes {
            insert(
                "recovery_codes",
                "user_id, code_hash, created_at",
                [(.bytea(code.userID), "bytea"), (.bytea(code.codeHash), "bytea"), (.date(code.createdAt), "float8")]
            )
        }
        for password in export.passwordHashes {
            insert(
                "password_hashes",
                PostgresRecords.passwordHashColumns,
                [(.bytea(password.userID), "bytea"), (.text(password.hash), "text"), (.date(password.createdAt), "float8")]
            )
        }
        for event in export.events {
            let row = PostgresRecords.eventValues(
                type: event.type,
                userID: event.userID,
                occurredAt: event.occurredAt,
                data: event.data,
                uuid: event.uuid
            )
            insert("events", PostgresRecords.eventColumns, [(.bigint(event.id), "int8")] + row)
        }
        let rows =
            inserts.count + export.appleNonces.count + export.appleRevocations.count
            + export.webhookSubscriptions.reduce(0) { $0 + $1.storedTypes.count } + export.webhookDeliveries.count
            + export.signingKeys.count + export.sharedSecrets.count
        let deadline = ContinuousClock.now + base + perRow * rows
        let isEmpty = try pool.withConnection(deadline: deadline) { connection throws(PostgresError) -> Bool in
            try connection.transaction { () throws(PostgresError) -> Bool in
                // Blocks every writer of these tables until the import commits, so nothing slips in between the
                // emptiness check and the copy. The wait for the lock ends before the client gives up on the statement:
                // a backend still queued for it after that would block every writer of these tables, on every node.
                try connection.execute(
                    """
                    SET LOCAL lock_timeout = \(pool.statementLockTimeoutMilliseconds);
                    LOCK TABLE users, sessions, apple_identities, apple_revocations, events IN EXCLUSIVE MODE
                    """
                )
                let rows = try connection.run(
                    """
                    SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM sessions)
                        + (SELECT count(*) FROM apple_identities) + (SELECT count(*) FROM apple_revocations)
                        + (SELECT count(*) FROM events)
                    """,
                    []
                ) { row throws(PostgresError) in try row.integer(0) }
                guard rows.first == 0 else { return false }
                for (sql, values) in inserts {
                    try connection.run(sql, values)
                }
                for (hash, expiresAt) in export.appleNonces {
                    try connection.run(
                        "INSERT INTO apple_nonces (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING",
                        [.bytea(hash), .date(expiresAt)]
                    )
                }
                for revocation in export.appleRevocations {
                    try connection.run(
                        "INSERT INTO apple_revocations (\(PostgresRecords.appleRevocationColumns)) VALUES ($1, $2, $3, $4, $5)",
                        [
                            .bigint(revocation.id), .bytea(revocation.encryptedToken), .text(revocation.clientID),
                            .date(revocation.notBefore), .bigint(Int64(revocation.attempts)),
                        ]
                    )
                }
                for subscription in export.webhookSubscriptions {
                    for type in subscription.storedTypes {
                        try connection.run(
                            "INSERT INTO webhook_subscriptions (endpoint_id, event_type) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                            [.text(subscription.endpointID), .text(type)]
                        )
                    }
                }
                for delivery in export.webhookDeliveries {
                    var parameters = PostgresParameters()
                    let values = parameters.bind(PostgresRecords.webhookDeliveryValues(delivery))
                    try connection.run(
                        "INSERT INTO webhook_deliveries (\(PostgresRecords.webhookDeliveryColumns)) VALUES (\(values))",
                        parameters.values
                    )
                }
                // Keys a node made while the database had no records signed nothing that matters, and are sealed under the
                // secret replaced below: the copied ones replace them.
                try connection.execute("DELETE FROM signing_keys")
                for key in export.signingKeys {
                    try connection.run(PostgresRecords.insertingSigningKey, PostgresRecords.signingKeyValues(key))
                }
                try connection.execute(PostgresListener.signingKeysNotification)
                // Secrets a node made while the database had no records protect nothing yet: the copied ones win.
                for (name, value) in export.sharedSecrets {
                    try connection.run(
                        "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
                        [.text(name), .bytea(value)]
                    )
                }
                // New revocations, events and deliveries must get IDs after the copied ones.
                for table in ["apple_revocations", "events", "webhook_deliveries"] {
                    try connection.execute(
                        "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), coalesce(max(id), 0) + 1, false) FROM \(table)"
                    )
                }
                return true
            }
        }
        guard isEmpty else {
            throw StorageError(.notEmpty, "the PostgreSQL database already holds passkeyd records; import only into an empty one")
        }
    }
}
