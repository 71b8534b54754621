import CryptoCore
import Foundation
import HTTPServer
import TestSupport

/// Echoes what it received as JSON: method, path, query, body length, whether TLS was used, the peer.
struct EchoHandler: HTTPHandler {
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "query": request.query ?? "",
            "bodyLength": request.body.count,
            "secure": request.isSecure,
            "remote": request.remoteAddress,
            "contentType": request.headers["CONTENT-TYPE"] ?? "",
        ]
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .json(status: 200, [UInt8](body))
    }
}

/// A fresh folder under the system temporary directory.
func makeTemporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "passkeyd-http-tests-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A self-signed certificate and key for localhost / 127.0.0.1 in a new temporary folder.
func makeCertificate() throws -> (certificate: String, key: String) {
    let folder = makeTemporaryFolder()
    let certificate = folder + "/tls/cert.pem"
    let key = folder + "/tls/key.pem"
    try SelfSignedCertificate.ensure(certificateFile: certificate, privateKeyFile: key, hostNames: ["localhost", "127.0.0.1"], now: Date())
    return (certificate, key)
}

/// A running server on 127.0.0.1 (any free ports) with HTTPS and plain HTTP listeners and small limits.
final class TestServer {
    static let maximumBodySize = 4096
    static let maximumHeaderSize = 2048

    let server: HTTPServer
    var httpsURL: String { "https://127.0.0.1:\(server.httpsPort!)" }
    var httpURL: String { "http://127.0.0.1:\(server.httpPort!)" }

    init(
        threads: Int = 2,
        maximumConnections: Int = 100,
        maximumConnectionsPerAddress: Int = 256,
        readTimeoutSeconds: Int = 5,
        workers: Int = 4,
        maximumQueuedRequests: Int = 1024,
        proxyProtocolFrom: [AddressRange] = [],
        suspectLane: SuspectLane? = SuspectLane(),
        sharesClientAddress: Bool = false,
        handler: any HTTPHandler = EchoHandler()
    ) throws {
        let files = try makeCertificate()
        let tls = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key)
        var configuration = HTTPServerConfiguration(
            httpsAddress: "127.0.0.1:0",
            httpAddress: "127.0.0.1:0",
            tls: tls,
            threads: threads,
            workers: workers,
            maximumQueuedRequests: maximumQueuedRequests,
            maximumBodySize: Self.maximumBodySize,
            maximumHeaderSize: Self.maximumHeaderSize,
            readTimeoutSeconds: readTimeoutSeconds,
            writeTimeoutSeconds: 5,
            maximumConnections: maximumConnections,
            maximumConnectionsPerAddress: maximumConnectionsPerAddress,
            log: .discarding
        )
        configuration.proxyProtocolFrom = proxyProtocolFrom
        configuration.suspectLane = suspectLane
        configuration.sharesClientAddress = sharesClientAddress
        server = try HTTPServer(configuration: configuration, handler: handler)
        server.start()
    }

    deinit {
        server.stop()
    }
}

/// What a child process printed and how it ended.
struct ProcessResult {
    let status: Int32
    let output: String
    let errorOutput: String
}

/// Runs a program to completion, optionally feeding standard input.
func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> ProcessResult {
    let result = try ChildProcess.run(executable, arguments, input: input)
    return ProcessResult(status: result.status, output: String(decoding: result.output, as: UTF8.self), errorOutput: result.errorOutput)
}

/// Runs `/usr/bin/curl -s -k --max-time 10` with the given arguments.
func curl(_ arguments: [String]) throws -> ProcessResult {
    try run("/usr/bin/curl", ["-s", "-k", "--max-time", "10"] + arguments)
}

/// Sends raw bytes over a plain TCP connection to 127.0.0.1:`port` and returns everything read until the
/// server closes or 5 s pass; nil when the connection is refused.
func exchangeRaw(port: Int, _ request: [UInt8], keepOpenUntilClosed: Bool = true) -> [UInt8]? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    guard connectLoopback(descriptor, port: port) else { return nil }
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count <= 0 { break }
        received += chunk[0..<count]
    }
    return received
}

/// Connects `descriptor` to 127.0.0.1:`port`.
func connectLoopback(_ descriptor: Int32, port: Int) -> Bool {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// Whether a TCP connection to 127.0.0.1:`port` is accepted.
func portIsOpen(_ port: Int) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    return connectLoopback(descriptor, port: port)
}

/// Writes `count` bytes of "a" to a new temporary file and returns its path.
func makeBodyFile(count: Int) -> String {
    let path = makeTemporaryFolder() + "/body"
    _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: UInt8(ascii: "a"), count: count))
    return path
}
