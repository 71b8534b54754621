import Foundation
import Storage

/// One page of `GET /admin/webhooks/deliveries`.
public struct AdminDeliveryPage: Encodable, Sendable {
    /// A delivery as the admin API shows it (no lease internals).
    public struct Delivery: Encodable, Sendable {
        public let id: Int64
        /// The event's public ID (`EventRecord.publicID`): the `webhook-id` its deliveries are sent with.
        public let eventId: String
        public let endpointId: String
        public let status: String
        public let attempts: Int
        public let queuedAt: Date
        public let nextAttemptAt: Date?
        public let lastAttemptAt: Date?
        /// The receiver's last HTTP status.
        public let lastStatus: Int?
        public let lastError: String?

        init(_ record: WebhookDeliveryRecord, eventID: String) {
            id = record.id
            eventId = eventID
            endpointId = record.endpointID
            status = record.status.rawValue
            attempts = record.attempts
            queuedAt = record.queuedAt
            nextAttemptAt = record.nextAttemptAt
            lastAttemptAt = record.lastAttemptAt
            lastStatus = record.lastStatus
            lastError = record.lastError
        }
    }

    public let deliveries: [Delivery]
    /// Absent on the last page.
    public let nextCursor: String?
}
