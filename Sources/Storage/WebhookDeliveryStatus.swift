/// Where a webhook delivery stands.
public enum WebhookDeliveryStatus: String, Sendable, CaseIterable {
    /// Not delivered yet: due at `nextAttemptAt`, or waiting for an earlier delivery of the same user to the same
    /// endpoint (`nextAttemptAt` nil).
    case pending
    /// The endpoint answered 2xx.
    case delivered
    /// Given up: the retry horizon passed, the endpoint answered 410 Gone, or it was removed from the configuration.
    /// An operator may queue it again (`StoreTransaction.retryWebhookDelivery`).
    case dead
}
