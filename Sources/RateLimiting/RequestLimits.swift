import CryptoCore
import HTTPEdge
import HTTPServer
import Observability
import Storage

/// The rate limits of requests: per client address (the routes flagged `rateLimitedPerAddress`), per account
/// (sign-in failures, recovery codes, enrollment links), challenges held per address, and mail a stranger can trigger; each refusal is counted by
/// its rule. On PostgreSQL every node draws from the same buckets (`SharedRateLimiter`).
package struct RequestLimits: Sendable {
    package enum Rule: String, Sendable {
        case address
        case account
        case challenges
        /// Mail a stranger can trigger, per recipient and per account (`rateLimits.mailPerRecipientPerHour`).
        case mail
        /// The same, per client address (`rateLimits.mailPerAddressPerHour`).
        case mailSender = "mail_sender"
    }

    package let address: SharedRateLimiter
    package let account: SharedRateLimiter
    package let challenges: SharedRateLimiter
    package let mail: SharedRateLimiter
    package let mailSender: SharedRateLimiter
    package let time: any TimeSource
    /// `rateLimits.trustedProxies`: the peers whose `X-Forwarded-For` is believed.
    package let trustedProxies: [AddressRange]
    /// The deprecated `rateLimits.trustForwardedFor`: every peer's `X-Forwarded-For` is believed.
    package let trustsEveryPeer: Bool
    /// `passkeyd_rate_limited_total` (nil without metrics).
    package let refusals: MetricFamily<Counter>?

    /// - Parameters:
    ///   - limits: the `rateLimits` block.
    ///   - challengeLifetime: `challengeLifetimeSeconds`, over which the outstanding challenges of an address are counted.
    ///   - shared: the buckets every node draws from (PostgreSQL), or nil when this node is the deployment.
    ///   - outage: whether those buckets are unusable, for the node's every limiter.
    package init(
        _ limits: RateLimits,
        challengeLifetime: Int,
        time: any TimeSource,
        shared: (any SharedLimitStore)?,
        outage: SharedLimitOutage,
        refusals: MetricFamily<Counter>?
    ) {
        func limiter(_ rule: Rule, perMinute: Double, burst: Double) -> SharedRateLimiter {
            SharedRateLimiter(
                name: rule.rawValue,
                rule: .init(perMinute: perMinute, burst: burst),
                capacity: limits.maximumKeys,
                nodes: limits.nodes,
                shared: shared,
                outage: outage
            )
        }
        address = limiter(.address, perMinute: limits.perAddressPerMinute, burst: limits.perAddressBurst)
        account = limiter(.account, perMinute: limits.perAccountPerMinute, burst: limits.perAccountBurst)
        let outstanding = Double(limits.outstandingChallengesPerAddress)
        challenges = limiter(.challenges, perMinute: outstanding * 60 / Double(challengeLifetime), burst: outstanding)
        let (recipient, sender) = (Double(limits.mailPerRecipientPerHour), Double(limits.mailPerAddressPerHour))
        mail = limiter(.mail, perMinute: recipient / 60, burst: recipient)
        mailSender = limiter(.mailSender, perMinute: sender / 60, burst: sender)
        self.time = time
        trustedProxies = limits.trustedProxies
        trustsEveryPeer = limits.trustForwardedFor
        self.refusals = refusals
    }

    /// Refuses with `429 rate_limited` and `Retry-After` when `key` has used up its bucket of `rule`. `locally`: by the
    /// node's own bucket only, never the shared one (a request answered on the event loop, which must not wait on the
    /// database).
    package func take(_ rule: Rule, key: String, locally: Bool = false) throws(ServerError) {
        let limiter =
            switch rule {
            case .address: address
            case .account: account
            case .challenges: challenges
            case .mail: mail
            case .mailSender: mailSender
            }
        guard let retryAfter = limiter.take(key, now: time.now, locally: locally) else { return }
        refusals?.increment([rule.rawValue])
        var error = ServerError(.rateLimited)
        error.headers = [("Retry-After", String(retryAfter))]
        throw error
    }

    /// The client a request is limited as: the peer; or, when the peer is a trusted proxy, the right-most address of
    /// the `X-Forwarded-For` fields (all of them, in order: a proxy may add its own field after the client's) that is
    /// not a trusted proxy: what the client wrote further left is never reached. An entry that is not an IP address
    /// counts as the peer. An IPv6 client counts by its /64 (one host may use any address of it), so the key is
    /// bounded and a host has one. The HTTP server's resolution (`HTTPRequest.clientAddress`) when it made one with this
    /// rule (`HTTPServerConfiguration.sharesClientAddress`), rather than a second.
    package func clientAddress(_ request: HTTPRequest) -> String {
        request.clientAddress ?? Self.clientAddress(request, trustedProxies: trustedProxies, trustsEveryPeer: trustsEveryPeer)
    }

    /// `clientAddress` for the given `rateLimits.trustedProxies` and `trustForwardedFor`: also what the HTTP server's
    /// suspect lane counts a request as behind such a proxy.
    package static func clientAddress(_ request: HTTPRequest, trustedProxies: [AddressRange], trustsEveryPeer: Bool) -> String {
        let peer = PeerAddress(literal: request.remoteAddress)?.description ?? String(request.remoteAddress.prefix(64))
        let isTrusted = { (address: String) in isTrustedProxy(address, trustedProxies) }
        guard trustsEveryPeer || isTrusted(request.remoteAddress) else { return peer }
        let entries = request.headers.values("x-forwarded-for").flatMap { $0.split(separator: ",") }
        for entry in entries.suffix(Self.maximumHops).reversed() {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard let address = PeerAddress(literal: text) else { return peer }
            if trustsEveryPeer || !isTrusted(text) { return address.description }
        }
        return peer
    }

    /// The most `X-Forwarded-For` entries walked, right to left: more proxies than this in a chain is a mistake.
    package static let maximumHops = 16

    /// Whether `address` is in a range of `trustedProxies`: read once, whatever the number of ranges.
    private static func isTrustedProxy(_ address: String, _ trustedProxies: [AddressRange]) -> Bool {
        guard !trustedProxies.isEmpty, let bytes = AddressRange.bytes(address) else { return false }
        return trustedProxies.contains { $0.contains(address: bytes) }
    }
}
