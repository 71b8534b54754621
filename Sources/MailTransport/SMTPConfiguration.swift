/// Where and how `SMTPClient` sends: one relay, its credentials and its deadlines.
public struct SMTPConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var security: SMTPSecurity
    /// User name and password for SMTP AUTH (both or neither); sent only over TLS.
    public var username: String?
    public var password: String?
    /// PEM file of the roots that the relay's certificate must lead to; nil means the system roots.
    public var caFile: String?
    /// The name passkeyd gives in `EHLO`.
    public var heloName: String
    /// Name resolution, TCP connection and TLS handshake, in milliseconds.
    public var connectTimeoutMilliseconds: Int
    /// The whole send, connection included, in milliseconds.
    public var timeoutMilliseconds: Int

    public init(
        host: String,
        port: Int,
        security: SMTPSecurity,
        username: String? = nil,
        password: String? = nil,
        caFile: String? = nil,
        heloName: String = "localhost",
        connectTimeoutMilliseconds: Int = 10_000,
        timeoutMilliseconds: Int = 30_000
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.caFile = caFile
        self.heloName = heloName
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Refuses a host that is not a DNS name, an IPv4 address or a bracketed IPv6 address, a port out of range, plain
    /// SMTP to a host that is not loopback, a user name without a password (or the reverse), and deadlines that are
    /// not positive.
    public func validate() throws(MailError) {
        guard Self.isHost(host) else { throw MailError(.configurationInvalid, "the host is not a DNS name or an IP address") }
        guard Self.isHost(heloName), !heloName.hasPrefix("[") else { throw MailError(.configurationInvalid, "the EHLO name is not a DNS name") }
        guard (1...65_535).contains(port) else { throw MailError(.configurationInvalid, "the port is not 1 to 65535") }
        guard security != .plain || Self.isLoopback(host) else {
            throw MailError(.configurationInvalid, "plain SMTP (no TLS) is allowed only to a loopback host")
        }
        guard (username == nil) == (password == nil) else {
            throw MailError(.configurationInvalid, "a user name needs a password and a password a user name")
        }
        for value in [username, password].compactMap({ $0 }) where value.isEmpty || value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw MailError(.configurationInvalid, "the user name or password is empty or holds a control character")
        }
        guard connectTimeoutMilliseconds > 0, timeoutMilliseconds > 0 else {
            throw MailError(.configurationInvalid, "the timeouts must be positive")
        }
    }

    /// `localhost`, an address of 127.0.0.0/8, or `[::1]`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// A DNS name (letters, digits, hyphens, dots), or an IPv6 address in brackets.
    static func isHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        if host.hasPrefix("[") {
            let inner = host.dropFirst().dropLast()
            return host.hasSuffix("]") && !inner.isEmpty
                && inner.utf8.allSatisfy { byte in
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                }
        }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                }
        }
    }
}
