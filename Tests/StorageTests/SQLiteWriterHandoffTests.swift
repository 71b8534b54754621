import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

#if canImport(Glibc)
import Glibc
#endif

/// A thread of lowered priority (the HTTP server's suspect lane) never holds the writer's lock itself: its writer
/// sections run on the store's handoff thread, at the priority of the thread that opened the store
/// (`SQLiteWriterHandoff`); every other thread's run where they are called.
@Suite("SQLiteStore writer handoff")
struct SQLiteWriterHandoffTests {
    @Test func aNicedThreadsWritesRunAtTheStoresPriority() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        var credential = StoreSamples.credential(1, owner: 1)
        credential.signCount = 0
        try store.seedUser(StoreSamples.user(1), credential: credential)
        let baseline = Self.nice()
        let ownSection = try store.withConnection { _ throws(SQLiteError) in (Self.threadID(), Self.nice()) }
        #expect(ownSection == (Self.threadID(), baseline), "a thread of the store's priority writes itself")
        #expect(store.writerHandoff.handedOffCount == 0)

        let challenge = StoreSamples.challenge(7)
        let niced = Self.onNicedThread { () throws(StorageError) -> (thread: pthread_t, nice: Int32, section: (thread: pthread_t, nice: Int32)) in
            let section = try store.withConnection { _ throws(SQLiteError) in (Self.threadID(), Self.nice()) }
            try store.insertChallenge(challenge)
            _ = try store.completeAuthentication(
                Self.update(),
                session: Self.session(),
                events: [],
                spending: nil,
                expecting: StoreSamples.expecting(1, owner: 1)
            )
            return (Self.threadID(), Self.nice(), section)
        }
        let outcome = try niced.get()
        #expect(outcome.nice > baseline, "the thread runs niced")
        #expect(outcome.section.thread != outcome.thread, "its section ran on another thread")
        #expect(outcome.section.nice == baseline, "at the store's priority")
        #expect(store.writerHandoff.handedOffCount == 3, "the section, the challenge and the group commit")
        #expect(try store.takeChallenge(challenge.challenge, now: StoreSamples.now) == .valid(challenge), "the handed-off write stands")
        #expect(try store.session(id: Self.session().id, now: StoreSamples.now) != nil)
        #expect(try store.credential(id: StoreSamples.credential(1, owner: 1).id)?.signCount == 77)
    }

    @Test func aHandedOffSectionsErrorReachesItsCaller() throws {
        let store = try SQLiteStore.inMemory()
        defer { store.close() }
        let outcome = Self.onNicedThread { () throws(StorageError) in
            try store.withConnection { connection throws(SQLiteError) in try connection.execute("SELECT * FROM no_such_table") }
        }
        #expect(throws: StorageError.self) { try outcome.get() }
        #expect(store.writerHandoff.handedOffCount == 1)
    }

    /// Closed, the store ends the thread; a niced thread's later write is refused where it is called, never left waiting.
    @Test func aClosedStoreRefusesANicedThreadsWrite() throws {
        let store = try SQLiteStore.inMemory()
        _ = Self.onNicedThread { () throws(StorageError) in try store.withConnection { _ throws(SQLiteError) in } }
        store.close()
        let outcome = Self.onNicedThread { () throws(StorageError) in try store.withConnection { _ throws(SQLiteError) in } }
        #expect(throws: StorageError.self) { try outcome.get() }
        #expect(store.writerHandoff.handedOffCount == 1)
    }

    /// Runs `body` on a new thread whose nice value is 5 above the caller's, and returns what it returned or threw.
    private static func onNicedThread<Value: Sendable>(_ body: @escaping @Sendable () throws(StorageError) -> Value) -> Result<Value, StorageError> {
        let target = min(nice() + 5, 19)
        nonisolated(unsafe) var outcome: Result<Value, StorageError>?
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, target)
            outcome = Result { () throws(StorageError) -> Value in try body() }
            finished.signal()
        }
        thread.start()
        finished.wait()
        return outcome!
    }

    private static func nice() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    private static func threadID() -> pthread_t { pthread_self() }

    private static func session() -> SessionRecord { StoreSamples.session(1, owner: 1) }

    private static func update() -> AuthenticationUpdate { StoreSamples.signIn(owner: 1, signCount: 77, backupState: false) }
}
