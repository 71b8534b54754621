import Foundation
import Storage
import TestSupport
import Testing

@testable import StoragePostgres

/// Schema step 28 (issue 42): the registration's write takes its 56 arguments as one value of
/// `passkeyd_registration_call` (`passkeyd_register`), as the sign-in's does; nodes of the previous release still call
/// step 24's `passkeyd_complete_registration` with the same values as arguments, beside it.
@Suite("PostgreSQL registration write", PostgresClusterScope())
struct PostgresRegistrationWriteTests {
    /// A store on a new database whose user 1 has credential 1, and that database's connection string.
    private func seededStore() throws -> (store: PostgresStore, connectionString: String) {
        let cluster = try PostgresClusterScope.current()
        let connectionString = cluster.connectionString(database: try cluster.createDatabase())
        let store = try PostgresStore(connectionString: connectionString, poolSize: 1)
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        return (store, connectionString)
    }

    /// The code of the error `body` throws; nil when it throws none.
    private func failure(_ body: () throws(StorageError) -> Void) -> StorageError.Code? {
        do {
            try body()
            return nil
        } catch {
            return error.code
        }
    }

    /// User 1's passkey `number` with a session, an event and a notice of their own, numbered `session` (by default the
    /// passkey's number).
    private func registration(_ number: UInt8, session sessionNumber: UInt8? = nil) -> (CredentialRecord, SessionRecord, [NewEvent], [NewMail]) {
        var credential = StoreSamples.credential(number, owner: 1)
        credential.userID = StoreSamples.userID(1)
        let mark = sessionNumber ?? number
        var session = StoreSamples.session(mark, owner: 1)
        session.credentialID = credential.id
        let notice = NewMail(
            kind: "securityNotice",
            recipient: "person1@example.org",
            userID: StoreSamples.userID(1),
            messageID: "notice-\(mark)",
            message: Array("Subject: a passkey was added\r\n\r\nbody \(mark)\r\n".utf8),
            createdAt: StoreSamples.now
        )
        return (credential, session, [StoreSamples.event(Int(mark), owner: 1, type: "passkey.added")], [notice])
    }

    /// During a rolling upgrade to step 28, nodes of the previous release call step 24's function with the
    /// registration's values as its arguments (each placeholder cast, as that release sent them) beside this release's
    /// `passkeyd_register`: both write the same rows and answer the same count, 0 for a disabled user.
    @Test func aNodeOfThePreviousReleaseRegistersBesideThisOne() throws {
        let (store, connectionString) = try seededStore()
        defer { store.close() }
        let previous = try PostgresConnection(connectionString: connectionString)
        let registrationOfThePreviousRelease = { (number: UInt8, session: UInt8?) throws -> Int64? in
            let (credential, session, events, mail) = registration(number, session: session)
            var parameters = PostgresParameters()
            let placeholders = parameters.bind(
                try PostgresStore.registrationFields(newUser: nil, credential: credential, session: session, events: events, mail: mail)
            )
            return try previous.run("SELECT passkeyd_complete_registration(\(placeholders))", parameters.values) { row throws(PostgresError) in
                try row.integer(0)
            }.first
        }
        let register = { (number: UInt8, session: UInt8?) throws(StorageError) in
            let (credential, session, events, mail) = registration(number, session: session)
            try store.completeRegistration(newUser: nil, credential: credential, session: session, events: events, mail: mail)
        }
        #expect(try registrationOfThePreviousRelease(2, nil) == 1)
        try register(3, nil)
        #expect(
            try store.credentials(userID: StoreSamples.userID(1)).map(\.id).sorted { $0.lexicographicallyPrecedes($1) }
                == [1, 2, 3].map { StoreSamples.credential($0, owner: 1).id }
        )
        #expect(try store.allEvents().map(\.type) == ["passkey.added", "passkey.added"])
        #expect(Set(try store.mailOutbox(status: nil, after: 0, limit: 10).map(\.messageID)) == ["notice-2", "notice-3"])
        // Each refuses the other's passkey ID (with a session of its own), writing nothing.
        #expect(failure { () throws(StorageError) in try register(2, 12) } == .credentialExists)
        #expect(throws: (any Error).self) { try registrationOfThePreviousRelease(3, 13) }
        var disabled = StoreSamples.user(1)
        disabled.disabled = true
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(disabled) }
        #expect(try registrationOfThePreviousRelease(4, nil) == 0)
        #expect(failure { () throws(StorageError) in try register(5, nil) } == .userDisabled)
        #expect(try store.credentials(userID: StoreSamples.userID(1)).count == 3)
        #expect(try store.allEvents().count == 2)
        #expect(try store.mailOutbox(status: nil, after: 0, limit: 10).count == 2)
    }

    /// A new account's registration through the composite argument: the account, its passkey and session, all at once.
    @Test func aNewAccountRegistersThroughTheCompositeArgument() throws {
        let (store, _) = try seededStore()
        defer { store.close() }
        let user = StoreSamples.user(2, name: "ren")
        let credential = StoreSamples.credential(7, owner: 2)
        var session = StoreSamples.session(7, owner: 2)
        session.credentialID = credential.id
        try store.completeRegistration(newUser: user, credential: credential, session: session, events: [], mail: [])
        #expect(try store.user(id: user.id) == user)
        #expect(try store.credential(id: credential.id) == credential)
        #expect(try store.session(tokenHash: session.tokenHash, now: StoreSamples.now)?.id == session.id)
    }
}
