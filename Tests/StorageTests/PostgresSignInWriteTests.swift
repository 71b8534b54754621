import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Schema step 25 (issue 42): the sign-in's final write leaves the webhook deliveries out of its statement when no
/// endpoint is subscribed, so that PostgreSQL does not set up their insert, its sort, window and join and open the
/// deliveries' four indexes on every sign-in. Seen from outside: a sign-in goes through while another session holds
/// `webhook_deliveries` locked, which the statement of step 24 waited for until its `lock_timeout`. Schema step 27: the
/// expected sign-in's write is a sequence of statements that stops at the first refusal, so a replayed or refused
/// sign-in no longer sets up (and locks) the tables it does not write, which step 26's single statement did. Schema
/// step 28: the same write as `passkeyd_sign_in`, answering columns of its own; nodes of the previous release still
/// call step 27's function beside it.
@Suite("PostgreSQL sign-in write", PostgresClusterScope())
struct PostgresSignInWriteTests {
    /// A store on a new database whose user 1 has credential 1 with counter 5, and that database's connection string.
    private func seededStore() throws -> (store: PostgresStore, credential: CredentialRecord, connectionString: String) {
        let cluster = try PostgresClusterScope.current()
        let connectionString = cluster.connectionString(database: try cluster.createDatabase())
        let store = try PostgresStore(connectionString: connectionString, poolSize: 1)
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        try store.seedUser(StoreSamples.user(1), credential: credential)
        return (store, credential, connectionString)
    }

    /// Another session holding `tables` locked until it rolls back.
    private func holdLocked(_ tables: String, _ connectionString: String) throws -> PostgresConnection {
        let holder = try PostgresConnection(connectionString: connectionString)
        try holder.execute("BEGIN; LOCK TABLE \(tables) IN ACCESS EXCLUSIVE MODE")
        return holder
    }

