import ConfigurationReading
import HTTPServer

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
    /// The address ranges of the proxies in front of passkeyd (CIDRs). A request from one of them is limited as the
    /// right-most `X-Forwarded-For` address that is not one of them; a request from anywhere else as its peer.
    public var trustedProxies: [AddressRange] = []
    /// Whether connections from `trustedProxies` start with a PROXY protocol header (version 1 or 2, as HAProxy, AWS's
    /// Network Load Balancer and Google's TCP proxy send it) naming the client: that client is then the request's
    /// address and is counted against `limits.maximumConnectionsPerAddress`. A connection from those ranges without a
    /// valid header is closed; one from anywhere else is its own client, with no header.
    public var proxyProtocol = false
    /// Deprecated (removed in 0.3.0; `trustedProxies` replaces it): every peer is a trusted proxy and the client is
    /// the last `X-Forwarded-For` entry, so a client that reaches passkeyd directly chooses its own address.
    public var trustForwardedFor = false
    /// Messages a stranger can trigger (recovery links, address verifications) per recipient and per account, and
    /// per client address, in an hour.
    public var mailPerRecipientPerHour = 5
    public var mailPerAddressPerHour = 30
    /// The most keys (addresses, credentials) each limiter tracks at once; past it, idle buckets are dropped first.
    public var maximumKeys = 100_000
    /// How many nodes share one PostgreSQL database: each draws a tenth of a limit's burst divided by this from the
    /// shared counter at a time (at least one token), so the tokens the nodes hold unspent stay within 10 % of it.
    public var nodes = 10

    public init() {}

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only([
            "perAddressPerMinute", "perAddressBurst", "perAccountPerMinute", "perAccountBurst",
            "outstandingChallengesPerAddress", "trustedProxies", "proxyProtocol", "trustForwardedFor", "maximumKeys", "mailPerRecipientPerHour",
            "mailPerAddressPerHour", "nodes",
        ])
        mailPerRecipientPerHour = try reader.integer("mailPerRecipientPerHour", in: 1...10_000) ?? mailPerRecipientPerHour
        mailPerAddressPerHour = try reader.integer("mailPerAddressPerHour", in: 1...1_000_000) ?? mailPerAddressPerHour
        maximumKeys = try reader.integer("maximumKeys", in: 100...10_000_000) ?? maximumKeys
        nodes = try reader.integer("nodes", in: 1...1_000) ?? nodes
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
        if let ranges = try reader.strings("trustedProxies") {
            guard ranges.count <= 64 else {
                throw ConfigurationError(.invalidValue, key: reader.key("trustedProxies"), "must list at most 64 address ranges")
            }
            trustedProxies = try ranges.map { (text) throws(ConfigurationError) in
                guard let range = AddressRange(text) else {
                    throw ConfigurationError(
                        .invalidValue,
                        key: reader.key("trustedProxies"),
                        "\"\(text.prefix(64))\" is not an address range such as 10.0.0.0/8 or 2001:db8::/32 (no bits set past the prefix)"
                    )
                }
                return range
            }
        }
        if let value = reader.value("proxyProtocol") {
            guard let flag = value.boolValue else {
                throw ConfigurationError(.invalidValue, key: reader.key("proxyProtocol"), "must be true or false")
            }
            guard !flag || !trustedProxies.isEmpty else {
                throw ConfigurationError(
                    .invalidValue,
                    key: reader.key("proxyProtocol"),
                    "needs trustedProxies: the address ranges of the load balancers that send the PROXY protocol header"
                )
            }
            proxyProtocol = flag
        }
        if trustForwardedFor && !trustedProxies.isEmpty {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("trustForwardedFor"),
                "is deprecated and replaced by trustedProxies: remove it when trustedProxies is set"
            )
        }
    }

    /// Whether requests may name their client in `X-Forwarded-For` at all.
    public var readsForwardedFor: Bool { trustForwardedFor || !trustedProxies.isEmpty }
}
