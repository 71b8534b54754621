import Dispatch
import Foundation
import OutboundHTTP
import Synchronization

/// Sends requests through the completion API and records each outcome with the moment its completion ran (on the
/// client's loop thread), so that timing checks measure the client and not the scheduling of the test's own tasks
/// (the tests of the whole suite share two cores and Swift's cooperative threads).
enum ClientBatch {
    struct Outcome: Sendable {
        /// The status, or the error code.
        let result: String
        let error: HTTPClientError?
        /// When the completion ran.
        let completedAt: ContinuousClock.Instant
    }

    /// Sends every request, at most `window` in flight at once, and waits for all; outcomes in request order.
    static func send(_ client: HTTPClient, _ requests: [HTTPClientRequest], window: Int = 1_000) -> [Outcome] {
        let outcomes = Mutex<[Int: Outcome]>([:])
        let slots = DispatchSemaphore(value: window)
        let group = DispatchGroup()
        for (index, request) in requests.enumerated() {
            slots.wait()
            group.enter()
            client.send(request) { result in
                let outcome: Outcome
                switch result {
                case .success(let reply): outcome = Outcome(result: "\(reply.status)", error: nil, completedAt: .now)
                case .failure(let error): outcome = Outcome(result: error.code.rawValue, error: error, completedAt: .now)
                }
                outcomes.withLock { $0[index] = outcome }
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        return outcomes.withLock { all in (0..<requests.count).compactMap { all[$0] } }
    }

    /// How many outcomes had each result.
    static func tally(_ outcomes: [Outcome]) -> [String: Int] {
        outcomes.reduce(into: [:]) { $0[$1.result, default: 0] += 1 }
    }
}
