import Foundation

extension InMemoryTransaction {
    func insertAuthorizationCode(_ code: AuthorizationCodeRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try code.validate()
            guard state.authorizationCodes[code.codeHash] == nil else {
                throw StorageError(.duplicateKey, "an authorization code with this hash already exists")
            }
            guard state.users[code.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.authorizationCodes[code.codeHash] = code
        }
    }

    func useAuthorizationCode(hash: [UInt8], now: Date) throws(StorageError) -> AuthorizationCodeRecord? {
        try run { state in
            guard let code = state.authorizationCodes[hash] else { return nil }
            if code.usedAt == nil { state.authorizationCodes[hash]?.usedAt = now }
            return code
        }
    }

    func insertOAuthGrant(_ grant: OAuthGrantRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            try grant.validate()
            guard state.oauthGrants[grant.id] == nil else { throw StorageError(.duplicateKey, "a grant with this ID already exists") }
            guard state.users[grant.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.oauthGrants[grant.id] = grant
        }
    }

    func oauthGrant(id: [UInt8]) throws(StorageError) -> OAuthGrantRecord? {
        try run { $0.oauthGrants[id] }
    }

    func oauthGrants(userID: [UInt8], clientID: String) throws(StorageError) -> [OAuthGrantRecord] {
        try run { state in
            state.oauthGrants.values.filter { $0.userID == userID && $0.clientID == clientID }.sorted {
                $0.createdAt != $1.createdAt ? $0.createdAt < $1.createdAt : $0.id.lexicographicallyPrecedes($1.id)
            }
        }
    }

    func deleteOAuthGrant(id: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.oauthGrants.removeValue(forKey: id) != nil else { return false }
            state.refreshTokens = state.refreshTokens.filter { $0.value.grantID != id }
            return true
        }
    }

    func deleteOAuthGrants(userID: [UInt8]) throws(StorageError) -> Int {
        try run { state in
            let grants = Set(state.oauthGrants.values.filter { $0.userID == userID }.map(\.id))
            state.oauthGrants = state.oauthGrants.filter { !grants.contains($0.key) }
            state.refreshTokens = state.refreshTokens.filter { !grants.contains($0.value.grantID) }
            state.authorizationCodes = state.authorizationCodes.filter { $0.value.userID != userID }
            return grants.count
        }
    }

    func insertRefreshToken(_ token: RefreshTokenRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.refreshTokens[token.tokenHash] == nil else {
                throw StorageError(.duplicateKey, "a refresh token with this hash already exists")
            }
            guard state.oauthGrants[token.grantID] != nil else { throw StorageError(.notFound, "the grant does not exist") }
            state.refreshTokens[token.tokenHash] = token
        }
    }

    func refreshToken(hash: [UInt8]) throws(StorageError) -> RefreshTokenRecord? {
        try run { $0.refreshTokens[hash] }
    }

    func useRefreshToken(hash: [UInt8], now: Date) throws(StorageError) -> RefreshTokenRecord? {
        try run { state in
            guard let token = state.refreshTokens[hash] else { return nil }
            if token.usedAt == nil { state.refreshTokens[hash]?.usedAt = now }
            return token
        }
    }

    func purgeExpiredOAuthRecords(now: Date) throws(StorageError) -> Int {
        try run { state in
            let codes = state.authorizationCodes.count
            state.authorizationCodes = state.authorizationCodes.filter { now < $0.value.expiresAt }
            let expired = Set(state.oauthGrants.values.filter { $0.expiresAt <= now }.map(\.id))
            state.oauthGrants = state.oauthGrants.filter { !expired.contains($0.key) }
            state.refreshTokens = state.refreshTokens.filter { !expired.contains($0.value.grantID) }
            return codes - state.authorizationCodes.count + expired.count
        }
    }
}
