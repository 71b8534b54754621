import ConfigurationFile
import CryptoCore
import Foundation
import OutboundHTTP
import RelyingPartyServer

/// `passkeyd healthcheck [--config FILE] [--url URL]`: one `GET /readyz` of the local server, for a container's health
/// check (the image has no shell or curl). Without `--url` the address is the configuration's HTTPS listener
/// (`PASSKEYD_LISTEN` and `PASSKEYD_DATA` apply as for serve), else its plain-HTTP one, asked on loopback when it
/// listens on every address; over HTTPS the server's self-signed certificate in the data folder is the one trusted
/// (the system roots when the configuration names a certificate, and always with `--url`). Exit status: 0 when the
/// server answers 200 within the deadline, 1 otherwise, 2 on a bad command line.
struct HealthCheckCommand {
    let arguments: [String]
    let environment: [String: String]

    static let syntax = CommandLineSyntax(usage: "passkeyd healthcheck [--config FILE] [--url URL]", options: ["--config", "--url"])
    /// Seconds to connect, and for the whole exchange.
    static let connectSeconds = 2.0
    static let deadlineSeconds = 3.0

    /// Where to ask and whom to trust.
    struct Target: Equatable {
        let url: String
        /// The CA file for HTTPS, nil for the system roots.
        let caFile: String?
    }

    func run() -> Int32 {
        let target: Target
        do {
            target = try self.target()
        } catch let error as CommandLineError {
            return report("\(error)", status: 2)
        } catch {
            return report("invalid configuration: \(error)", status: 1)
        }
        do {
            let tls = try target.url.hasPrefix("https:") ? TLSClientContext(caFile: target.caFile) : nil
            let client = try HTTPClient(configuration: HTTPClientConfiguration(tls: tls, maximumConnections: 1, maximumWaitingRequests: 1))
            defer { client.shutDown() }
            let request = HTTPClientRequest(
                url: target.url,
                connectTimeoutSeconds: Self.connectSeconds,
                deadlineSeconds: Self.deadlineSeconds,
                maximumReplyBodySize: 65_536
            )
            let reply = try client.sendAndWait(request)
            guard reply.status == 200 else { return report("\(target.url) answered \(reply.status)", status: 1) }
            return 0
        } catch {
            return report("\(target.url): \(error)", status: 1)
        }
    }

    /// The URL and trust for this command line, configuration and environment.
    func target() throws -> Target {
        let line = try Self.syntax.parse(arguments)
        if let url = line.value("--url") {
            guard url.utf8.count <= 2048 else {
                throw CommandLineError(.invalidArgument, "--url is longer than 2048 bytes", usage: Self.syntax.usage)
            }
            do {
                try HTTPClient.validate(url: url)
            } catch {
                throw CommandLineError(.invalidArgument, "--url: \(error)", usage: Self.syntax.usage)
            }
            return Target(url: url, caFile: nil)
        }
        let overrides = try ServeOverrides(listen: nil, environment: environment, usage: Self.syntax.usage)
        let file = try line.value("--config").map(ServerConfiguration.load(path:)) ?? ServerConfiguration.load(json: Data("{}".utf8))
        return try Self.target(for: overrides.applied(to: file))
    }

    /// `/readyz` on the listener of `configuration`: its HTTPS one (trusting the self-signed certificate in the data
    /// folder unless a certificate is configured), else its plain-HTTP one.
    static func target(for configuration: ServerConfiguration) throws(CommandLineError) -> Target {
        if let address = configuration.httpsAddress {
            let caFile = configuration.certificateFile == nil ? configuration.dataDirectory + "/tls-certificate.pem" : nil
            return Target(url: "https://\(try loopback(address))/readyz", caFile: caFile)
        }
        guard let address = configuration.httpAddress else {
            throw CommandLineError(.invalidArgument, "the configuration has no listener", usage: syntax.usage)
        }
        return Target(url: "http://\(try loopback(address))/readyz", caFile: nil)
    }

    /// "host:port" with a wildcard host (every address) replaced by the loopback address of its family.
    private static func loopback(_ address: String) throws(CommandLineError) -> String {
        guard let colon = address.lastIndex(of: ":") else {
            throw CommandLineError(.invalidArgument, "the listener \(address) is not \"host:port\"", usage: syntax.usage)
        }
        let port = address[address.index(after: colon)...]
        switch address[..<colon] {
        case "", "0.0.0.0", "*": return "127.0.0.1:\(port)"
        case "[::]", "::": return "[::1]:\(port)"
        default: return address
        }
    }

    private func report(_ message: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd healthcheck: \(message)\n".utf8))
        return status
    }
}
