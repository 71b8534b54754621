import Foundation
import Storage

/// The clause of the store contract for the notice of a registration: `completeRegistration`'s mail is queued in the
/// same commit as the passkey (one statement on PostgreSQL), and not at all when the registration is refused.
extension StoreContract {
    static let registrationMailChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "registration: its mail is queued with the passkey, none when refused", run: registrationQueuesItsMail)
    ]

    static func notice(_ number: UInt8, owner: UInt8) -> NewMail {
        NewMail(
            kind: "securityNotice",
            recipient: "person\(owner)@example.org",
            userID: StoreSamples.userID(owner),
            messageID: "notice-\(number)",
            message: Array("Subject: a passkey was added\r\n\r\nbody \(number)\r\n".utf8),
            createdAt: StoreSamples.now
        )
    }

    public static func registrationQueuesItsMail(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var second = StoreSamples.credential(2, owner: 1)
        second.userID = StoreSamples.userID(1)
        var session = StoreSamples.session(2, owner: 1)
        session.credentialID = second.id
        try store.completeRegistration(
            newUser: nil,
            credential: second,
            session: session,
            events: [StoreSamples.event(1, owner: 1)],
            mail: [notice(1, owner: 1), notice(2, owner: 1)]
        )
        let queued = try store.mailOutbox(status: nil, after: 0, limit: 10)
        try expectEqual(Set(queued.map(\.messageID)), ["notice-1", "notice-2"], "queued with the passkey")
        try expectEqual(queued.map(\.status), [.pending, .pending], "pending")
        try expectEqual(Set(queued.compactMap(\.userID)), [StoreSamples.userID(1)], "the account")
        let claimed = try store.claimMail(owner: "contract", now: StoreSamples.now, leaseUntil: StoreSamples.now.addingTimeInterval(60), limit: 5)
        try expectEqual(
            Set(claimed.compactMap(\.message)),
            [notice(1, owner: 1).message, notice(2, owner: 1).message],
            "the messages, ready to send"
        )

        // Refused (the passkey exists): nothing queued.
        var again = StoreSamples.session(3, owner: 1)
        again.credentialID = second.id
        try expectStorageError(.credentialExists, "the same passkey again") { () throws(StorageError) in
            try store.completeRegistration(newUser: nil, credential: second, session: again, events: [], mail: [notice(3, owner: 1)])
        }
        // Refused (the user is disabled): nothing queued.
        var user = StoreSamples.user(1)
        user.disabled = true
        _ = try store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        var third = StoreSamples.credential(3, owner: 1)
        third.userID = user.id
        var thirdSession = StoreSamples.session(4, owner: 1)
        thirdSession.credentialID = third.id
        try expectStorageError(.userDisabled, "a disabled user's registration") { () throws(StorageError) in
            try store.completeRegistration(newUser: nil, credential: third, session: thirdSession, events: [], mail: [notice(4, owner: 1)])
        }
        try expectEqual(try store.mailOutbox(status: nil, after: 0, limit: 10).count, 2, "nothing queued by a refused registration")
    }
}
