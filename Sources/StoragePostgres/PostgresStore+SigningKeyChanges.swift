import Storage

extension PostgresStore: SigningKeyChangeFeed {
    /// False behind a transaction-mode pooler without `listenConnectionString`.
    public var canWatchSigningKeys: Bool { listener != nil }

    /// Runs `onChange` on the listener's thread after each change of the signing keys and each (re)connection of the
    /// listener (`PostgresListener`).
    public func watchSigningKeys(_ onChange: @escaping @Sendable () -> Void) {
        listener?.watch(onChange)
    }
}
