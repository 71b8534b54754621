import ConfigurationReading

/// The `oidc` block: passkeyd as an OpenID provider for the listed clients (`/oauth/authorize`, `/oauth/token`).
/// Without clients the OAuth endpoints answer every request as from an unknown client.
public struct OIDCSettings: Sendable, Equatable {
    public var clients: [OIDCClient] = []
    /// How long a grant's refresh tokens are accepted, from the sign-in (30 days by default; an hour to a year).
    public var refreshTokenLifetimeSeconds = 2_592_000
    /// How many grants an account keeps with one client (20 by default; 1 to 1000): a new sign-in past it revokes the
    /// oldest, with its refresh tokens.
    public var maximumGrantsPerClient = 20
    /// How long an authorization code may wait for its exchange: 60 seconds, fixed (RFC 6749 §4.1.2: "a maximum
    /// authorization code lifetime of 10 minutes is RECOMMENDED"; a code is exchanged at once).
    public static let codeLifetimeSeconds = 60
    /// How long a refresh token just rotated may come back and be rotated again without revoking its grant (a client's
    /// retry after a lost answer, two of its requests racing): 0 (off, the default) to 60 seconds. Within it, the
    /// token gets a fresh pair and the grant lives on; after it, its return is a reuse and revokes the grant
    /// (RFC 9700 §4.14.2).
    public var refreshTokenReuseGraceSeconds = 0

    public init() {}

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["clients", "refreshTokenLifetimeSeconds", "refreshTokenReuseGraceSeconds", "maximumGrantsPerClient"])
        clients = try OIDCClient.list(try reader.objects("clients") ?? [], key: reader.key("clients"))
        refreshTokenLifetimeSeconds = try reader.integer("refreshTokenLifetimeSeconds", in: 3600...31_536_000) ?? refreshTokenLifetimeSeconds
        refreshTokenReuseGraceSeconds = try reader.integer("refreshTokenReuseGraceSeconds", in: 0...60) ?? refreshTokenReuseGraceSeconds
        maximumGrantsPerClient = try reader.integer("maximumGrantsPerClient", in: 1...1000) ?? maximumGrantsPerClient
    }

    /// The client with this ID, or nil.
    public func client(id: String) -> OIDCClient? {
        clients.first { $0.id == id }
    }
}
