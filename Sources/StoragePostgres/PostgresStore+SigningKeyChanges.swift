import Storage

extension PostgresStore: SigningKeyChangeFeed {
    /// Whether the listener listens now: false behind a transaction-mode pooler without `listenConnectionString`, and
    /// while the listener has no connection (before its first, after a loss, or when its connection string fails).
    public var canWatchSigningKeys: Bool { listener?.isListening ?? false }

    /// Runs `onChange` on the listener's thread after each change of the signing keys and each (re)connection of the
    /// listener (`PostgresListener`).
    public func watchSigningKeys(_ onChange: @escaping @Sendable () -> Void) {
        listener?.watch(onChange)
    }
}
