import Dispatch
import Foundation
import HTTPEdge
import PasswordHashes
import Synchronization
import Testing

@testable import RelyingPartyServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 44: a password hash takes only the CPU nothing else wants, and a verification waits for it a bounded time.
struct PasswordVerifierTests {
    /// bcrypt at cost 13: about half a second on one core, longer than the deadlines below.
    static let slow = (try? PasswordHash("$2b$13$" + String(repeating: ".", count: 53)))!

    /// `passwords.hashing`: `idle` (the default) runs a hash at `SCHED_IDLE` (5), `normal` at `SCHED_OTHER` (0).
    @Test(arguments: [(true, Int32(5)), (false, Int32(0))])
    func aHashRunsOnAThreadOfItsOwnAtTheConfiguredPolicy(idle: Bool, policy expected: Int32) throws {
        let policy = Mutex<Int32>(-1)
        let done = DispatchSemaphore(value: 0)
        #expect(
            HashingThread.start(idle: idle) {
                policy.withLock { $0 = sched_getscheduler(0) }
                done.signal()
            }
        )
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(policy.withLock { $0 } == expected)
    }

    @Test func aVerificationPastItsDeadlineIsBusyAndItsHashHoldsTheSlotUntilItEnds() throws {
        let verifier = PasswordVerifier(limit: 1, deadline: .milliseconds(150))
        let began = ContinuousClock.now
        do {
            _ = try verifier.verify("password", against: Self.slow)
            Issue.record("a verification outlived its deadline")
        } catch {
            #expect(error.code == .passwordVerificationBusy)
            #expect(error.headers.contains { $0.0 == "Retry-After" })
        }
        #expect(ContinuousClock.now - began >= .milliseconds(150), "waited for its deadline")
        let again = ContinuousClock.now
        #expect(throws: ServerError.self, "the slot is still taken") { try verifier.verify("password", against: nil) }
        #expect(ContinuousClock.now - again < .milliseconds(100), "refused at once, not after a deadline of its own")
    }

    /// At the default policy: in a parallel test run the cores are busy, and an idle hash could wait past its deadline.
    @Test func aVerificationWithinItsDeadlineAnswersAndFreesItsSlot() throws {
        let quick = try PasswordHash("$2b$04$" + String(repeating: ".", count: 53))
        let verifier = PasswordVerifier(limit: 1, idle: false)
        #expect(try verifier.verify("password", against: quick) == false)
        #expect(try verifier.verify("password", against: nil) == false, "the slot is free again")
    }
}
