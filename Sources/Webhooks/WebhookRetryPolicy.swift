import CryptoCore
import Foundation
import OutboundHTTP
import Storage

/// What an attempt's result means for its delivery: 2xx is delivered; 410 Gone is dead at once; anything else (another
/// status, no reply, a timeout) is retried with exponential backoff and jitter until the retry horizon, then dead.
public struct WebhookRetryPolicy: Sendable {
    let endpoint: WebhookEndpoint
    let random: any RandomSource

    public init(endpoint: WebhookEndpoint, random: any RandomSource) {
        self.endpoint = endpoint
        self.random = random
    }

    /// The outcome of an attempt at `now` of a delivery queued at `queuedAt` that had `attempts` attempts before it.
    public func outcome(of result: Result<HTTPClientReply, HTTPClientError>, attempts: Int, queuedAt: Date, now: Date) -> WebhookDeliveryOutcome {
        let status: Int?
        let error: String
        var retryAfter: TimeInterval = 0
        switch result {
        case .success(let reply) where (200...299).contains(reply.status):
            return .delivered(status: reply.status)
        case .success(let reply) where reply.status == 410:
            return .dead(status: 410, error: WebhookError.Code.gone.rawValue)
        case .success(let reply):
            status = reply.status
            error = WebhookError.Code.unexpectedStatus.rawValue
            // RFC 9110 §10.2.3: delay-seconds (an HTTP date is not honoured).
            retryAfter = reply.headers["Retry-After"].flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        case .failure(let failure):
            status = nil
            error = failure.code.rawValue
        }
        let next = now.addingTimeInterval(max(delay(afterAttempt: attempts + 1), min(retryAfter, Double(endpoint.maximumRetrySeconds))))
        guard next <= queuedAt.addingTimeInterval(Double(endpoint.retryHorizonSeconds)) else { return .dead(status: status, error: error) }
        return .retry(nextAttemptAt: next, status: status, error: error)
    }

    /// The wait after the `attempt`th failed attempt: `firstRetrySeconds` × 2^(attempt − 1), at most
    /// `maximumRetrySeconds`, with full jitter over its upper half (so that retries of many deliveries spread out).
    func delay(afterAttempt attempt: Int) -> TimeInterval {
        let base = min(Double(endpoint.maximumRetrySeconds), Double(endpoint.firstRetrySeconds) * pow(2, Double(min(max(attempt - 1, 0), 30))))
        let fraction = Double(random.bytes(count: 2).reduce(0) { $0 << 8 | UInt16($1) }) / Double(UInt16.max)
        return base * (0.5 + fraction / 2)
    }
}
