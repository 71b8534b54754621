import CryptoCore
import HTTPServer
import Observability
import RateLimiting

extension ServerConfiguration {
    /// Descriptors kept for everything but client connections: listening sockets, event loops, SQLite's files, the
    /// outbound client's connections, the log; a PostgreSQL pool adds its connections.
    public var reservedDescriptors: Int {
        128 + (postgresConnectionString == nil ? 0 : postgresPoolSize ?? defaultPoolSize)
    }

    /// The `Strict-Transport-Security` value of HTTPS answers, nil for none.
    public var strictTransportSecurity: String? {
        strictTransportSecurityMaxAgeSeconds.map { "max-age=\($0)" + (strictTransportSecurityIncludesSubDomains ? "; includeSubDomains" : "") }
    }

    /// The HTTP listener's settings: the `listen` addresses, `threads` and the `limits`, with `tls` for HTTPS.
    public func httpServerConfiguration(tls: TLSServerContext?, log: Logger) -> HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration(
            httpsAddress: httpsAddress,
            httpAddress: httpAddress,
            tls: tls,
            threads: threads,
            workers: workerCount,
            maximumQueuedRequests: maximumQueuedRequests,
            maximumBodySize: maximumBodySize,
            maximumHeaderSize: maximumHeaderSize,
            readTimeoutSeconds: readTimeoutSeconds,
            writeTimeoutSeconds: writeTimeoutSeconds,
            maximumConnections: maximumConnections,
            maximumConnectionsPerAddress: maximumConnectionsPerAddress ?? defaultConnectionsPerAddress,
            reservedDescriptors: reservedDescriptors,
            strictTransportSecurity: strictTransportSecurity,
            log: log
        )
        if rateLimits.proxyProtocol { configuration.proxyProtocolFrom = rateLimits.trustedProxies }
        configuration.suspectLane = suspectLane
        if rateLimits.readsForwardedFor && !rateLimits.proxyProtocol {
            // Behind a proxy that names its clients in `X-Forwarded-For`: the client the rate limits count.
            let (trustedProxies, trustsEveryPeer) = (rateLimits.trustedProxies, rateLimits.trustForwardedFor)
            configuration.clientAddress = { request in
                RequestLimits.clientAddress(request, trustedProxies: trustedProxies, trustsEveryPeer: trustsEveryPeer)
            }
        }
        // The rate limits' rule (`RequestLimits.clientAddress`) is this one: the peer, or the rule just set. Not with
        // a PROXY protocol header: the client it names is the peer here, but one the limits would read
        // `X-Forwarded-For` of when it is a trusted proxy.
        configuration.sharesClientAddress = !(rateLimits.proxyProtocol && rateLimits.readsForwardedFor)
        return configuration
    }
}
