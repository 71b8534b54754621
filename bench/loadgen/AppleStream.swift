import CryptoCore
import Foundation
import Synchronization

/// `--mode apple-stream`: a steady stream of Sign in with Apple requests (`POST /auth/apple`) on `connections`
/// keep-alive HTTPS connections, one thread each, each sending one request every `interval` seconds (at once after
/// an answer that took longer). Every identity token is structurally valid (RS256 header, Apple's claims) but names a
/// key ID no key set holds and carries random signature bytes, so the server can only answer it after fetching
/// Apple's keys. The stall benchmark points the server's `apple.jwksURL` at a socket that never answers and runs this
/// next to the passkey load: with more connections than the server has workers, a server whose requests waited for
/// the fetch would fill its worker pool. Runs until `seconds` pass or SIGTERM, and reports the answers by status, their
/// latency, and the requests still unanswered.
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

    /// What the connections' threads have seen so far, shared with the thread that reports.
    struct Tally {
        var statuses: [Int: Int] = [:]
        var milliseconds: [Double] = []
        /// Requests sent and not answered yet.
        var inFlight = 0
        var stopped = false
        var firstError: String?
    }

    /// Sends until `seconds` have passed or a SIGTERM arrives, then reports at once: a request still waiting for its
    /// answer is counted as unanswered (a stalled server would keep it for the fetch's whole deadline), not waited for.
    func run() throws {
        let clients = try (0..<connections).map { _ in try LoopbackHTTPClient(port: port) }
        let tally = Mutex(Tally())
        let stop = DispatchSemaphore(value: 0)
        signal(SIGTERM, SIG_IGN)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        termination.setEventHandler { stop.signal() }
        termination.resume()
        let started = DispatchTime.now()
        for (index, client) in clients.enumerated() {
            Thread { [self] in
                // Spread the connections' sends over one interval instead of sending them in waves.
                Thread.sleep(forTimeInterval: interval * Double(index) / Double(connections))
                do {
                    while tally.withLock({ tally in
                        if !tally.stopped { tally.inFlight += 1 }
                        return !tally.stopped
                    }) {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let reply = try client.post("/auth/apple", json: try Self.body(audience: audience))
                        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                        tally.withLock { tally in
                            tally.inFlight -= 1
                            guard !tally.stopped else { return }
                            tally.statuses[reply.status, default: 0] += 1
                            tally.milliseconds.append(elapsed * 1000)
                        }
                        if elapsed < interval { Thread.sleep(forTimeInterval: interval - elapsed) }
                    }
                } catch {
                    tally.withLock { tally in
                        tally.inFlight -= 1
                        tally.firstError = tally.firstError ?? "\(error)"
                    }
                }
            }.start()
        }
        _ = stop.wait(timeout: started + seconds)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let seen = tally.withLock { tally in
            tally.stopped = true
            return tally
        }
        if let error = seen.firstError { throw Failure(description: "an Apple connection failed: \(error)") }
        let sorted = seen.milliseconds.sorted()
        let answers = seen.statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: " ")
        print(
            String(
                format: "apple sign-ins: %d answered (%.0f/s) over %d connections, one every %.3f s each, statuses %@, "
                    + "p50 %.2f ms, p99 %.2f ms, slowest %.2f ms, unanswered at the end %d",
                sorted.count,
                Double(sorted.count) / elapsed,
                connections,
                interval,
                answers.isEmpty ? "none" : answers,
                sorted.isEmpty ? 0 : Self.percentile(sorted, 0.50),
                sorted.isEmpty ? 0 : Self.percentile(sorted, 0.99),
                sorted.last ?? 0,
                seen.inFlight
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