    /// The write answers one composite column (since the call has no `FROM`), read field by field in binary format: a
    /// value with another number of fields than the answer type's is refused, not read short.
    @Test func aCompositeAnswerReadsItsFieldsAndRefusesAnotherShape() throws {
        let cluster = try PostgresClusterScope.current()
        let connection = try PostgresConnection(connectionString: cluster.connectionString(database: try cluster.createDatabase()))
        let sql = "SELECT ROW('recorded'::text, NULL::bytea, 2.5::float8, true)"
        let read = try connection.run(sql, []) { row throws(PostgresError) in
            let answer = try row.composite(0, fields: 4)
            return (answer.text(0), answer.isNull(1), try answer.double(2), try answer.columns(from: 3).boolean(0), answer.isNull(4))
        }.first
        #expect(read?.0 == "recorded" && read?.1 == true && read?.2 == 2.5 && read?.3 == true && read?.4 == true)
        for fields in [3, 5] {
            #expect(throws: PostgresError.self, "\(fields) fields") {
                _ = try connection.run(sql, []) { row throws(PostgresError) in try row.composite(0, fields: fields) }
            }
        }
        #expect(throws: PostgresError.self, "NULL") {
            _ = try connection.run("SELECT NULL::record", []) { row throws(PostgresError) in try row.composite(0, fields: 0) }
        }
    }

    /// The write takes its arguments as one composite value (`passkeyd_sign_in_call`): the server reads a record
    /// argument field by field, NULLs and arrays included, and refuses one whose fields are not its type's (another
    /// type, another number of fields), never coercing them.
    @Test func aRecordArgumentReadsAsItsTypeAndAnotherShapeIsRefused() throws {
        let cluster = try PostgresClusterScope.current()
        let connection = try PostgresConnection(connectionString: cluster.connectionString(database: try cluster.createDatabase()))
        try connection.execute("CREATE TYPE sample_call AS (name text, key bytea, times float8[], kept boolean)")
        let sql =
            "SELECT (given).name, (given).key IS NULL, cardinality((given).times)::int8, (given).kept FROM (SELECT $1::sample_call AS given) AS call"
        let fields: [(PostgresValue, String)] = [
            (.text("ann"), "text"), (.null, "bytea"), (.array([1.5, 2.5], of: 701) { .double($0) }, "float8[]"), (.boolean(true), "boolean"),
        ]
        let read = try connection.run(sql, [.record(typed: fields)]) { row throws(PostgresError) in
            (row.text(0), try row.boolean(1), try row.integer(2), try row.boolean(3))
        }.first
        #expect(read?.0 == "ann" && read?.1 == true && read?.2 == 2 && read?.3 == true)
        var anotherType = fields
        anotherType[1] = (.text("key"), "text")
        for shape in [anotherType, Array(fields.dropLast()), fields + [(.boolean(false), "boolean")]] {
            #expect(throws: PostgresError.self, "\(shape.map(\.1))") {
                _ = try connection.run(sql, [.record(typed: shape)]) { row throws(PostgresError) in row.text(0) }
            }
        }
    }

    @Test func aSignInWithoutEndpointsLeavesTheDeliveriesAlone() throws {
        let (store, credential, connectionString) = try seededStore()
        defer { store.close() }
        let holder = try holdLocked("webhook_deliveries", connectionString)
        defer { holder.rollBack() }
        let started = ContinuousClock.now
        _ = try store.completeAuthentication(
            StoreSamples.signIn(owner: 1, signCount: 9),
            session: StoreSamples.session(1, owner: 1),
            events: [StoreSamples.event(1, owner: 1, type: "session.created")],
            spending: nil,
            expecting: SignInExpectation(credential)
        )
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(try store.allEvents().map(\.type) == ["session.created"])
    }

    /// A replay of a spent challenge answers `challenge_spent` while `credentials` is locked, and a counter that did not
    /// increase answers `counter_not_increased` while `sessions` and `events` are: neither waits for a table it does
    /// not write (step 26's statement set up every table of its plan and waited until its `lock_timeout`, 4.5 s).
    @Test func aRefusedExpectedSignInLeavesTheTablesItDoesNotWriteAlone() throws {
        let (store, credential, connectionString) = try seededStore()
        defer { store.close() }
        let spent = StoreSamples.spentChallenge(7)
        let signIn = { (signCount: UInt32, session: UInt8, spending: ChallengeRecord?) throws(StorageError) in
            _ = try store.completeAuthentication(
                StoreSamples.signIn(owner: 1, signCount: signCount),
                session: StoreSamples.session(session, owner: 1),
                events: [StoreSamples.event(Int(session), owner: 1, type: "session.created")],
                spending: spending,
                expecting: SignInExpectation(credential)
            )
        }
        try signIn(6, 1, spent)
        // The tables locked, the refusal expected, and the sign-in refused: a replay, then a counter not above 6.
        let refusals: [(String, StorageError.Code, UInt32, UInt8, ChallengeRecord?)] = [
            ("credentials", .challengeSpent, 9, 2, spent), ("sessions, events", .signCountNotIncreased, 6, 3, nil),
        ]
        for (tables, code, signCount, session, spending) in refusals {
            let holder = try holdLocked(tables, connectionString)
            defer { holder.rollBack() }
            let started = ContinuousClock.now
            do {
                try signIn(signCount, session, spending)
                Issue.record("\(tables) locked: a refused sign-in went through")
            } catch {
                #expect(error.code == code, "\(tables) locked: \(error)")
            }
            #expect(ContinuousClock.now - started < .seconds(2), "\(tables) locked")
        }
        #expect(try store.allEvents().map(\.type) == ["session.created"])
    }

    /// During a rolling upgrade to step 28, nodes of the previous release call step 27's function with its statement
    /// (the owner's columns taken out of its `OUT` row) beside this release's `passkeyd_sign_in`: both write the same
    /// rows, so each refuses the other's spent challenges and counters, and both answer the owner.
    @Test func aNodeOfThePreviousReleaseSignsInBesideThisOne() throws {
        let (store, credential, connectionString) = try seededStore()
        defer { store.close() }
        let previous = try PostgresConnection(connectionString: connectionString)
        let signInOfThePreviousRelease = { (signCount: UInt32, session: UInt8, spending: ChallengeRecord?) throws in
            // The previous release binds the same values as step 27's arguments, without casts.
            var parameters = PostgresParameters(castsPlaceholders: false)
            let placeholders = parameters.bind(
                PostgresStore.signInFields(
                    StoreSamples.signIn(owner: 1, signCount: signCount),
                    session: StoreSamples.session(session, owner: 1),
                    events: [StoreSamples.event(Int(session), owner: 1, type: "session.created")],
                    spending: spending,
                    expecting: SignInExpectation(credential)
                )
            )
            let sql = """
                SELECT written.o_outcome, \(PostgresRecords.qualified(PostgresRecords.userColumns, "(written.o_owner)"))
                FROM passkeyd_complete_authentication_expecting(\(placeholders)) AS written
                """
            return try previous.run(sql, parameters.values) { row throws(PostgresError) in
                (row.text(0), row.isNull(1) ? nil : try PostgresRecords.userRecord(row.columns(from: 1)).id)
            }.first
        }
        let signIn = { (signCount: UInt32, session: UInt8, spending: ChallengeRecord?) throws(StorageError) in
            try store.completeAuthentication(
                StoreSamples.signIn(owner: 1, signCount: signCount),
                session: StoreSamples.session(session, owner: 1),
                events: [StoreSamples.event(Int(session), owner: 1, type: "session.created")],
                spending: spending,
                expecting: SignInExpectation(credential)
            ).id
        }
        let owner = StoreSamples.userID(1)
        let first = try signInOfThePreviousRelease(6, 1, StoreSamples.spentChallenge(7))
        #expect(first?.0 == "recorded" && first?.1 == owner)
        #expect(throws: StorageError.self) { try signIn(7, 2, StoreSamples.spentChallenge(7)) }
        #expect(try signIn(7, 3, StoreSamples.spentChallenge(8)) == owner)
        #expect(try signInOfThePreviousRelease(7, 4, nil)?.0 == "counter_not_increased")
        #expect(try signInOfThePreviousRelease(9, 5, StoreSamples.spentChallenge(8))?.0 == "challenge_spent")
        #expect(try store.allEvents().map(\.type) == ["session.created", "session.created"])
    }
}
