import CryptoCore
import Foundation
import Synchronization

/// `--mode apple-stream`: a steady stream of Sign in with Apple requests (`POST /auth/apple`) on `connections`
/// keep-alive HTTPS connections, one thread each, each sending one request every `interval` seconds (at once after
/// an answer that took longer). Every identity token is structurally valid (RS256 header, Apple's claims) but names a
/// key ID no key set holds and carries random signature bytes, so the server can only answer it after fetching
/// Apple's keys. The stall benchmark points the server's `apple.jwksURL` at a socket that never answers and runs this
/// next to the passkey load: with more connections than the server has workers, a server whose requests waited for
/// the fetch would fill its worker pool. Reports the answers by status and their latency.
struct AppleStream {
    let port: Int
    let connections: Int
    let seconds: Double
    let interval: Double
    /// The `aud` of the tokens: one of the server's configured bundle IDs.
    let audience: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func run() throws {
        let clients = try (0..<connections).map { _ in try LoopbackHTTPClient(port: port) }
        let statuses = Mutex([Int: Int]())
        let latencies = Mutex([Double]())
        let errors = Mutex([String]())
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        for (index, client) in clients.enumerated() {
            group.enter()
            Thread { [self] in
                defer { group.leave() }
                var counts: [Int: Int] = [:]
                var mine: [Double] = []
                // Spread the connections' sends over one interval instead of sending them in waves.
                Thread.sleep(forTimeInterval: interval * Double(index) / Double(connections))
                do {
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let reply = try client.post("/auth/apple", json: try Self.body(audience: audience))
                        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        counts[reply.status, default: 0] += 1
                        mine.append(elapsed * 1000)
                        if elapsed < interval { Thread.sleep(forTimeInterval: interval - elapsed) }
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
                statuses.withLock { all in all.merge(counts, uniquingKeysWith: +) }
                latencies.withLock { $0 += mine }
            }.start()
        }
        group.wait()
        if let error = errors.withLock({ $0.first }) { throw Failure(description: "an Apple connection failed: \(error)") }
        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { throw Failure(description: "no Apple sign-in was answered") }
        let answers = statuses.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: " ")
        print(
            String(
                format: "apple sign-ins: %d answered (%.0f/s) over %d connections, one every %.3f s each, statuses %@, "
                    + "p50 %.2f ms, p99 %.2f ms, slowest %.2f ms",
                sorted.count,
                Double(sorted.count) / seconds,
                connections,
                interval,
                answers,
                Self.percentile(sorted, 0.50),
                Self.percentile(sorted, 0.99),
                sorted[sorted.count - 1]
            )
        )
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// A request body with a fresh raw nonce and a fresh token for it (a token is accepted once, so none repeats).
    static func body(audience: String) throws -> [UInt8] {
        let random = SystemRandom()
        let rawNonce = Base64URL.encode(random.bytes(count: 16))
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"RS256","kid":"passkeyd-stall-benchmark-unknown-key"}"#
        let claims =
            #"{"iss":"https://appleid.apple.com","aud":"\#(audience)","sub":"001234.\#(Hex.encode(random.bytes(count: 16))).0123","#
            + #""iat":\#(now),"exp":\#(now + 600),"nonce":"\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8))))","nonce_supported":true}"#
        let token = [Array(header.utf8), Array(claims.utf8), random.bytes(count: 256)].map(Base64URL.encode).joined(separator: ".")
        return Array(try JSONSerialization.data(withJSONObject: ["identityToken": token, "rawNonce": rawNonce]))
    }
}
