import Foundation
import Storage

extension SQLiteRecords {
    static let authorizationCodeColumns = """
        code_hash, client_id, redirect_uri, code_challenge, nonce, scope, user_id, session_id, authenticated_at, amr, grant_id, \
        created_at, expires_at, used_at
        """

    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try code.validate() }
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "INSERT INTO oauth_codes (\(Self.authorizationCodeColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
            ).run([
                .blob(code.codeHash), .text(code.clientID), .text(code.redirectURI), .text(code.codeChallenge), code.nonce.map { .text($0) } ?? .null,
                .text(code.scope), .blob(code.userID), .blob(code.sessionID), .date(code.authenticatedAt), .text(code.authenticationMethods),
                .blob(code.grantID), .date(code.createdAt), .date(code.expiresAt), code.usedAt.map { .date($0) } ?? .null,
            ])
        }
    }

    /// The read and the write run in the transaction's write lock (`BEGIN IMMEDIATE`), so one caller gets it unused.
    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord? {
        try run { connection throws(SQLiteError) in
            let found = try connection.statement("SELECT \(Self.authorizationCodeColumns) FROM oauth_codes WHERE code_hash = ?1")
                .run([.blob(hash)], row: Self.authorizationCodeRecord).first
            if found != nil {
                try connection.statement("UPDATE oauth_codes SET used_at = ?2 WHERE code_hash = ?1 AND used_at IS NULL").run([
                    .blob(hash), .date(now),
                ])
            }
            return found
        }
    }

    static func authorizationCodeRecord(_ row: SQLiteRow) throws(SQLiteError) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            codeHash: row.blob(0),
            clientID: row.text(1),
            redirectURI: row.text(2),
            codeChallenge: row.text(3),
            nonce: row.isNull(4) ? nil : row.text(4),
            scope: row.text(5),
            userID: row.blob(6),
            sessionID: row.blob(7),
            authenticatedAt: row.date(8),
            authenticationMethods: row.text(9),
            grantID: row.blob(10),
            createdAt: row.date(11),
            expiresAt: row.date(12),
            usedAt: row.isNull(13) ? nil : row.date(13)
        )
    }

    static let grantColumns = "id, client_id, user_id, session_id, scope, authenticated_at, amr, created_at, expires_at"

    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError) {
        try validate { () throws(StorageError) in try grant.validate() }
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO oauth_grants (\(Self.grantColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)").run([
                .blob(grant.id), .text(grant.clientID), .blob(grant.userID), .blob(grant.sessionID), .text(grant.scope),
                .date(grant.authenticatedAt), .text(grant.authenticationMethods), .date(grant.createdAt), .date(grant.expiresAt),
            ])
        }
    }

    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT \(Self.grantColumns) FROM oauth_grants WHERE id = ?1").run([.blob(id)], row: Self.grantRecord).first
        }
    }

    func oauthGrants(userID: [UInt8], clientID: String) throws(StorageError) -> [OAuthGrantRecord] {
        try run { connection throws(SQLiteError) in
            try connection.statement(
                "SELECT \(Self.grantColumns) FROM oauth_grants WHERE user_id = ?1 AND client_id = ?2 ORDER BY created_at, id"
            ).run([.blob(userID), .text(clientID)], row: Self.grantRecord)
        }
    }

    static func grantRecord(_ row: SQLiteRow) throws(SQLiteError) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: row.blob(0),
            clientID: row.text(1),
            userID: row.blob(2),
            sessionID: row.blob(3),
            scope: row.text(4),
            authenticatedAt: row.date(5),
            authenticationMethods: row.text(6),
            createdAt: row.date(7),
            expiresAt: row.date(8)
        )
    }

    /// Its refresh tokens go with it (ON DELETE CASCADE).
    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM oauth_grants WHERE id = ?1").run([.blob(id)]) == 1
        }
    }

    /// Through `oauth_grants_by_user`; the refresh tokens go by their foreign key.
    func deleteOAuthGrants(userID: [UInt8]) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            try connection.statement("DELETE FROM oauth_codes WHERE user_id = ?1").run([.blob(userID)])
            return try connection.statement("DELETE FROM oauth_grants WHERE user_id = ?1").run([.blob(userID)])
        }
    }

    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError) {
        try run { connection throws(SQLiteError) in
            try connection.statement("INSERT INTO oauth_refresh_tokens (token_hash, grant_id, created_at, used_at) VALUES (?1, ?2, ?3, ?4)")
                .run([.blob(token.tokenHash), .blob(token.grantID), .date(token.createdAt), token.usedAt.map { .date($0) } ?? .null])
        }
    }

    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord? {
        try run { connection throws(SQLiteError) in
            try connection.statement("SELECT token_hash, grant_id, created_at, used_at FROM oauth_refresh_tokens WHERE token_hash = ?1")
                .run([.blob(hash)], row: Self.refreshTokenRecord).first
        }
    }

    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord? {
        let found = try refreshToken(hash: hash)
        guard found != nil else { return nil }
        try run { connection throws(SQLiteError) in
            try connection.statement("UPDATE oauth_refresh_tokens SET used_at = ?2 WHERE token_hash = ?1 AND used_at IS NULL")
                .run([.blob(hash), .date(now)])
        }
        return found
    }

    static func refreshTokenRecord(_ row: SQLiteRow) throws(SQLiteError) -> RefreshTokenRecord {
        RefreshTokenRecord(tokenHash: row.blob(0), grantID: row.blob(1), createdAt: row.date(2), usedAt: row.isNull(3) ? nil : row.date(3))
    }

    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int {
        try run { connection throws(SQLiteError) in
            let codes = try connection.statement("DELETE FROM oauth_codes WHERE expires_at <= ?1").run([.date(now)])
            return codes + (try connection.statement("DELETE FROM oauth_grants WHERE expires_at <= ?1").run([.date(now)]))
        }
    }
}
