/// Connections of one event loop with no request in progress (nothing received since they opened or since their
/// last answer was written out), oldest idle first: the ones to close when the server needs room. A linked list
/// through the connections themselves (`links` names which of their `IdleLinks`), so joining, leaving and taking the
/// oldest cost O(1) however many there are. Used on the loop's thread.
final class IdleConnections {
    private let links: ReferenceWritableKeyPath<ConnectionState, IdleLinks>
    private var oldest: ConnectionState?
    private weak var newest: ConnectionState?
    private(set) var count = 0

    init(links: ReferenceWritableKeyPath<ConnectionState, IdleLinks>) {
        self.links = links
    }

    /// Appends `connection` as the newest idle one; nothing when it is in the list already.
    func append(_ connection: ConnectionState) {
        guard !connection[keyPath: links].isMember else { return }
        connection[keyPath: links] = IdleLinks(isMember: true, older: newest, newer: nil)
        if let newest { newest[keyPath: links].newer = connection } else { oldest = connection }
        newest = connection
        count += 1
    }

    /// Takes `connection` out; nothing when it is not in the list.
    func remove(_ connection: ConnectionState) {
        let entry = connection[keyPath: links]
        guard entry.isMember else { return }
        if let older = entry.older { older[keyPath: links].newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { newer[keyPath: links].older = entry.older } else { newest = entry.older }
        connection[keyPath: links] = IdleLinks()
        count -= 1
    }

    /// The connection idle the longest, if any.
    var first: ConnectionState? { oldest }
}
