/// A webhook endpoint as the store knows it: its stable identity and the event types it receives. The store creates a
/// delivery for every subscribed endpoint in the transaction that appends an event (`StoreTransaction.appendEvent`), so
/// an event is never without its deliveries. URLs and secrets stay in the configuration, never in the store.
public struct WebhookSubscription: Sendable, Equatable {
    /// The most bytes of an endpoint ID.
    public static let maximumIDBytes = 64

    /// The endpoint's stable identity across restarts and nodes: 1 to 64 bytes of a-z, 0-9, `_` and `-`.
    public var endpointID: String
    /// The event types it receives, or nil for every type.
    public var eventTypes: Set<String>?

    public init(endpointID: String, eventTypes: Set<String>?) {
        self.endpointID = endpointID
        self.eventTypes = eventTypes
    }

    /// The stored marker of "every type" (no event type contains `*`).
    public static let everyType = "*"

    /// Refuses an ID outside its alphabet or length, or an event type no event can have. For drivers to check before
    /// they write.
    public func validate() throws(StorageError) {
        let allowed = endpointID.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
        guard !endpointID.isEmpty, endpointID.utf8.count <= Self.maximumIDBytes, allowed else {
            throw StorageError(.invalidRecord, "a webhook endpoint ID must be 1 to \(Self.maximumIDBytes) bytes of a-z, 0-9, '_' and '-'")
        }
        for type in eventTypes ?? [] {
            try NewEvent.validate(type: type)
        }
    }

    /// The rows of the subscription: one per type, or the one `everyType` row.
    public var storedTypes: [String] { eventTypes.map { $0.sorted() } ?? [Self.everyType] }

    /// The subscription of `endpointID` from its stored rows.
    public init(endpointID: String, storedTypes: [String]) {
        self.init(endpointID: endpointID, eventTypes: storedTypes.contains(Self.everyType) ? nil : Set(storedTypes))
    }
}
