/// Connections of one event loop with no request in progress (nothing received since they opened or since their
/// last answer was written out), oldest idle first: the ones to close when the server needs room. A linked list
/// through the connections themselves (`membership` names which of their `IdleLinks`), so joining, leaving and taking
/// the oldest cost O(1) however many there are. Used on the loop's thread.
final class IdleConnections {
    /// Which of a connection's links a list uses.
    enum Membership {
        /// The loop's list of all its idle connections: `ConnectionState.idleLinks`.
        case all
        /// A list of one client address's idle connections: `ConnectionState.addressIdleLinks`.
        case address
        /// The loop's list of connections whose request is still arriving, oldest request first (the same order and
        /// operations serve it): `ConnectionState.incompleteLinks`.
        case incomplete
        /// A list of one client address's such connections: `ConnectionState.addressIncompleteLinks`.
        case addressIncomplete
    }

    private let membership: Membership
    private var oldest: ConnectionState?
    private var newest: ConnectionState?
    private(set) var count = 0

    init(_ membership: Membership) {
        self.membership = membership
    }

    /// Appends `connection` as the newest idle one; nothing when it is in the list already.
    func append(_ connection: ConnectionState) {
        guard !links(of: connection).isMember else { return }
        update(connection) { $0 = IdleLinks(isMember: true, older: newest, newer: nil) }
        if let newest { update(newest) { $0.newer = connection } } else { oldest = connection }
        newest = connection
        count += 1
    }

    /// Takes `connection` out; nothing when it is not in the list.
    func remove(_ connection: ConnectionState) {
        let entry = links(of: connection)
        guard entry.isMember else { return }
        if let older = entry.older { update(older) { $0.newer = entry.newer } } else { oldest = entry.newer }
        if let newer = entry.newer { update(newer) { $0.older = entry.older } } else { newest = entry.older }
        update(connection) { $0 = IdleLinks() }
        count -= 1
    }

    /// The connection idle the longest, if any.
    var first: ConnectionState? { oldest }

    // The stored property reached through a switch: a key path here was as costly as the list itself.
    private func links(of connection: ConnectionState) -> IdleLinks {
        switch membership {
        case .all: connection.idleLinks
        case .address: connection.addressIdleLinks
        case .incomplete: connection.incompleteLinks
        case .addressIncomplete: connection.addressIncompleteLinks
        }
    }

    private func update(_ connection: ConnectionState, _ change: (inout IdleLinks) -> Void) {
        switch membership {
        case .all: change(&connection.idleLinks)
        case .address: change(&connection.addressIdleLinks)
        case .incomplete: change(&connection.incompleteLinks)
        case .addressIncomplete: change(&connection.addressIncompleteLinks)
        }
    }
}
