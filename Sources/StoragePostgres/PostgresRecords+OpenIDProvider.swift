import Foundation
import Storage

extension PostgresRecords {
    static let authorizationCodeColumns = """
        code_hash, client_id, redirect_uri, code_challenge, nonce, scope, user_id, session_id, authenticated_at, amr, grant_id, \
        created_at, expires_at, used_at
        """

    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try code.validate() }
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                INSERT INTO oauth_codes (\(Self.authorizationCodeColumns))
                VALUES ($1, $2, $3, $4, $5::text, $6, $7, $8, $9, $10, $11, $12, $13, $14::float8)
                """,
                [
                    .bytea(code.codeHash), .text(code.clientID), .text(code.redirectURI), .text(code.codeChallenge),
                    .optional(code.nonce, PostgresValue.text), .text(code.scope), .bytea(code.userID), .bytea(code.sessionID),
                    .date(code.authenticatedAt), .text(code.authenticationMethods), .bytea(code.grantID), .date(code.createdAt),
                    .date(code.expiresAt), .optional(code.usedAt, PostgresValue.date),
                ]
            )
        }
    }

    /// One statement: the row is locked (`FOR UPDATE`) and read as it was, and marked used when it was not, so that of
    /// concurrent callers one gets it unused.
    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                WITH found AS (SELECT \(Self.authorizationCodeColumns) FROM oauth_codes WHERE code_hash = $1 FOR UPDATE),
                used AS (UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL RETURNING code_hash)
                SELECT \(Self.authorizationCodeColumns) FROM found
                """,
                [.bytea(hash), .date(now)],
                row: Self.authorizationCodeRecord
            ).first
        }
    }

    static func authorizationCodeRecord(_ row: PostgresRow) throws(PostgresError) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            codeHash: row.bytes(0),
            clientID: row.text(1),
            redirectURI: row.text(2),
            codeChallenge: row.text(3),
            nonce: row.isNull(4) ? nil : row.text(4),
            scope: row.text(5),
            userID: row.bytes(6),
            sessionID: row.bytes(7),
            authenticatedAt: try row.date(8),
            authenticationMethods: row.text(9),
            grantID: row.bytes(10),
            createdAt: try row.date(11),
            expiresAt: try row.date(12),
            usedAt: row.isNull(13) ? nil : try row.date(13)
        )
    }

    static let grantColumns = "id, client_id, user_id, session_id, scope, authenticated_at, amr, created_at, expires_at"

    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try grant.validate() }
        try run { connection throws(PostgresError) in
            try connection.run(
                "INSERT INTO oauth_grants (\(Self.grantColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                [
                    .bytea(grant.id), .text(grant.clientID), .bytea(grant.userID), .bytea(grant.sessionID), .text(grant.scope),
                    .date(grant.authenticatedAt), .text(grant.authenticationMethods), .date(grant.createdAt), .date(grant.expiresAt),
                ]
            )
        }
    }

    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord? {
        try run { connection throws(PostgresError) in
            try connection.run("SELECT \(Self.grantColumns) FROM oauth_grants WHERE id = $1", [.bytea(id)], row: Self.grantRecord).first
        }
    }

    func oauthGrants(userID: [UInt8], clientID: String) throws(StorageError) -> [OAuthGrantRecord] {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE user_id = $1 AND client_id = $2 ORDER BY created_at, id",
                [.bytea(userID), .text(clientID)],
                row: Self.grantRecord
            )
        }
    }

    static func grantRecord(_ row: PostgresRow) throws(PostgresError) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: row.bytes(0),
            clientID: row.text(1),
            userID: row.bytes(2),
            sessionID: row.bytes(3),
            scope: row.text(4),
            authenticatedAt: try row.date(5),
            authenticationMethods: row.text(6),
            createdAt: try row.date(7),
            expiresAt: try row.date(8)
        )
    }

    /// Its refresh tokens go with it (ON DELETE CASCADE).
    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(PostgresError) in
            try connection.run("DELETE FROM oauth_grants WHERE id = $1", [.bytea(id)]) == 1
        }
    }

    /// Through `oauth_grants_by_user`; the refresh tokens go by their foreign key.
    func deleteOAuthGrants(userID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            _ = try connection.run("DELETE FROM oauth_codes WHERE user_id = $1", [.bytea(userID)])
            return try connection.run("DELETE FROM oauth_grants WHERE user_id = $1", [.bytea(userID)])
        }
    }

    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError) {
        try run { connection throws(PostgresError) in
            try connection.run(
                "INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, used_at) VALUES ($1, $2, $3, $4::float8)",
                [.bytea(token.tokenHash), .bytea(token.grantID), .date(token.createdAt), .optional(token.usedAt, PostgresValue.date)]
            )
        }
    }

    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                "SELECT token_hash, grant_id, created_at, used_at FROM oauth_refresh_tokens WHERE token_hash = $1",
                [.bytea(hash)],
                row: Self.refreshTokenRecord
            ).first
        }
    }

    /// As `useAuthorizationCode`: one statement, the row locked and read as it was.
    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord? {
        try run { connection throws(PostgresError) in
            try connection.run(
                """
                WITH found AS (SELECT token_hash, grant_id, created_at, used_at FROM oauth_refresh_tokens WHERE token_hash = $1 FOR UPDATE),
                used AS (UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL RETURNING token_hash)
                SELECT token_hash, grant_id, created_at, used_at FROM found
                """,
                [.bytea(hash), .date(now)],
                row: Self.refreshTokenRecord
            ).first
        }
    }

    static func refreshTokenRecord(_ row: PostgresRow) throws(PostgresError) -> RefreshTokenRecord {
        RefreshTokenRecord(tokenHash: row.bytes(0), grantID: row.bytes(1), createdAt: try row.date(2), usedAt: row.isNull(3) ? nil : try row.date(3))
    }

    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int {
        try run { connection throws(PostgresError) in
            let codes = try connection.run("DELETE FROM oauth_codes WHERE expires_at <= $1", [.date(now)])
            return codes + (try connection.run("DELETE FROM oauth_grants WHERE expires_at <= $1", [.date(now)]))
        }
    }
}
