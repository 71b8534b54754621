import Foundation

/// What became of a claimed delivery (`WebhookDeliveryStore.recordWebhookOutcomes`).
public enum WebhookDeliveryOutcome: Sendable, Equatable {
    /// The endpoint answered 2xx (`status`).
    case delivered(status: Int)
    /// The attempt failed; try again at `nextAttemptAt`.
    case retry(nextAttemptAt: Date, status: Int?, error: String)
    /// The attempt failed and the delivery is given up.
    case dead(status: Int?, error: String)
    /// Not attempted (the worker is stopping): the claim is given back, nothing else changes.
    case released
}
