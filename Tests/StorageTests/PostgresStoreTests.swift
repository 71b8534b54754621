import CryptoCore
import Dispatch
import Foundation
import Storage
import StorageSQLite
import Synchronization
import TestSupport
import Testing

@testable import StoragePostgres

/// What only the PostgreSQL driver does: several nodes on one database, its migrations, its pool, shared secrets
/// and the import from SQLite. Each test gets fresh databases of one throwaway cluster.
@Suite("PostgreSQL store", PostgresClusterScope())
struct PostgresStoreTests {
    /// A fresh database's connection string.
    private func newDatabase() throws -> String {
        let cluster = try PostgresClusterScope.current()
        return cluster.connectionString(database: try cluster.createDatabase())
    }

    @Test func twoNodesRaceForAChallenge() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 8), try PostgresStore(connectionString: database, poolSize: 8)]
        for round: UInt8 in 1...10 {
            let challenge = StoreSamples.challenge(round)
            try nodes[Int(round) % 2].insertChallenge(challenge)
            let outcomes = StoreContract.takeConcurrently(challenge.challenge, threads: 16) { nodes[$0 % 2] }
            #expect(outcomes.valid == 1, "round \(round)")
            #expect(outcomes.unknown == 15, "round \(round)")
            #expect(outcomes.failures.isEmpty, "round \(round)")
        }
    }

    /// The metrics' pool waits: a call that finds every connection lent is counted, and so is one whose wait runs out.
    @Test func poolWaitsAreCounted() throws {
        let store = try PostgresStore(connectionString: try newDatabase(), poolSize: 1, waitTimeout: .seconds(2))
        #expect(store.poolWaits == (0, 0))
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? store.transaction { _ throws(StorageError) in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        #expect(throws: StorageError.self) { try store.status(now: StoreSamples.now) }
        #expect(store.poolWaits == (1, 1))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { release.signal() }
        _ = try store.status(now: StoreSamples.now)
        #expect(store.poolWaits == (2, 1))
    }

    @Test func oneNodeSeesWhatTheOtherWrote() throws {
        let database = try newDatabase()
        let first = try PostgresStore(connectionString: database, poolSize: 2)
        let second = try PostgresStore(connectionString: database, poolSize: 2)
        try first.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        #expect(try second.credential(id: StoreSamples.credential(1, owner: 1).id) == StoreSamples.credential(1, owner: 1))
        #expect(
            try second.transaction { transaction throws(StorageError) in
                try transaction.deleteCredentialUnlessLast(id: StoreSamples.credential(1, owner: 1).id, userID: StoreSamples.userID(1))
            } == .lastCredential
        )
        try second.seedCredential(StoreSamples.credential(2, owner: 1))
        #expect(try first.credentials(userID: StoreSamples.userID(1)).count == 2)
    }

    @Test func concurrentDeletionsOnTwoNodesKeepTheLastCredential() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 4), try PostgresStore(connectionString: database, poolSize: 4)]
        for round: UInt8 in 1...10 {
            let owner = round
            try nodes[0].seedUser(StoreSamples.user(owner), credential: StoreSamples.credential(owner, owner: owner))
            try nodes[0].seedCredential(StoreSamples.credential(100 + round, owner: owner))
            let ids = [StoreSamples.credential(owner, owner: owner).id, StoreSamples.credential(100 + round, owner: owner).id]
            let outcomes = Mutex<[CredentialDeletion]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let outcome = try? nodes[index].transaction { transaction throws(StorageError) in
                    try transaction.deleteCredentialUnlessLast(id: ids[index], userID: StoreSamples.userID(owner))
                }
                if let outcome {
                    outcomes.withLock { $0.append(outcome) }
                }
            }
            #expect(outcomes.withLock { $0.sorted { "\($0)" < "\($1)" } } == [.deleted, .lastCredential], "round \(round)")
            #expect(try nodes[1].credentials(userID: StoreSamples.userID(owner)).count == 1, "round \(round)")
        }
    }

    @Test func twoNodesIncrementingOneRowInTransactionsGetEveryIncrement() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 4), try PostgresStore(connectionString: database, poolSize: 4)]
        var counter = StoreSamples.credential(1, owner: 1)
        counter.signCount = 0
        try nodes[0].seedUser(StoreSamples.user(1), credential: counter)
        let failures = try StoreContract.incrementConcurrently(threads: 8, rounds: 50, credentialID: counter.id) { nodes[$0 % 2] }
        #expect(failures == [])
        #expect(try nodes[1].credential(id: counter.id)?.signCount == 400)
        #expect(try nodes[0].credential(id: counter.id)?.signCount == 400)
    }

    /// Each transaction reads and increments one counter (so the transactions are serialised and their commit order is
    /// the counter's order) and appends an event of one user carrying the counter's new value: on two nodes, ids
    /// follow commit order.
    @Test func eventIDsFollowCommitOrderOnTwoNodes() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 4), try PostgresStore(connectionString: database, poolSize: 4)]
        var seeded = StoreSamples.credential(1, owner: 1)
        seeded.signCount = 0
        try nodes[0].seedUser(StoreSamples.user(1), credential: seeded)
        let counter = seeded.id
        let failures = Mutex<[StorageError]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            for _ in 0..<20 {
                do throws(StorageError) {
                    try nodes[index % 2].transaction { transaction throws(StorageError) in
                        let value = (try transaction.credential(id: counter)?.signCount ?? 0) + 1
                        try transaction.recordAuthentication(
                            AuthenticationUpdate(
                                credentialID: counter,
                                signCount: value,
                                backupEligible: true,
                                backupState: false,
                                usedAt: StoreSamples.now,
                                backupEligibilityChanged: false
                            )
                        )
                        try transaction.appendEvent(
                            NewEvent(
                                id: SystemRandom().uuidVersion7(at: StoreSamples.now),
                                type: "counter.incremented",
                                userID: StoreSamples.userID(1),
                                occurredAt: StoreSamples.now,
                                data: Array("\(value)".utf8)
                            )
                        )
                    }
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let events = try nodes[1].allEvents()
        #expect(Set(events.map(\.id)).count == 120, "unique ids")
        #expect(events.map { Int(String(decoding: $0.data, as: UTF8.self)) ?? 0 } == Array(1...120), "ids in commit order")
    }

    /// Transactions that append events of one user are serialised from the append on, even when nothing else of theirs
    /// conflicts, so that one user's ids follow commit order: a second node's append for the same user waits for the
    /// first transaction to end and then gets the higher id; an append for another user does not wait.
    @Test func appendingAUsersEventWaitsForTheTransactionHoldingIt() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 2), try PostgresStore(connectionString: database, poolSize: 2)]
        try nodes[0].seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        try nodes[0].seedUser(StoreSamples.user(2), credential: StoreSamples.credential(2, owner: 2))
        for (other, waits) in [(UInt8(2), false), (UInt8(1), true)] {
            let firstAppended = DispatchSemaphore(value: 0)
            let secondAppended = DispatchSemaphore(value: 0)
            let secondID = Mutex<Int64?>(nil)
            let second = Thread {
                firstAppended.wait()
                let id = try? nodes[1].transaction { transaction throws(StorageError) in
                    let id = try transaction.appendEvent(StoreSamples.event(Int(other) * 10 + 2, owner: other))
                    secondAppended.signal()
                    return id
                }
                secondID.withLock { $0 = id }
            }
            second.start()
            let (firstID, secondWaited) = try nodes[0].transaction { transaction throws(StorageError) -> (Int64, Bool) in
                let id = try transaction.appendEvent(StoreSamples.event(Int(other) * 10 + 1, owner: 1))
                firstAppended.signal()
                return (id, secondAppended.wait(timeout: .now() + (waits ? 1 : 10)) == .timedOut)
            }
            #expect(secondWaited == waits, "user \(other): the second append waited: \(secondWaited)")
            if waits { #expect(secondAppended.wait(timeout: .now() + 10) == .success) }
            while second.isExecuting || !second.isFinished { usleep(1_000) }
            let id = try #require(secondID.withLock { $0 })
            if waits { #expect(id > firstID, "the waiting append's id comes after") }
        }
    }

    /// The chain race of two nodes (issue 20's flaky two-node delivery): a node records a user's delivery as delivered
    /// while another node's transaction appends the user's next event. The appender still sees the head pending, so its
    /// delivery waits; the recorder's statement ran before the append was visible, so it made nothing due. Nothing
    /// waits on the follower's behalf, and no claim takes it until a chain repair that reaches back to its queue time.
    @Test func aFollowerAppendedWhileItsHeadEndedWaitsForARepair() throws {
        let database = try newDatabase()
        let nodes = [try PostgresStore(connectionString: database, poolSize: 2), try PostgresStore(connectionString: database, poolSize: 2)]
        _ = try nodes[0].transaction { transaction throws(StorageError) in
            try transaction.configureWebhookSubscriptions(
                [WebhookSubscription(endpointID: "ep", eventTypes: nil)],
                removalReason: "webhook.endpointRemoved",
                now: StoreSamples.now
            )
        }
        try nodes[0].seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let at = { (offset: TimeInterval) in StoreSamples.now.addingTimeInterval(offset) }
        func claim(_ offset: TimeInterval) throws -> [Int64] {
            try nodes[0].claimWebhookDeliveries(endpointID: "ep", owner: "worker", now: at(offset), leaseUntil: at(offset + 30), limit: 10)
                .map(\.event.id)
        }
        _ = try nodes[0].transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(1, owner: 1)) }
        let head = try nodes[0].claimWebhookDeliveries(endpointID: "ep", owner: "worker", now: at(100), leaseUntil: at(130), limit: 10)
        try #require(head.count == 1)
        // Node 0 records the head delivered; its statement runs, then node 1 appends and commits, then node 0 commits.
        let appended = try nodes[0].withConnection { connection throws(PostgresError) -> Result<Int64, StorageError> in
            try connection.transaction { () throws(PostgresError) -> Result<Int64, StorageError> in
                let records = PostgresRecords(connection: connection)
                defer { records.isOpen = false }
                do throws(StorageError) {
                    try records.recordWebhookOutcome(deliveryID: head[0].delivery.id, .delivered(status: 200), owner: "worker", now: at(101))
                    return .success(
                        try nodes[1].transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(2, owner: 1)) }
                    )
                } catch {
                    return .failure(error)
                }
            }
        }
        let follower = try appended.get()
        let waiting = try nodes[0].webhookDeliveries(status: .pending, after: 0, limit: 10)
        #expect(waiting.map(\.eventID) == [follower])
        #expect(waiting.first?.nextAttemptAt == nil, "the follower waits, for a head that is no longer pending")
        #expect(try claim(102) == [], "no claim takes it")
        #expect(try nodes[1].repairWebhookChains(queuedSince: at(2.5), now: at(103)) == 0, "a repair that does not reach back to it")
        #expect(try nodes[1].repairWebhookChains(queuedSince: at(2), now: at(103)) == 1, "one that does makes it due")
        #expect(try claim(104) == [follower])
    }

    @Test func eachCeremonyIsOneStatementWithItsEvents() throws {
        let store = try PostgresStore(connectionString: try newDatabase(), poolSize: 1)
        // Each call's events under new IDs: an event ID is taken once.
        var events: [NewEvent] {
            [StoreSamples.event(1, owner: 1, type: "user.created"), StoreSamples.event(2, owner: 1, type: "session.created")].map { event in
                var event = event
                event.id = SystemRandom().uuidVersion7(at: event.occurredAt)
                return event
            }
        }
        func statements(_ body: () throws -> Void) throws -> Int {
            let before = try store.withConnection { connection throws(PostgresError) in connection.statementsSent }
            try body()
            return try store.withConnection { connection throws(PostgresError) in connection.statementsSent } - before
        }
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 1
        // The first run of each prepares its statement; count the second.
        for round: UInt8 in 1...2 {
            let user = StoreSamples.user(round)
            var first = StoreSamples.credential(round, owner: round)
            first.signCount = 1
            #expect(
                try statements {
                    try store.completeRegistration(
                        newUser: user,
                        credential: first,
                        session: StoreSamples.session(round, owner: round),
                        events: events
                    )
                } == (round == 1 ? 2 : 1),
                "new account, round \(round)"
            )
            #expect(
                try statements {
                    try store.completeRegistration(
                        newUser: nil,
                        credential: StoreSamples.credential(10 + round, owner: round),
                        session: StoreSamples.session(10 + round, owner: round),
                        events: events
                    )
                } == 1,
                "added passkey, round \(round): the new account's call, prepared already"
            )
            #expect(
                try statements {
                    _ = try store.completeAuthentication(
                        AuthenticationUpdate(
                            credentialID: first.id,
                            signCount: 2,
                            backupEligible: true,
                            backupState: false,
                            usedAt: StoreSamples.now,
                            backupEligibilityChanged: false
                        ),
                        session: StoreSamples.session(20 + round, owner: round),
                        events: events,
                        spending: nil,
                        expecting: SignInExpectation(first)
                    )
                } == (round == 1 ? 2 : 1),
                "sign-in, round \(round)"
            )
        }
        #expect(try store.allEvents().count == 12)
    }

    @Test func aVersionOneDatabaseKeepsItsSessionsWithDefaultsAndGainsTheOutbox() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let userID = StoreSamples.userID(1).map { String(format: "%02x", $0) }.joined()
        let tokenHash = StoreSamples.session(1, owner: 1).tokenHash.map { String(format: "%02x", $0) }.joined()
        try cluster.psql(
            PostgresMigrations.steps[0].sql
                + """
                CREATE TABLE passkeyd_schema (version integer NOT NULL);
                INSERT INTO passkeyd_schema VALUES (1);
                INSERT INTO users VALUES ('\\x\(userID)', 'alice', 'Alice', 0);
                INSERT INTO sessions VALUES ('\\x\(tokenHash)', '\\x\(userID)', 12.5, \(StoreSamples.now.timeIntervalSinceReferenceDate + 600));
                """,
            database: name
        )
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        let migrated = try #require(try store.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now))
        #expect(migrated.id.count == 16 && migrated.method == .apple && !migrated.userVerified)
        #expect(migrated.createdAt == Date(timeIntervalSinceReferenceDate: 12.5) && migrated.authenticatedAt == migrated.createdAt)
        #expect(migrated.credentialID == nil && migrated.appleSubject == nil && migrated.userAgent == nil && migrated.lastUsedAt == nil)
        try store.seedSession(StoreSamples.session(2, owner: 1))
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(1, owner: 1)) }
        #expect(try store.allEvents().count == 1)
    }

    /// Step 5 (the account lifecycle) on a version-4 database: every account gets its own stable version-4
    /// appAccountToken, takes its Apple identity's email, and the identity's refresh token moves to its table.
    @Test func aVersionFourDatabaseGainsTheAccountLifecycle() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        try cluster.psql(
            PostgresMigrations.steps.prefix(4).map(\.sql).joined()
                + """
                CREATE TABLE passkeyd_schema (version integer NOT NULL);
                INSERT INTO passkeyd_schema VALUES (4);
                INSERT INTO users VALUES ('\\x\(Hex.encode(StoreSamples.userID(1)))', 'alice', 'Alice', 0);
                INSERT INTO users VALUES ('\\x\(Hex.encode(StoreSamples.userID(2)))', 'bob', 'Bob', 0);
                INSERT INTO apple_identities VALUES ('001.a', '\\x\(Hex.encode(StoreSamples.userID(1)))', 'a@privaterelay.appleid.com', true, true,
                    false, 2, '002.transfer', '\\x0102', 'com.example.app', 5);
                INSERT INTO credentials VALUES ('\\x0102', '\\x\(Hex.encode(StoreSamples.userID(2)))', '\\x00', -7, 0, '[]', '\\x00', false, false,
                    'none', '', 'Key', 0, NULL, false, false);
                """,
            database: name
        )
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        try AccountLifecycleMigration.check(store)
        let alice = try #require(try store.user(id: StoreSamples.userID(1)))
        store.close()
        let reopened = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 1)
        #expect(try reopened.user(id: StoreSamples.userID(1))?.appAccountToken == alice.appAccountToken, "stable")
    }

    /// Step 7 (the signing keys) on a version-6 database: its accounts and sessions stay, a session is found by its
    /// public ID, and the new table is empty (`SigningKeyMigration`).
    @Test func aVersionSixDatabaseGainsTheSigningKeys() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        try cluster.psql(
            PostgresMigrations.steps.prefix(6).map(\.sql).joined()
                + """
                CREATE TABLE passkeyd_schema (version integer NOT NULL);
                INSERT INTO passkeyd_schema VALUES (6);
                INSERT INTO users (id, name, display_name, created_at, display_name_is_default, app_account_token, email_verified)
                    VALUES ('\\x\(Hex.encode(StoreSamples.userID(1)))', 'alice', 'Alice', 0, false, '0b0e7a5c-0c4a-4f43-9d55-8d3c4a0f1e2b', false);
                INSERT INTO sessions (token_hash, user_id, created_at, expires_at, id, method, user_verified, authenticated_at)
                    VALUES ('\\x01', '\\x\(Hex.encode(StoreSamples.userID(1)))', 0, \(SigningKeyMigration.sessionExpiresAt.timeIntervalSinceReferenceDate),
                    '\\x\(Hex.encode(SigningKeyMigration.sessionID))', 'passkey', true, 0);
                """,
            database: name
        )
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        defer { store.close() }
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        try SigningKeyMigration.check(store)
    }

    /// Step 9 (name keys) on a version-8 database whose names collide once case is ignored (`UsernameKeyMigration`): the
    /// oldest keeps each name, the others are suffixed with an event, and the key is unique; as SQLite's step 10.
    @Test func aVersionEightDatabaseSettlesCollidingNames() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let rows = UsernameKeyMigration.accounts.map { account in
            "('\\x\(Hex.encode(StoreSamples.userID(account.number)))', '\(account.name)', '\(account.name)', \(account.createdAt), false, "
                + "'\(UsernameKeyMigration.appAccountToken(account.number))', false)"
        }
        try cluster.psql(
            PostgresMigrations.steps.prefix(8).map(\.sql).joined()
                + """
                CREATE TABLE passkeyd_schema (version integer NOT NULL);
                INSERT INTO passkeyd_schema VALUES (8);
                INSERT INTO users (id, name, display_name, created_at, display_name_is_default, app_account_token, email_verified)
                    VALUES \(rows.joined(separator: ", "));
                """,
            database: name
        )
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        defer { store.close() }
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        try UsernameKeyMigration.check(store)
    }

    /// Step 10 (the challenges' user index holds only the challenges that have a user) on a version-9 database: its
    /// outstanding challenges stay, and a lookup by user, as the cascade from a deleted account makes, can use the
    /// index; as SQLite's step 11.
    @Test func aVersionNineDatabaseKeepsItsChallenges() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let withUser = StoreSamples.challenge(1, userID: StoreSamples.userID(1))
        let withoutUser = StoreSamples.challenge(2)
        let rows = [withUser, withoutUser].map { challenge in
            "('\\x\(Hex.encode(challenge.challenge))', '\(challenge.ceremony.rawValue)', "
                + (challenge.userID.map { "'\\x\(Hex.encode($0))'" } ?? "NULL")
                + ", '\(challenge.userVerification)', '\\x\(Hex.encode(challenge.context))', \(challenge.expiresAt.timeIntervalSinceReferenceDate))"
        }
        try cluster.psql(
            PostgresMigrations.steps.prefix(9).map(\.sql).joined()
                + """
                ALTER TABLE users ALTER COLUMN name_key DROP DEFAULT, ADD CONSTRAINT users_name_key_unique UNIQUE (name_key);
                CREATE TABLE passkeyd_schema (version integer NOT NULL);
                INSERT INTO passkeyd_schema VALUES (9);
                INSERT INTO users (id, name, display_name, created_at, display_name_is_default, app_account_token, email_verified, name_key)
                    VALUES ('\\x\(Hex.encode(StoreSamples.userID(1)))', 'ann', 'Ann', 0, false, '\(StoreSamples.appAccountToken(1).uuidString.lowercased())', false, 'ann');
                INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at) VALUES \(rows.joined(separator: ", "));
                """,
            database: name
        )
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        defer { store.close() }
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        #expect(
            try cluster.psql("SELECT indexdef FROM pg_indexes WHERE indexname = 'challenges_by_user'", database: name)
                .hasSuffix("WHERE (user_id IS NOT NULL)")
        )
        let plan = try cluster.psql(
            "SET enable_seqscan = off; EXPLAIN DELETE FROM challenges WHERE user_id = '\\x\(Hex.encode(StoreSamples.userID(1)))'",
            database: name
        )
        #expect(plan.contains("challenges_by_user"), "plan: \(plan)")
        #expect(try store.takeChallenge(withUser.challenge, now: StoreSamples.now) == .valid(withUser))
        #expect(try store.takeChallenge(withoutUser.challenge, now: StoreSamples.now) == .valid(withoutUser))
    }

    @Test func nodesStartingTogetherMigrateOnce() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let database = cluster.connectionString(database: name)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                _ = try PostgresStore(connectionString: database, poolSize: 1)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try cluster.psql("SELECT version FROM passkeyd_schema", database: name) == "\(PostgresMigrations.latestVersion)")
        // Opening again changes nothing.
        _ = try PostgresStore(connectionString: database, poolSize: 1)
        #expect(try cluster.psql("SELECT count(*) FROM passkeyd_schema", database: name) == "1")
    }

    @Test func newerSchemaIsRefused() throws {
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let database = cluster.connectionString(database: name)
        _ = try PostgresStore(connectionString: database, poolSize: 1)
        try cluster.psql("UPDATE passkeyd_schema SET version = 99", database: name)
        do {
            _ = try PostgresStore(connectionString: database, poolSize: 1)
            Issue.record("a database newer than this build was opened")
        } catch {
            #expect(error.code == .migrationFailed)
            #expect(error.reason.contains("99"))
        }
    }

    @Test func unreachableDatabaseIsUnavailableAndNamesNoPassword() throws {
        let port = try LoopbackPort.free()
        do {
            _ = try PostgresStore(connectionString: "host=127.0.0.1 port=\(port) user=passkeyd password=hunter2 dbname=x", poolSize: 1)
            Issue.record("a store opened without a server")
        } catch {
            #expect(error.code == .unavailable)
            #expect(!error.reason.contains("hunter2"))
        }
    }

    @Test func aFullPoolMakesCallersWaitThenFail() throws {
        let store = try PostgresStore(connectionString: try newDatabase(), poolSize: 1, waitTimeout: .seconds(2))
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? store.pool.withConnection { _ throws(PostgresError) in
                held.signal()
                release.wait()
            }
        }
        holder.start()
        held.wait()
        let started = Date()
        do {
            _ = try store.user(id: StoreSamples.userID(1))
            Issue.record("a call got a connection from a full pool")
        } catch {
            #expect(error.code == .unavailable)
            #expect(Date().timeIntervalSince(started) >= 0.25)
        }
        release.signal()
        // Once the connection is back, calls go through again.
        var answered = false
        for _ in 0..<50 where !answered {
            do {
                _ = try store.user(id: StoreSamples.userID(1))
                answered = true
            } catch {
                usleep(20_000)
            }
        }
        #expect(answered)
    }

    @Test func challengeWritesAloneSkipTheWALFlush() throws {
        let store = try PostgresStore(connectionString: try newDatabase(), poolSize: 1)
        func setting(deferring: Bool) throws -> String {
            let read = { (connection: PostgresConnection) throws(PostgresError) -> String in
                try connection.run("SELECT current_setting('synchronous_commit')", []) { row throws(PostgresError) in row.text(0) }.first ?? ""
            }
            return deferring ? try store.withConnectionDeferringDurability(read) : try store.withConnection(read)
        }
        #expect(try setting(deferring: false) == "on")
        #expect(try setting(deferring: true) == "off")
        try store.insertChallenge(StoreSamples.challenge(1))
        #expect(try setting(deferring: false) == "on")
    }

    @Test func connectionDefaultsApplyAndTheConnectionStringOverridesThem() throws {
        func settings(_ store: PostgresStore) throws -> [String] {
            try store.withConnection { connection throws(PostgresError) in
                try connection.run("SELECT current_setting('statement_timeout'), current_setting('application_name')", []) {
                    row throws(PostgresError) in
                    [row.text(0), row.text(1)]
                }.first ?? []
            }
        }
        let database = try newDatabase()
        #expect(try settings(try PostgresStore(connectionString: database, poolSize: 1)) == ["30s", "passkeyd"])
        let overridden = try PostgresStore(connectionString: database + " options='-c statement_timeout=5000' application_name=node-a", poolSize: 1)
        #expect(try settings(overridden) == ["5s", "node-a"])
    }

    @Test func nodesShareTheFirstProposedSecret() throws {
        let database = try newDatabase()
        let first = try PostgresStore(connectionString: database, poolSize: 1)
        let second = try PostgresStore(connectionString: database, poolSize: 1)
        let kept = try first.sharedSecret(named: "server-secret", proposing: [1, 2, 3])
        #expect(kept == [1, 2, 3])
        #expect(try second.sharedSecret(named: "server-secret", proposing: [9, 9, 9]) == [1, 2, 3])
        #expect(try second.sharedSecret(named: "apple-refresh-token-key", proposing: [7]) == [7])
    }

    @Test func importCopiesEverySQLiteRecord() throws {
        let source = try SQLiteStore.inMemory()
        try source.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var used = StoreSamples.credential(2, owner: 1)
        used.lastUsedAt = StoreSamples.now
        used.cloneWarning = true
        try source.seedCredential(used)
        try source.seedUser(StoreSamples.user(2), appleIdentity: StoreSamples.appleIdentity("001234.apple", owner: 2))
        let federated = FederatedIdentityRecord(
            issuer: "https://accounts.google.com",
            subject: "110169484474386276334",
            userID: StoreSamples.userID(2),
            provider: "google",
            email: "two@example.com",
            emailVerified: true,
            createdAt: StoreSamples.now,
            lastSignInAt: StoreSamples.now.addingTimeInterval(0.5)
        )
        try source.transaction { transaction throws(StorageError) in try transaction.insertFederatedIdentity(federated) }
        try source.seedSession(StoreSamples.session(1, owner: 1))
        #expect(
            try source.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce([5, 5], until: StoreSamples.now.addingTimeInterval(600), now: StoreSamples.now)
            }
        )
        let revocation = try source.transaction { transaction throws(StorageError) in
            try transaction.enqueueRevocation(token: [0xEE], clientID: "com.example.app", notBefore: StoreSamples.now)
        }
        let apple = StoreSamples.appleSession(2, owner: 2, subject: "001234.apple")
        try source.seedSession(apple)
        try source.transaction { transaction throws(StorageError) in
            _ = try transaction.setAppleRefreshToken(subject: "001234.apple", clientID: "com.example.app", encryptedToken: [7, 7])
            try transaction.insertLinkDecline(LinkDecline(StoreSamples.userID(1), StoreSamples.userID(2)))
            try transaction.raiseAppleNotificationWatermark(
                subject: "001234.apple",
                to: StoreSamples.now,
                until: StoreSamples.now.addingTimeInterval(60),
                now: StoreSamples.now
            )
        }
        let events = try source.transaction { transaction throws(StorageError) -> [Int64] in
            [try transaction.appendEvent(StoreSamples.event(1, owner: 1)), try transaction.appendEvent(StoreSamples.event(2, owner: nil))]
        }
        let link = EnrollmentTokenRecord(
            tokenHash: [UInt8](repeating: 0xE1, count: 32),
            userID: StoreSamples.userID(1),
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(86_400)
        )
        let codes = [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32)]
        try source.transaction { transaction throws(StorageError) in
            try transaction.insertEnrollmentToken(link)
            try transaction.replaceRecoveryCodes(userID: StoreSamples.userID(1), hashes: codes, createdAt: StoreSamples.now)
        }
        let signingKey = StoreSamples.signingKey(1, activatesAt: StoreSamples.now, retiresAt: StoreSamples.now.addingTimeInterval(60.5))
        try source.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(signingKey) }
        // The OpenID provider's grant and its refresh-token family (one used, one live) are carried; codes are not.
        let grant = OAuthGrantRecord(
            id: [UInt8](repeating: 0x6A, count: OAuthGrantRecord.idLength),
            clientID: "web",
            userID: StoreSamples.userID(1),
            sessionID: StoreSamples.session(1, owner: 1).id,
            scope: "openid email",
            authenticatedAt: StoreSamples.now,
            authenticationMethods: "hwk user",
            createdAt: StoreSamples.now,
            expiresAt: StoreSamples.now.addingTimeInterval(86_400)
        )
        let family = [
            RefreshTokenRecord(
                tokenHash: [UInt8](repeating: 0x71, count: 32),
                grantID: grant.id,
                createdAt: StoreSamples.now,
                usedAt: StoreSamples.now
            ),
            RefreshTokenRecord(tokenHash: [UInt8](repeating: 0x72, count: 32), grantID: grant.id, createdAt: StoreSamples.now, usedAt: nil),
        ]
        try source.transaction { transaction throws(StorageError) in
            try transaction.insertOAuthGrant(grant)
            for token in family { try transaction.insertRefreshToken(token) }
        }
        let export = try source.exportRecords()
        #expect(export.oauthGrants == [grant] && export.oauthRefreshTokens == family)
        #expect(export.signingKeys == [signingKey])
        #expect(export.users.count == 2 && export.credentials.count == 2 && export.sessions.count == 2)
        #expect(export.enrollmentTokens == [link] && export.recoveryCodes.map(\.codeHash) == codes)
        #expect(export.appleIdentities.count == 1 && export.appleNonces.count == 1 && export.appleRevocations.count == 1)
        #expect(export.federatedIdentities == [federated])
        #expect(export.events.map(\.id) == events)
        #expect(export.appleRefreshTokens.count == 1 && export.linkDeclines.count == 1 && export.appleNotificationWatermarks.count == 1)

        let target = try PostgresStore(connectionString: try newDatabase(), poolSize: 2)
        // A node started on the empty database made a key of its own: the copied keys replace it.
        var early = signingKey
        early.id = "made-before-the-import"
        try target.transaction { transaction throws(StorageError) in try transaction.insertSigningKey(early) }
        try target.importRecords(export)
        #expect(try target.transaction { transaction throws(StorageError) in try transaction.signingKeys() } == [signingKey])
        #expect(try target.user(id: StoreSamples.userID(1)) == StoreSamples.user(1))
        let carried = try target.transaction { transaction throws(StorageError) -> (OAuthGrantRecord?, [RefreshTokenRecord]) in
            var tokens: [RefreshTokenRecord] = []
            for token in family { if let found = try transaction.refreshToken(hash: token.tokenHash) { tokens.append(found) } }
            return (try transaction.oauthGrant(id: grant.id), tokens)
        }
        #expect(carried.0 == grant && carried.1 == family)
        #expect(try target.credentials(userID: StoreSamples.userID(1)) == [StoreSamples.credential(1, owner: 1), used])
        #expect(
            try target.session(tokenHash: StoreSamples.session(1, owner: 1).tokenHash, now: StoreSamples.now) == StoreSamples.session(1, owner: 1)
        )
        #expect(try target.session(tokenHash: apple.tokenHash, now: StoreSamples.now) == apple)
        #expect(try target.appleIdentity(subject: "001234.apple") == StoreSamples.appleIdentity("001234.apple", owner: 2))
        #expect(
            try target.transaction { transaction throws(StorageError) in
                try transaction.federatedIdentity(issuer: federated.issuer, subject: federated.subject)
            } == federated
        )
        #expect(try target.allEvents() == export.events)
        #expect(try target.appleRefreshTokens(subject: "001234.apple") == export.appleRefreshTokens)
        #expect(
            try target.transaction { transaction throws(StorageError) in
                (
                    try transaction.isLinkDeclined(LinkDecline(StoreSamples.userID(2), StoreSamples.userID(1))),
                    try transaction.appleNotificationWatermark(subject: "001234.apple", now: StoreSamples.now)
                )
            } == (true, StoreSamples.now)
        )
        #expect(
            try target.transaction { transaction throws(StorageError) in
                [
                    try transaction.deleteEnrollmentToken(hash: link.tokenHash) == link,
                    try transaction.recoveryCodeCount(userID: StoreSamples.userID(1)) == 2,
                ]
            } == [true, true]
        )
        // New events get IDs after the copied ones.
        #expect(
            try target.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(3, owner: 1)) }
                > events[1]
        )
        #expect(
            try !target.transaction { transaction throws(StorageError) in
                try transaction.rememberNonce([5, 5], until: StoreSamples.now.addingTimeInterval(600), now: StoreSamples.now)
            }
        )
        #expect(try target.dueRevocations(now: StoreSamples.now, limit: 10).map(\.id) == [revocation])
        // New revocations get IDs after the copied ones.
        #expect(
            try target.transaction { transaction throws(StorageError) in
                try transaction.enqueueRevocation(token: [1], clientID: "com.example.app", notBefore: StoreSamples.now)
            } > revocation
        )

        // A second import is refused and changes nothing.
        do {
            try target.importRecords(export)
            Issue.record("an import into a non-empty database was accepted")
        } catch {
            #expect(error.code == .notEmpty)
        }
        #expect(try target.credentials(userID: StoreSamples.userID(1)).count == 2)
    }

    /// `passkeyd migrate` carries each account's name key: the copy finds `Frank` as `FRANK` and refuses `frank`.
    @Test func importCarriesTheNameKeys() throws {
        let source = try SQLiteStore.inMemory()
        try source.seedUser(StoreSamples.user(1, name: "Frank"), credential: StoreSamples.credential(1, owner: 1))
        let cluster = try PostgresClusterScope.current()
        let name = try cluster.createDatabase()
        let target = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 1)
        defer { target.close() }
        try target.importRecords(try source.exportRecords())
        #expect(try cluster.psql("SELECT name || ' ' || name_key FROM users", database: name) == "Frank frank")
        #expect(try target.user(name: "FRANK")?.id == StoreSamples.userID(1))
        #expect {
            try target.seedUser(StoreSamples.user(2, name: "frank"), credential: StoreSamples.credential(2, owner: 2))
        } throws: { ($0 as? StorageError)?.code == .usernameTaken }
    }

    @Test func aFailedImportLeavesNothingBehind() throws {
        var export = StoreExport()
        export.users = [StoreSamples.user(1, name: "same"), StoreSamples.user(2, name: "same")]
        let target = try PostgresStore(connectionString: try newDatabase(), poolSize: 1)
        do {
            try target.importRecords(export)
            Issue.record("an export with a username twice was imported")
        } catch {
            #expect(error.code == .usernameTaken)
        }
        #expect(try target.user(id: StoreSamples.userID(1)) == nil)
        try target.importRecords(StoreExport())
    }
}
