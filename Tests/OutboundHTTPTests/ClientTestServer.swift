import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The project's own `HTTPServer` on 127.0.0.1 (HTTPS with a certificate from a `TestCertificateAuthority`, and plain
/// HTTP), answering the routes the client tests need, and counting what it was asked.
final class ClientTestServer: Sendable {
    let server: HTTPServer
    private let handler = Routes()

    var httpsPort: Int { server.httpsPort! }
    var httpPort: Int { server.httpPort! }
    /// The paths requested so far, in order.
    var requestedPaths: [String] { handler.paths.withLock { $0 } }

    init(chain: String, key: String, threads: Int = 1) throws {
        let tls = try TLSServerContext(certificateChainFile: chain, privateKeyFile: key)
        server = try HTTPServer(
            configuration: HTTPServerConfiguration(
                httpsAddress: "127.0.0.1:0",
                httpAddress: "127.0.0.1:0",
                tls: tls,
                threads: threads,
                maximumConnections: 1_000,
                log: .discarding
            ),
            handler: handler
        )
        server.start()
    }

    deinit {
        server.stop()
    }

    private final class Routes: HTTPHandler {
        let paths = Mutex<[String]>([])

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            paths.withLock { $0.append(request.path) }
            switch request.path {
            case "/hello":
                return HTTPResponse(
                    status: 200,
                    headers: HTTPHeaders([("Content-Type", "text/plain"), ("X-Repeated", "one"), ("X-Repeated", "two")]),
                    body: Array("hello, client".utf8)
                )
            case "/echo":
                let headers = HTTPHeaders([
                    ("X-Method", request.method), ("X-Host", request.headers["host"] ?? ""),
                    ("X-Content-Type", request.headers["content-type"] ?? ""), ("X-User-Agent", request.headers["user-agent"] ?? ""),
                    ("X-Connection", request.headers["connection"] ?? ""), ("X-Query", request.query ?? ""),
                ])
                return HTTPResponse(status: 200, headers: headers, body: request.body)
            case "/redirect":
                return HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "/redirected")]), body: Array("moved".utf8))
            case "/large":
                let size = Int(request.query?.split(separator: "=").last ?? "") ?? 0
                return HTTPResponse(status: 200, body: [UInt8](repeating: UInt8(ascii: "a"), count: size))
            case "/big-header":
                return HTTPResponse(status: 200, headers: HTTPHeaders([("X-Big", String(repeating: "b", count: 20_000))]))
            default:
                return HTTPResponse(status: 404)
            }
        }
    }
}

/// Counts this process's open descriptors that are TCP connections to or from given ports (listening sockets
/// excluded), from /proc/self/fd and /proc/net/tcp{,6}: exact even while other tests open descriptors of their own.
enum SocketCensus {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func openConnections(ports: Set<Int>) -> Int {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[3] != "0A" else { continue }
                let localPort = fields[1].split(separator: ":").last.flatMap { Int($0, radix: 16) }
                let remotePort = fields[2].split(separator: ":").last.flatMap { Int($0, radix: 16) }
                if ports.contains(localPort ?? -1) || ports.contains(remotePort ?? -1) {
                    inodes.insert(String(fields[9]))
                }
            }
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
        }.count
    }

    /// All open descriptors of this process (other tests running at the same time included).
    static var allDescriptors: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }
}
