import Foundation
import HTTPEdge
import PasswordHashes
import Synchronization

/// Verifies imported password hashes for `POST /auth/password`, at most `limit` at once on this node: a verification
/// beyond them is refused at once (`503 password_verification_busy`), never queued. An account without a hash costs what one with a
/// hash costs: the timing twin of the last hash verified (bcrypt at cost 10 before any) is verified instead, and
/// nothing matches it.
///
/// Each hash runs on a thread of its own (`HashingThread`), by default at the idle scheduling policy, so that it takes
/// only the CPU that nothing else of the machine wants: a flood of password guesses no longer delays the other
/// requests, and is slowed, then refused, when the cores are busy. A verification not done within `deadline` (the
/// cores busy that long) is answered `503 password_verification_busy`; its slot is taken until its hash ends.
final class PasswordVerifier: Sendable {
    private let limit: Int
    private let deadline: Duration
    private let idle: Bool
    private let state: Mutex<State>

    private struct State {
        var running = 0
        var template = PasswordVerifier.defaultTemplate
    }

    /// One verification's outcome, handed from its thread to the request's.
    private final class Outcome: Sendable {
        private let result = Mutex<Result<Bool, PasswordHashError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ outcome: Result<Bool, PasswordHashError>) {
            result.withLock { $0 = outcome }
            done.signal()
        }

        /// The outcome, or nil when it did not come within `deadline`.
        func wait(_ deadline: Duration) -> Result<Bool, PasswordHashError>? {
            let (seconds, attoseconds) = deadline.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
            return result.withLock { $0 }
        }
    }

    /// What an unknown account is verified against before any hash was: bcrypt at cost 10, the common default.
    static let defaultTemplate = (try? PasswordHash("$2b$10$" + String(repeating: ".", count: 53)))!

    /// `idle`: hashes at the idle scheduling policy (`passwords.hashing`).
    init(limit: Int, idle: Bool = true, deadline: Duration = .seconds(5)) {
        self.limit = limit
        self.idle = idle
        self.deadline = deadline
        state = Mutex(State())
    }

    /// Whether `password` matches `hash` (nil: no account or no hash, which never matches, after the same work).
    /// - Throws: `503 password_verification_busy` when `limit` verifications are running, or when this one did not end
    ///   within `deadline`; `503` as well when the hash library fails.
    func verify(_ password: String, against hash: PasswordHash?) throws(ServerError) -> Bool {
        let template = try enter()
        let verified = hash ?? template
        let outcome = Outcome()
        let started = HashingThread.start(idle: idle) { [self] in
            let result: Result<Bool, PasswordHashError>
            do throws(PasswordHashError) {
                let matched = try verified.verify(Array(password.utf8))
                result = .success(hash == nil ? false : matched)
            } catch {
                result = .failure(error)
            }
            state.withLock { state in
                state.running -= 1
                if let hash { state.template = hash.timingTwin }
            }
            outcome.finish(result)
        }
        guard started else {
            state.withLock { $0.running -= 1 }
            throw Self.busy
        }
        switch outcome.wait(deadline) {
        case nil: throw Self.busy
        case .success(let matched): return matched
        case .failure(let error): throw ServerError(.storageUnavailable, detail: "password verification failed: \(error.code)")
        }
    }

    /// Takes a slot and answers the timing twin, or refuses at once.
    private func enter() throws(ServerError) -> PasswordHash {
        let template = state.withLock { state -> PasswordHash? in
            guard state.running < limit else { return nil }
            state.running += 1
            return state.template
        }
        guard let template else { throw Self.busy }
        return template
    }

    private static var busy: ServerError {
        var error = ServerError(.passwordVerificationBusy)
        error.headers = [("Retry-After", "1")]
        return error
    }
}
