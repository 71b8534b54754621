import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for the event outbox (`EventStore`, `StoreTransaction.appendEvent`, the
/// ceremonies' `events:`).
extension StoreContract {
    static let eventChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "events are read back in order with increasing ids", run: eventsAreReadInOrder),
        StoreContractCheck(name: "an event commits with its change or not at all", run: eventsCommitWithTheirChange),
        StoreContractCheck(name: "ceremonies append their events in the same transaction", run: ceremoniesAppendTheirEvents),
        StoreContractCheck(name: "events are bounded", run: eventsAreBounded),
        StoreContractCheck(name: "purgeEvents removes old events only; ids are not reused", run: eventsArePurged),
        StoreContractCheck(name: "8 threads appending events: unique increasing ids", run: concurrentEventsHaveUniqueIDs),
        StoreContractCheck(name: "an event keeps its UUID; a repeated UUID is refused", run: eventUUIDsAreUnique),
    ]

    public static func eventsAreReadInOrder(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let events = [StoreSamples.event(1, owner: 1), StoreSamples.event(2, owner: nil, type: "user.deleted"), StoreSamples.event(3, owner: 2)]
        let ids = try store.transaction { transaction throws(StorageError) -> [Int64] in
            var ids: [Int64] = []
            for event in events {
                ids.append(try transaction.appendEvent(event))
            }
            return ids
        }
        try expect(ids[0] < ids[1] && ids[1] < ids[2], "ids increase: \(ids)")
        let stored = zip(ids, events).map { EventRecord(id: $0, $1) }
        try expectEqual(try store.events(after: 0, limit: 10), stored, "every event")
        try expectEqual(try store.events(after: ids[0], limit: 10), Array(stored.dropFirst()), "after the first")
        try expectEqual(try store.events(after: ids[0], limit: 1), [stored[1]], "limit")
        try expectEqual(try store.events(after: ids[2], limit: 10), [], "after the last")
        try expectEqual(try store.events(after: 0, limit: 0), [], "limit 0")
        let later = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(StoreSamples.event(4, owner: 1)) }
        try expect(later > ids[2], "a later transaction's id is higher")
    }

    public static func eventsCommitWithTheirChange(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertUser(StoreSamples.user(1))
            try transaction.appendEvent(StoreSamples.event(1, owner: 1, type: "user.created"))
        }
        try expectEqual(try store.allEvents().map(\.type), ["user.created"], "the committed event")
        try expectStorageError(.usernameTaken, "a failing change") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.appendEvent(StoreSamples.event(2, owner: 2, type: "user.created"))
                try transaction.insertUser(StoreSamples.user(2, name: StoreSamples.user(1).name))
            }
        }
        try expectStorageError(.notFound, "a body that gives up") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.appendEvent(StoreSamples.event(3, owner: 1))
                throw StorageError(.notFound, "gave up")
            }
        }
        try expectEqual(try store.allEvents().map(\.type), ["user.created"], "no event of a failed change")
        try store.transaction { transaction throws(StorageError) in
            guard try transaction.deleteUser(id: StoreSamples.userID(1)) else { throw StorageError(.notFound, "no user") }
            try transaction.appendEvent(StoreSamples.event(4, owner: 1, type: "user.deleted"))
        }
        try expectEqual(try store.allEvents().map(\.type), ["user.created", "user.deleted"], "events outlive their user")
        try expectEqual(try store.allEvents().map(\.userID), [StoreSamples.userID(1), StoreSamples.userID(1)], "with its handle")
    }

    public static func ceremoniesAppendTheirEvents(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 5
        let created = [StoreSamples.event(1, owner: 1, type: "user.created"), StoreSamples.event(2, owner: 1, type: "passkey.registered")]
        try store.completeRegistration(
            newUser: StoreSamples.user(1),
            credential: credential,
            session: StoreSamples.session(1, owner: 1),
            events: created
        )
        let added = [StoreSamples.event(3, owner: 1, type: "passkey.registered"), StoreSamples.event(4, owner: 1, type: "session.created")]
        try store.completeRegistration(
            newUser: nil,
            credential: StoreSamples.credential(2, owner: 1),
            session: StoreSamples.session(2, owner: 1),
            events: added
        )
        try expectStorageError(.usernameTaken, "a refused registration") { () throws(StorageError) in
            try store.completeRegistration(
                newUser: StoreSamples.user(3, name: StoreSamples.user(1).name),
                credential: StoreSamples.credential(3, owner: 3),
                session: StoreSamples.session(3, owner: 3),
                events: [StoreSamples.event(5, owner: 3, type: "user.created")]
            )
        }
        let signedIn = [StoreSamples.event(6, owner: 1, type: "session.created")]
        func signIn(_ signCount: UInt32, _ session: UInt8) throws(StorageError) {
            _ = try store.completeAuthentication(
                AuthenticationUpdate(
                    credentialID: credential.id,
                    signCount: signCount,
                    backupEligible: true,
                    backupState: true,
                    usedAt: StoreSamples.now,
                    backupEligibilityChanged: false
                ),
                session: StoreSamples.session(session, owner: 1),
                events: signedIn,
                spending: nil,
                expecting: SignInExpectation(credential)
            )
        }
        try expectStorageError(.signCountNotIncreased, "a refused sign-in") { () throws(StorageError) in try signIn(5, 4) }
        try expectStorageError(.duplicateKey, "a sign-in with a taken session") { () throws(StorageError) in try signIn(6, 1) }
        try signIn(6, 5)
        try expectEqual(
            try store.allEvents().map { NewEvent(id: $0.uuid ?? UUID(), type: $0.type, userID: $0.userID, occurredAt: $0.occurredAt, data: $0.data) },
            created + added + signedIn,
            "events of the ceremonies that succeeded"
        )
    }

    public static func eventsAreBounded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let invalid: [(String, NewEvent)] = [
            ("empty type", NewEvent(id: StoreSamples.eventID(101), type: "", userID: nil, occurredAt: StoreSamples.now, data: [])),
            ("capitals", NewEvent(id: StoreSamples.eventID(102), type: "User.Created", userID: nil, occurredAt: StoreSamples.now, data: [])),
            ("a space", NewEvent(id: StoreSamples.eventID(103), type: "user created", userID: nil, occurredAt: StoreSamples.now, data: [])),
            (
                "long type",
                NewEvent(
                    id: StoreSamples.eventID(104),
                    type: String(repeating: "a", count: NewEvent.maximumTypeBytes + 1),
                    userID: nil,
                    occurredAt: StoreSamples.now,
                    data: []
                )
            ),
            (
                "large data",
                NewEvent(
                    id: StoreSamples.eventID(105),
                    type: "x",
                    userID: nil,
                    occurredAt: StoreSamples.now,
                    data: [UInt8](repeating: 0x20, count: NewEvent.maximumDataBytes + 1)
                )
            ),
        ]
        for (what, event) in invalid {
            try expectStorageError(.invalidRecord, what) { () throws(StorageError) in
                _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(event) }
            }
            try expectStorageError(.invalidRecord, "\(what), in a ceremony") { () throws(StorageError) in
                try store.completeRegistration(
                    newUser: nil,
                    credential: StoreSamples.credential(2, owner: 1),
                    session: StoreSamples.session(2, owner: 1),
                    events: [event]
                )
            }
        }
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 1).id), nil, "no credential of a refused ceremony")
        let largest = NewEvent(
            id: StoreSamples.eventID(108),
            type: "a._" + String(repeating: "z9", count: 30) + "a",
            userID: nil,
            occurredAt: StoreSamples.now,
            data: [UInt8](repeating: 0x20, count: NewEvent.maximumDataBytes)
        )
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(largest) }
        try expectEqual(try store.allEvents().map(\.data.count), [NewEvent.maximumDataBytes], "the largest event")
    }

    public static func eventsArePurged(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let now = StoreSamples.now
        let ids = try store.transaction { transaction throws(StorageError) -> [Int64] in
            var ids: [Int64] = []
            for age in [3.0, 2.0, 1.0, 0.0] {
                ids.append(
                    try transaction.appendEvent(
                        NewEvent(id: StoreSamples.eventID(110 + Int(age)), type: "x", userID: nil, occurredAt: now.addingTimeInterval(-age), data: [])
                    )
                )
            }
            return ids
        }
        try expectEqual(try store.purgeEvents(occurredBefore: now.addingTimeInterval(-1)), 2, "purged")
        try expectEqual(try store.purgeEvents(occurredBefore: now.addingTimeInterval(-1)), 0, "purged again")
        try expectEqual(try store.allEvents().map(\.id), Array(ids.suffix(2)), "the recent ones")
        try expectEqual(try store.purgeEvents(occurredBefore: now.addingTimeInterval(1)), 2, "the rest")
        let next = try store.transaction { transaction throws(StorageError) in
            try transaction.appendEvent(NewEvent(id: StoreSamples.eventID(107), type: "x", userID: nil, occurredAt: now, data: []))
        }
        try expect(next > ids[3], "an id is not reused after a purge: \(next) after \(ids[3])")
    }

    public static func concurrentEventsHaveUniqueIDs(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let failures = appendConcurrently(threads: 8, rounds: 25) { _ in store }
        try expectEqual(failures, [], "failed transactions")
        let events = try store.allEvents()
        try expectEqual(events.count, 200, "events")
        try expectEqual(Set(events.map(\.id)).count, 200, "unique ids")
        try expectEqual(events.map(\.id), events.map(\.id).sorted(), "read in id order")
    }

    public static func eventUUIDsAreUnique(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        let first = StoreSamples.event(1, owner: 1)
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(first) }
        try expectEqual(try store.allEvents().map(\.uuid), [first.id], "the stored UUID")
        try expectEqual(try store.allEvents().map(\.publicID), ["evt_" + first.id.lowercaseText], "the public ID")
        var repeated = StoreSamples.event(2, owner: nil, type: "user.deleted")
        repeated.id = first.id
        try expectStorageError(.duplicateKey, "a repeated UUID") { () throws(StorageError) in
            _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(repeated) }
        }
        var twice = StoreSamples.event(3, owner: 1)
        twice.type = "user.updated"
        try expectStorageError(.duplicateKey, "one UUID twice in a transaction") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                try transaction.appendEvent(twice)
                try transaction.appendEvent(twice)
            }
        }
        try expectStorageError(.duplicateKey, "a repeated UUID in a ceremony") { () throws(StorageError) in
            try store.completeRegistration(
                newUser: nil,
                credential: StoreSamples.credential(2, owner: 1),
                session: StoreSamples.session(2, owner: 1),
                events: [StoreSamples.event(4, owner: 1, type: "passkey.registered"), repeated]
            )
        }
        try expectEqual(try store.allEvents().map(\.uuid), [first.id], "nothing of the refused transactions")
        try expectEqual(try store.credential(id: StoreSamples.credential(2, owner: 1).id), nil, "no credential of the refused ceremony")
        let second = StoreSamples.event(5, owner: 1)
        _ = try store.transaction { transaction throws(StorageError) in try transaction.appendEvent(second) }
        try expectEqual(try store.allEvents().map(\.uuid), [first.id, second.id], "a new UUID is taken")
        let stored = try store.allEvents()
        try expectEqual(
            try store.publicEventIDs(of: stored.map(\.id) + [stored[1].id + 1_000]),
            Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.publicID) }),
            "the public IDs by sequence number, none for a number without an event"
        )
        try expectEqual(try store.publicEventIDs(of: []), [:], "no numbers")
        try expectStorageError(.invalidRecord, "too many numbers") { () throws(StorageError) in
            _ = try store.publicEventIDs(of: Array(1...Int64(1_001)))
        }
    }

    /// Runs `threads` threads at once, each making `rounds` transactions that append one event of user 1, or of
    /// nobody on odd rounds (thread `index` on `store(index)`), and returns the errors.
    public static func appendConcurrently(threads: Int, rounds: Int, store: @escaping @Sendable (Int) -> any PasskeyStore) -> [StorageError] {
        concurrently(threads: threads, rounds: rounds) { index, round throws(StorageError) in
            _ = try store(index).transaction { transaction throws(StorageError) in
                try transaction.appendEvent(StoreSamples.event(index * rounds + round, owner: round % 2 == 0 ? 1 : nil))
            }
        }
    }
}
