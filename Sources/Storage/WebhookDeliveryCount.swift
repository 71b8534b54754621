/// How many deliveries of one endpoint are in one status (`WebhookDeliveryStore.webhookDeliveryCounts`), for metrics.
public struct WebhookDeliveryCount: Sendable, Equatable, Hashable {
    public var endpointID: String
    public var status: WebhookDeliveryStatus
    public var count: Int

    public init(endpointID: String, status: WebhookDeliveryStatus, count: Int) {
        self.endpointID = endpointID
        self.status = status
        self.count = count
    }
}
