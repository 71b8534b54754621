import ConfigurationFile
import RelyingPartyServer

/// What `serve` (and `healthcheck`) take over the configuration file, for containers: the HTTPS listener's address
/// (`--listen`, else `PASSKEYD_LISTEN`) and the data folder (`PASSKEYD_DATA`). Precedence: the command line, then the
/// environment, then the file. Each value is checked here, before anything starts: a bad one is a command-line error.
struct ServeOverrides: Equatable {
    static let listenVariable = "PASSKEYD_LISTEN"
    static let dataVariable = "PASSKEYD_DATA"
    /// "host:port" at most: a 253-character DNS name (or a bracketed IPv6 address), a colon and five digits.
    static let maximumAddressLength = 260
    static let maximumPathLength = 1024

    /// The HTTPS listener's "host:port", nil to keep the file's.
    let listenAddress: String?
    /// The data folder (absolute), nil to keep the file's.
    let dataDirectory: String?
    /// `--allow-incompatible-migration`: every node of the previous release is stopped, so a PostgreSQL schema step
    /// that would break them may run at this start (it is refused otherwise).
    var allowsIncompatibleMigration = false

    /// `listen` is the command line's `--listen` value; `environment` the process's variables.
    init(listen: String?, environment: [String: String], usage: String) throws(CommandLineError) {
        if let listen {
            listenAddress = try Self.checkedAddress(listen, source: "--listen", usage: usage)
        } else if let variable = environment[Self.listenVariable] {
            listenAddress = try Self.checkedAddress(variable, source: Self.listenVariable, usage: usage)
        } else {
            listenAddress = nil
        }
        dataDirectory = try environment[Self.dataVariable].map { (path) throws(CommandLineError) in
            try Self.checkedPath(path, source: Self.dataVariable, usage: usage)
        }
    }

    /// The configuration with the overrides in force: the HTTPS listener (added when the file has only plain HTTP)
    /// and the data folder.
    func applied(to configuration: ServerConfiguration) -> ServerConfiguration {
        var result = configuration
        if let listenAddress { result.httpsAddress = listenAddress }
        if let dataDirectory { result.dataDirectory = dataDirectory }
        return result
    }

    /// "host:port" with a port 1…65535 and a host of letters, digits, '.', '-', or a bracketed IPv6 address.
    static func isListenAddress(_ text: String) -> Bool {
        guard text.utf8.count <= maximumAddressLength, let colon = text.lastIndex(of: ":") else { return false }
        let host = text[..<colon]
        let port = text[text.index(after: colon)...]
        guard port.count <= 5, port.allSatisfy(\.isASCIIDigit), let number = Int(port), (1...65535).contains(number) else {
            return false
        }
        if host.hasPrefix("[") {
            let inside = host.dropFirst().dropLast()
            return host.hasSuffix("]") && !inside.isEmpty && inside.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return !host.isEmpty && host.allSatisfy { $0.isASCIILetterOrDigit || $0 == "." || $0 == "-" }
    }

    private static func checkedAddress(_ text: String, source: String, usage: String) throws(CommandLineError) -> String {
        guard isListenAddress(text) else {
            throw CommandLineError(
                .invalidArgument,
                "\(source) must be \"host:port\" (port 1-65535, at most \(maximumAddressLength) characters), e.g. 0.0.0.0:8443",
                usage: usage
            )
        }
        return text
    }

    private static func checkedPath(_ text: String, source: String, usage: String) throws(CommandLineError) -> String {
        guard text.hasPrefix("/"), text.utf8.count <= maximumPathLength, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw CommandLineError(
                .invalidArgument,
                "\(source) must be an absolute path of at most \(maximumPathLength) bytes without control characters",
                usage: usage
            )
        }
        return text
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
