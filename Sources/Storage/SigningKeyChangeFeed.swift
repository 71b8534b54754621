/// A store shared by several nodes that tells each of them when the signing keys changed, so that a node reloads them
/// at once instead of reading them every second (PostgreSQL: a `NOTIFY` in the transaction that writes the keys, and
/// one listening connection per node).
public protocol SigningKeyChangeFeed: Sendable {
    /// Whether `watchSigningKeys` announces changes now: false behind a transaction-mode pooler without a listening
    /// connection, and while the feed is not connected, when a node must read the keys on its own. The key worker asks
    /// before each wait.
    var canWatchSigningKeys: Bool { get }

    /// Calls `onChange` (on the feed's own thread) after every committed change of the signing keys by any node or
    /// command, and after each time the feed (re)connects, since changes made meanwhile were not announced. Does
    /// nothing when `canWatchSigningKeys` is false.
    func watchSigningKeys(_ onChange: @escaping @Sendable () -> Void)
}
