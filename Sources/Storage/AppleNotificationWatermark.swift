import Foundation

/// The newest Apple notification applied for one `sub`, as `passkeyd migrate` copies it (the store reads and raises it
/// with `StoreTransaction.appleNotificationWatermark` and `raiseAppleNotificationWatermark`).
public struct AppleNotificationWatermark: Sendable, Equatable {
    public var subject: String
    /// The newest applied `event_time`.
    public var eventAt: Date
    /// Until when it is kept.
    public var until: Date

    public init(subject: String, eventAt: Date, until: Date) {
        self.subject = subject
        self.eventAt = eventAt
        self.until = until
    }
}
