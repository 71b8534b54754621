import ConfigurationFile
import CryptoCore
import Foundation
import MailTransport
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// What a send's result means for its message: sent; dead at once when permanent; retried with growing, bounded,
/// jittered waits; dead after `email.maximumAttempts`.
struct MailWorkerPolicyTests {
    static func worker(maximumAttempts: Int = 4) throws -> (MailWorker, ManualClock) {
        let json = #"""
            {"host": "smtp.example.com", "from": "a@example.com", "baseURL": "https://id.example.com", "firstRetrySeconds": 10, "maximumRetrySeconds": 60, "maximumAttempts": \#(maximumAttempts)}
            """#
        let settings = try #require(try ServerConfiguration(json: Data(#"{"email": \#(json)}"#.utf8)).email)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let worker = try MailWorker(settings: settings, store: InMemoryStore(), time: clock, random: SystemRandom(), attempts: nil, log: .discarding)
        return (worker, clock)
    }

    @Test func successIsSentAndPermanentFailuresDieAtOnce() throws {
        let (worker, _) = try Self.worker()
        #expect(worker.outcome(of: nil, attempts: 0) == .sent)
        #expect(
            worker.outcome(of: MailError(.rejectedPermanently, "550", replyCode: 550), attempts: 0)
                == .dead(error: "mail.rejectedPermanently", replyCode: 550)
        )
        #expect(worker.outcome(of: MailError(.headerInvalid, "x"), attempts: 0) == .dead(error: "mail.headerInvalid", replyCode: nil))
    }

    @Test func transientFailuresWaitLongerEachTimeWithinTheBoundsThenDie() throws {
        let (worker, clock) = try Self.worker()
        let failure = MailError(.rejectedTemporarily, "451", replyCode: 451)
        for (attempts, bounds) in [(0, 5.0...10.0), (1, 10.0...20.0), (2, 20.0...40.0)] {
            guard case .retry(let next, let error, let replyCode) = worker.outcome(of: failure, attempts: attempts) else {
                Issue.record("attempt \(attempts + 1) was not retried")
                continue
            }
            #expect(bounds.contains(next.timeIntervalSince(clock.now)), "attempt \(attempts + 1): \(next.timeIntervalSince(clock.now)) s")
            #expect(error == "mail.rejectedTemporarily" && replyCode == 451)
        }
        #expect(worker.outcome(of: failure, attempts: 3) == .dead(error: "mail.rejectedTemporarily", replyCode: 451), "the 4th attempt was the last")
        let (capped, cappedClock) = try Self.worker(maximumAttempts: 100)
        guard case .retry(let next, _, _) = capped.outcome(of: MailError(.timeout, "t"), attempts: 40) else {
            Issue.record("not retried")
            return
        }
        #expect((30.0...60.0).contains(next.timeIntervalSince(cappedClock.now)), "at most maximumRetrySeconds")
    }

    @Test func theLeaseOutlivesASendAndItsQuit() throws {
        let (worker, _) = try Self.worker()
        #expect(worker.leaseDuration == 65, "2 × 30 s + 5 s")
    }
}
