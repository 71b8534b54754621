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
        setLinks(of: connection, to: IdleLinks(isMember: true, older: newest, newer: nil))
        if let newest { setNewer(of: newest, to: connection) } else { oldest = connection }
        newest = connection
        count += 1
    }

    /// Takes `connection` out; nothing when it is not in the list.
    func remove(_ connection: ConnectionState) {
        let entry = links(of: connection)
        guard entry.isMember else { return }
        if let older = entry.older { setNewer(of: older, to: entry.newer) } else { oldest = entry.newer }
        if let newer = entry.newer { setOlder(of: newer, to: entry.older) } else { newest = entry.older }
        setLinks(of: connection, to: IdleLinks())
        count -= 1
    }

    /// The connection idle the longest, if any.
    var first: ConnectionState? { oldest }

    // Stored properties reached through a switch: a key path here was as costly as the list itself.
    private func links(of connection: ConnectionState) -> IdleLinks {
        switch membership {
        case .all: connection.idleLinks
        case .address: connection.addressIdleLinks
        }
    }

    private func setLinks(of connection: ConnectionState, to links: IdleLinks) {
        switch membership {
        case .all: connection.idleLinks = links
        case .address: connection.addressIdleLinks = links
        }
    }

    private func setNewer(of connection: ConnectionState, to newer: ConnectionState?) {
        switch membership {
        case .all: connection.idleLinks.newer = newer
        case .address: connection.addressIdleLinks.newer = newer
        }
    }

    private func setOlder(of connection: ConnectionState, to older: ConnectionState?) {
        switch membership {
        case .all: connection.idleLinks.older = older
        case .address: connection.addressIdleLinks.older = older
        }
    }
}
