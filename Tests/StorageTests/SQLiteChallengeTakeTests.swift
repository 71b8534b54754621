import Dispatch
import Foundation
import Storage
import TestSupport
import Testing

@testable import StorageSQLite

/// Issue 44 (genuine users under attack): a challenge no read connection finds is refused as unknown without the
/// writer's lock, so a flood naming challenges never issued never holds a genuine commit up; a stored one is still
/// taken once, on the writer.
@Suite("SQLiteStore takeChallenge reads first")
struct SQLiteChallengeTakeTests {
    @Test func anUnknownChallengeIsRefusedWhileTheWriterIsHeld() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.newDatabasePath())
        defer { store.close() }
        let stored = StoreSamples.challenge(7)
        try store.insertChallenge(stored)

        let held = DispatchSemaphore(value: 0)
        let answered = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? store.withConnection { _ throws(SQLiteError) in
                held.signal()
                // Held until the unknown challenge was answered, or 5 s: a take that needs the writer waits that long.
                _ = answered.wait(timeout: .now() + 5)
            }
        }
        holder.start()
        held.wait()
        let started = Date()
        #expect(try store.takeChallenge(StoreSamples.challenge(8).challenge, now: StoreSamples.now) == .unknown)
        let elapsed = Date().timeIntervalSince(started)
        answered.signal()
        #expect(elapsed < 2, "the unknown challenge waited \(elapsed) s for the writer")

        #expect(try store.takeChallenge(stored.challenge, now: StoreSamples.now) == .valid(stored))
        #expect(try store.takeChallenge(stored.challenge, now: StoreSamples.now) == .unknown, "taken once")
    }
}
