/// Bounds on what one decode may consume; inputs are assumed hostile.
public struct CBORLimits: Sendable {
    /// The most containers (arrays, maps, tags, indefinite-length strings) that may enclose one another.
    public var maximumDepth: Int
    /// The most data items one decode may produce, counting every item at every depth.
    public var maximumItems: Int
    /// The largest input, in bytes, that a decode accepts.
    public var maximumInputSize: Int

    /// Creates limits; the defaults suit WebAuthn attestation objects and COSE keys.
    public init(maximumDepth: Int = 16, maximumItems: Int = 65_536, maximumInputSize: Int = 1 << 20) {
        self.maximumDepth = maximumDepth
        self.maximumItems = maximumItems
        self.maximumInputSize = maximumInputSize
    }

    /// Depth 16, 65,536 items, 1 MiB of input.
    public static let `default` = CBORLimits()
}
