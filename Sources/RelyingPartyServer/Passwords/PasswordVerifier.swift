import Foundation
import HTTPEdge
import PasswordHashes
import Synchronization

/// Verifies imported password hashes for `POST /auth/password`, at most `limit` at once on this node: a verification
/// beyond them is refused at once (`503 password_verification_busy`), never queued. An account without a hash costs what one with a
/// hash costs: the timing twin of the last hash verified (bcrypt at cost 10 before any) is verified instead, and
/// nothing matches it.
final class PasswordVerifier: Sendable {
    private let limit: Int
    private let state: Mutex<State>

    private struct State {
        var running = 0
        var template = PasswordVerifier.defaultTemplate
    }

    /// What an unknown account is verified against before any hash was: bcrypt at cost 10, the common default.
    static let defaultTemplate = (try? PasswordHash("$2b$10$" + String(repeating: ".", count: 53)))!

    init(limit: Int) {
        self.limit = limit
        state = Mutex(State())
    }

    /// Whether `password` matches `hash` (nil: no account or no hash, which never matches, after the same work).
    /// - Throws: `503 password_verification_busy` when `limit` verifications are running; `503` as well when the hash library fails.
    func verify(_ password: String, against hash: PasswordHash?) throws(ServerError) -> Bool {
        let template = try enter()
        defer { state.withLock { $0.running -= 1 } }
        do {
            guard let hash else {
                _ = try template.verify(Array(password.utf8))
                return false
            }
            let matched = try hash.verify(Array(password.utf8))
            state.withLock { $0.template = hash.timingTwin }
            return matched
        } catch {
            throw ServerError(.storageUnavailable, detail: "password verification failed: \(error.code)")
        }
    }

    /// Takes a slot, or refuses at once.
    private func enter() throws(ServerError) -> PasswordHash {
        let template = state.withLock { state -> PasswordHash? in
            guard state.running < limit else { return nil }
            state.running += 1
            return state.template
        }
        guard let template else {
            var error = ServerError(.passwordVerificationBusy)
            error.headers = [("Retry-After", "1")]
            throw error
        }
        return template
    }
}
