import Foundation

extension InMemoryTransaction {
    @discardableResult
    func appendEvent(_ event: NewEvent) throws(StorageError) -> Int64 {
        try run { state throws(StorageError) in
            try event.validate()
            guard !state.events.contains(where: { $0.uuid == event.id }) else {
                throw StorageError(.duplicateKey, "an event with this ID already exists")
            }
            state.lastEventID += 1
            state.events.append(EventRecord(id: state.lastEventID, event))
            state.queueWebhookDeliveries(of: EventRecord(id: state.lastEventID, event))
            return state.lastEventID
        }
    }
}
