/// One request's draw from a shared limit bucket (`SharedLimitStore.drawTokens`): up to `count` tokens of `key`'s.
public struct LimitDraw: Sendable, Equatable {
    /// The bucket's key: a hash, never an address or a username.
    public var key: [UInt8]
    /// The most tokens to take.
    public var count: Int

    public init(key: [UInt8], count: Int) {
        self.key = key
        self.count = count
    }
}
