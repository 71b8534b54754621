import Foundation

/// One event to one webhook endpoint, as stored: created in the transaction that appended the event, worked by the
/// delivery worker (`WebhookDeliveryStore`).
public struct WebhookDeliveryRecord: Sendable, Equatable {
    /// Assigned by the store; increasing in creation order. The admin API names a delivery by it.
    public var id: Int64
    /// The event (`EventRecord.id`).
    public var eventID: Int64
    /// The endpoint (`WebhookSubscription.endpointID`).
    public var endpointID: String
    /// The event's user: deliveries of one user to one endpoint are made in event order.
    public var userID: [UInt8]?
    public var status: WebhookDeliveryStatus
    /// Attempts made since the delivery was queued (or queued again by an operator).
    public var attempts: Int
    /// When it was queued: the event's time, or when an operator queued it again. The retry horizon counts from here.
    public var queuedAt: Date
    /// When it may be attempted; nil while an earlier pending delivery of its user to its endpoint goes first, and once
    /// it is delivered or dead.
    public var nextAttemptAt: Date?
    public var lastAttemptAt: Date?
    /// The HTTP status of the last attempt that got a reply.
    public var lastStatus: Int?
    /// The stable code of the last failure (`webhook.unexpectedStatus`, `http.clientTimeout` …), nil after a success.
    public var lastError: String?
    /// The worker that holds it (`claimWebhookDeliveries`), and until when; nil and `distantPast` when none.
    public var leaseOwner: String?
    public var leaseUntil: Date
    /// The last change of the record.
    public var updatedAt: Date

    public init(
        id: Int64,
        eventID: Int64,
        endpointID: String,
        userID: [UInt8]?,
        status: WebhookDeliveryStatus,
        attempts: Int,
        queuedAt: Date,
        nextAttemptAt: Date?,
        lastAttemptAt: Date? = nil,
        lastStatus: Int? = nil,
        lastError: String? = nil,
        leaseOwner: String? = nil,
        leaseUntil: Date = WebhookDeliveryRecord.noLease,
        updatedAt: Date
    ) {
        self.id = id
        self.eventID = eventID
        self.endpointID = endpointID
        self.userID = userID
        self.status = status
        self.attempts = attempts
        self.queuedAt = queuedAt
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.leaseOwner = leaseOwner
        self.leaseUntil = leaseUntil
        self.updatedAt = updatedAt
    }

    /// The `leaseUntil` of a delivery nobody holds: Foundation's reference date, stored as 0.
    public static let noLease = Date(timeIntervalSinceReferenceDate: 0)
}
