/// The `rateLimits` block. Defaults let a busy office behind one NAT address sign in: 240 ceremony requests a
/// minute per address with bursts of 60, while an attacker's guessing is slowed per account.
public struct RateLimits: Sendable, Equatable {
    /// Ceremony and Apple sign-in requests per client address.
    public var perAddressPerMinute: Double = 240
    public var perAddressBurst: Double = 60
    /// Failed sign-in verifications per credential named (a valid assertion is never limited).
    public var perAccountPerMinute: Double = 30
    public var perAccountBurst: Double = 10
    /// Challenges a single address may hold unexpired at once.
    public var outstandingChallengesPerAddress: Int = 512
    /// Take the client address from the last `X-Forwarded-For` entry (only behind a proxy you run).
    public var trustForwardedFor = false
    /// The most keys (addresses, credentials) each limiter tracks at once; past it, idle buckets are dropped first.
    public var maximumKeys = 100_000

    public init() {}

    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only([
            "perAddressPerMinute", "perAddressBurst", "perAccountPerMinute", "perAccountBurst",
            "outstandingChallengesPerAddress", "trustForwardedFor", "maximumKeys",
        ])
        maximumKeys = try reader.integer("maximumKeys", in: 100...10_000_000) ?? maximumKeys
        perAddressPerMinute = Double(try reader.integer("perAddressPerMinute", in: 1...1_000_000) ?? Int(perAddressPerMinute))
        perAddressBurst = Double(try reader.integer("perAddressBurst", in: 1...1_000_000) ?? Int(perAddressBurst))
        perAccountPerMinute = Double(try reader.integer("perAccountPerMinute", in: 1...1_000_000) ?? Int(perAccountPerMinute))
        perAccountBurst = Double(try reader.integer("perAccountBurst", in: 1...1_000_000) ?? Int(perAccountBurst))
        outstandingChallengesPerAddress = try reader.integer("outstandingChallengesPerAddress", in: 1...1_000_000) ?? outstandingChallengesPerAddress
        if let value = reader.value("trustForwardedFor") {
            guard let flag = value.boolValue else {
                throw ConfigurationError(.invalidValue, key: reader.key("trustForwardedFor"), "must be true or false")
            }
            trustForwardedFor = flag
        }
    }
}
