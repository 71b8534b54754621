/// A delivery a worker claimed, with the event it carries.
public struct ClaimedWebhookDelivery: Sendable, Equatable {
    public var delivery: WebhookDeliveryRecord
    public var event: EventRecord

    public init(delivery: WebhookDeliveryRecord, event: EventRecord) {
        self.delivery = delivery
        self.event = event
    }
}
