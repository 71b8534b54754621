import CryptoCore
import HTTPServer
import Observability

/// The rate limits of requests: per client address (the routes flagged `rateLimitedPerAddress`), per account
/// (sign-in failures, recovery codes, enrollment links) and challenges held per address; each refusal is counted by
/// its rule.
struct RequestLimits: Sendable {
    enum Rule: String, Sendable {
        case address
        case account
        case challenges
    }

    let address: RateLimiter
    let account: RateLimiter
    let challenges: RateLimiter
    let time: any TimeSource
    /// `rateLimits.trustForwardedFor`: the client is the last `X-Forwarded-For` entry.
    let trustForwardedFor: Bool
    /// `passkeyd_rate_limited_total` (nil without metrics).
    let refusals: MetricFamily<Counter>?

    init(_ configuration: ServerConfiguration, time: any TimeSource, refusals: MetricFamily<Counter>?) {
        let limits = configuration.rateLimits
        address = RateLimiter(rule: .init(perMinute: limits.perAddressPerMinute, burst: limits.perAddressBurst), capacity: limits.maximumKeys)
        account = RateLimiter(rule: .init(perMinute: limits.perAccountPerMinute, burst: limits.perAccountBurst), capacity: limits.maximumKeys)
        let outstanding = Double(limits.outstandingChallengesPerAddress)
        challenges = RateLimiter(
            rule: .init(perMinute: outstanding * 60 / Double(configuration.challengeLifetimeSeconds), burst: outstanding),
            capacity: limits.maximumKeys
        )
        self.time = time
        trustForwardedFor = limits.trustForwardedFor
        self.refusals = refusals
    }

    /// Refuses with `429 rate_limited` and `Retry-After` when `key` has used up its bucket of `rule`.
    func take(_ rule: Rule, key: String) throws(ServerError) {
        let limiter =
            switch rule {
            case .address: address
            case .account: account
            case .challenges: challenges
            }
        guard let retryAfter = limiter.take(key, now: time.now) else { return }
        refusals?.increment([rule.rawValue])
        var error = ServerError(.rateLimited)
        error.headers = [("Retry-After", String(retryAfter))]
        throw error
    }

    /// The client a request is limited as: the peer, or (behind a trusted proxy) the last entry of the last
    /// `X-Forwarded-For` field (a proxy may add its own field after the client's) when it is an IP address; an IPv6
    /// client by its /64 (one host may use any address of it), so that the key is bounded and a host has one.
    func clientAddress(_ request: HTTPRequest) -> String {
        if trustForwardedFor, let forwarded = request.headers.values("x-forwarded-for").last,
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            let address = PeerAddress(literal: last)
        {
            return address.description
        }
        return PeerAddress(literal: request.remoteAddress)?.description ?? String(request.remoteAddress.prefix(64))
    }
}
