import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for the OpenID provider: authorization codes, grants and refresh tokens.
extension StoreContract {
    static let openIDProviderChecks: [StoreContractCheck] = [
        StoreContractCheck(
            name: "authorization codes: stored, used once, replay seen, purged, deleted with the user",
            run: authorizationCodesAreSingleUse
        ),
        StoreContractCheck(name: "authorization codes: 16 threads using one: one winner", run: concurrentAuthorizationCodeHasOneWinner),
        StoreContractCheck(name: "grants: refresh tokens rotate, a grant's deletion takes its tokens, purged", run: grantsHoldRefreshTokens),
        StoreContractCheck(name: "refresh tokens: 16 threads using one: one winner", run: concurrentRefreshTokenHasOneWinner),
        StoreContractCheck(name: "grants: listed by account and client, oldest first", run: grantsAreListedByAccountAndClient),
    ]

    static func sampleCode(_ number: UInt8, owner: UInt8, expiresIn seconds: TimeInterval = 60) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            codeHash: [UInt8](repeating: 0xC0 | number, count: 32),
            clientID: "client-\(number)",
            redirectURI: "https://app.example/callback?n=\(number)",
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            nonce: number.isMultiple(of: 2) ? nil : "nonce-\(number)",
            scope: "openid email",
            userID: StoreSamples.userID(owner),
            sessionID: [UInt8](repeating: 0x5D, count: 16),
            authenticatedAt: StoreSamples.now.addingTimeInterval(-30.25),
            authenticationMethods: "pop user mfa",
            grantID: [UInt8](repeating: 0x6A, count: 15) + [number],
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(seconds)
        )
    }

    static func sampleGrant(_ number: UInt8, owner: UInt8, expiresIn seconds: TimeInterval = 86_400) -> OAuthGrantRecord {
        OAuthGrantRecord(
            id: [UInt8](repeating: 0x6A, count: 15) + [number],
            clientID: "client-\(number)",
            userID: StoreSamples.userID(owner),
            sessionID: [UInt8](repeating: 0x5D, count: 16),
            scope: "openid profile",
            authenticatedAt: StoreSamples.now.addingTimeInterval(-5.5),
            authenticationMethods: "apple",
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(seconds)
        )
    }

    public static func authorizationCodesAreSingleUse(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let now = StoreSamples.now
        let (live, expired, other) = (sampleCode(1, owner: 1), sampleCode(2, owner: 1, expiresIn: 0), sampleCode(3, owner: 2))
        try store.transaction { transaction throws(StorageError) in
            for code in [live, expired, other] { try transaction.insertAuthorizationCode(code) }
        }
        try expectStorageError(.duplicateKey, "the same code hash") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertAuthorizationCode(live) }
        }
        var orphan = sampleCode(4, owner: 9)
        try expectStorageError(.notFound, "a code for no user") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertAuthorizationCode(orphan) }
        }
        orphan = sampleCode(5, owner: 1)
        orphan.scope = String(repeating: "s", count: AuthorizationCodeRecord.maximumScopeLength + 1)
        try expectStorageError(.invalidRecord, "a scope past its bound") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertAuthorizationCode(orphan) }
        }
        let later = now.addingTimeInterval(1.5)
        let uses = try store.transaction { transaction throws(StorageError) in
            [
                try transaction.useAuthorizationCode(hash: live.codeHash, now: later),
                try transaction.useAuthorizationCode(hash: live.codeHash, now: later.addingTimeInterval(1)),
                try transaction.useAuthorizationCode(hash: [1, 2, 3], now: later),
            ]
        }
        var used = live
        used.usedAt = later
        try expectEqual(uses, [live, used, nil], "the first use gets it unused, the second sees the first's time, unknown is nil")
        try expectStorageError(.unavailable, "the body's error") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.useAuthorizationCode(hash: other.codeHash, now: later)
                throw StorageError(.unavailable, "the exchange failed")
            }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.useAuthorizationCode(hash: other.codeHash, now: later) },
            Optional(other),
            "a rolled-back use leaves the code unused"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.useAuthorizationCode(hash: expired.codeHash, now: later) },
            Optional(expired),
            "an expired code is still found (the caller refuses it)"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.purgeExpiredOAuthRecords(now: now) },
            1,
            "the purge removes the expired code"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.useAuthorizationCode(hash: expired.codeHash, now: later) },
            nil,
            "purged"
        )
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(1)) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [
                    try transaction.useAuthorizationCode(hash: live.codeHash, now: later)?.codeHash,
                    try transaction.useAuthorizationCode(hash: other.codeHash, now: later)?.codeHash,
                ]
            },
            [nil, other.codeHash],
            "deleted with its user only"
        )
    }

    public static func concurrentAuthorizationCodeHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let code = sampleCode(1, owner: 1)
        try store.transaction { transaction throws(StorageError) in try transaction.insertAuthorizationCode(code) }
        let winners = Mutex(0)
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let got = try store.transaction { transaction throws(StorageError) in
                try transaction.useAuthorizationCode(hash: code.codeHash, now: StoreSamples.now)?.usedAt == nil
            }
            if got { winners.withLock { $0 += 1 } }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(winners.withLock { $0 }, 1, "winners")
    }

    public static func grantsHoldRefreshTokens(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        let now = StoreSamples.now
        let (grant, expiring, other) = (sampleGrant(1, owner: 1), sampleGrant(2, owner: 1, expiresIn: 0), sampleGrant(3, owner: 2))
        let first = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF1, count: 32), grantID: grant.id, createdAt: now)
        let second = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF2, count: 32), grantID: grant.id, createdAt: now.addingTimeInterval(2))
        let expiringToken = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF3, count: 32), grantID: expiring.id, createdAt: now)
        let otherToken = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF4, count: 32), grantID: other.id, createdAt: now)
        try store.transaction { transaction throws(StorageError) in
            for item in [grant, expiring, other] { try transaction.insertOAuthGrant(item) }
            for token in [first, expiringToken, otherToken] { try transaction.insertRefreshToken(token) }
        }
        try expectStorageError(.duplicateKey, "the same grant ID") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertOAuthGrant(grant) }
        }
        try expectStorageError(.notFound, "a grant for no user") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertOAuthGrant(sampleGrant(4, owner: 9)) }
        }
        try expectStorageError(.duplicateKey, "the same token hash") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in try transaction.insertRefreshToken(first) }
        }
        try expectStorageError(.notFound, "a token of no grant") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.insertRefreshToken(RefreshTokenRecord(tokenHash: [9], grantID: [9, 9], createdAt: now))
            }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.oauthGrant(id: grant.id) },
            Optional(grant),
            "read"
        )
        // Rotation: the first is used and the second stored, in one transaction.
        let later = now.addingTimeInterval(2)
        let rotated = try store.transaction { transaction throws(StorageError) -> RefreshTokenRecord? in
            let found = try transaction.useRefreshToken(hash: first.tokenHash, now: later)
            try transaction.insertRefreshToken(second)
            return found
        }
        try expectEqual(rotated, Optional(first), "the first use gets it unused")
        var usedFirst = first
        usedFirst.usedAt = later
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [
                    try transaction.useRefreshToken(hash: first.tokenHash, now: later.addingTimeInterval(5)),
                    try transaction.refreshToken(hash: second.tokenHash), try transaction.refreshToken(hash: [7]),
                ]
            },
            [usedFirst, second, nil],
            "a second use sees the first's time (reuse); the new token is unused; unknown is nil"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.deleteOAuthGrant(id: grant.id), try transaction.deleteOAuthGrant(id: grant.id)]
            },
            [true, false],
            "a grant is deleted once"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [
                    try transaction.refreshToken(hash: first.tokenHash), try transaction.refreshToken(hash: second.tokenHash),
                    try transaction.refreshToken(hash: otherToken.tokenHash),
                ]
            },
            [nil, nil, otherToken],
            "the family goes with its grant, another grant's token stays"
        )
        try expectEqual(try store.transaction { transaction throws(StorageError) in try transaction.purgeExpiredOAuthRecords(now: now) }, 1, "purged")
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.oauthGrant(id: expiring.id)?.id, try transaction.refreshToken(hash: expiringToken.tokenHash)?.grantID]
            },
            [nil, nil],
            "an expired grant goes with its tokens"
        )
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteUser(id: StoreSamples.userID(2)) }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                [try transaction.oauthGrant(id: other.id)?.id, try transaction.refreshToken(hash: otherToken.tokenHash)?.grantID]
            },
            [nil, nil],
            "deleted with the user"
        )
    }

    public static func concurrentRefreshTokenHasOneWinner(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let grant = sampleGrant(1, owner: 1)
        let token = RefreshTokenRecord(tokenHash: [UInt8](repeating: 0xF5, count: 32), grantID: grant.id, createdAt: StoreSamples.now)
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertOAuthGrant(grant)
            try transaction.insertRefreshToken(token)
        }
        let winners = Mutex(0)
        let failures = concurrently(threads: 16, rounds: 1) { _, _ throws(StorageError) in
            let got = try store.transaction { transaction throws(StorageError) in
                try transaction.useRefreshToken(hash: token.tokenHash, now: StoreSamples.now)?.usedAt == nil
            }
            if got { winners.withLock { $0 += 1 } }
        }
        try expectEqual(failures, [], "errors")
        try expectEqual(winners.withLock { $0 }, 1, "winners")
    }

    public static func grantsAreListedByAccountAndClient(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try store.seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        // Three of the account's grants to one client, made out of order (two at the same instant: by id), one to
        // another client, one of another account's.
        var grants = [
            sampleGrant(5, owner: 1), sampleGrant(3, owner: 1), sampleGrant(4, owner: 1), sampleGrant(6, owner: 1), sampleGrant(7, owner: 2),
        ]
        for index in 0..<4 { grants[index].clientID = "app" }
        grants[4].clientID = "app"
        grants[3].clientID = "other"
        grants[0].createdAt = StoreSamples.now.addingTimeInterval(-10)
        try store.transaction { transaction throws(StorageError) in
            for grant in grants { try transaction.insertOAuthGrant(grant) }
        }
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in try transaction.oauthGrants(userID: StoreSamples.userID(1), clientID: "app")
            },
            [grants[0], grants[1], grants[2]],
            "the account's grants to the client, oldest first, then by id"
        )
        try expectEqual(
            try store.transaction { transaction throws(StorageError) in
                try transaction.oauthGrants(userID: StoreSamples.userID(1), clientID: "nobody").count
            },
            0,
            "none to an unknown client"
        )
    }
}
