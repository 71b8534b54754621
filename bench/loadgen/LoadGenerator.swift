import CryptoCore
import Foundation
import Synchronization
import WebAuthnCore

/// Registers one discoverable credential, then runs full sign-in ceremonies (options → sign → verify) on
/// `connections` keep-alive HTTPS connections, and reports ceremonies/s and latency next to OpenSSL's raw
/// ES256 verify rate on one core. The two are measured in alternating rounds (raw, load, raw, load, ...) so
/// that a change in machine load affects both alike.
struct LoadGenerator {
    let port: Int
    let connections: Int
    let warmUpSeconds: Double
    let seconds: Double
    var rounds = 4
    var rawSecondsPerRound = 0.75

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One finished ceremony: its latency, and whether it succeeded.
    struct Sample {
        let nanoseconds: UInt64
        let succeeded: Bool
    }

    func run() throws {
        let credential = try register()
        let clients = try (0..<connections).map { _ in try LoopbackHTTPClient(port: port) }
        _ = try phase(clients, credential, seconds: warmUpSeconds)
        var rawRates: [Double] = []
        var samples: [Sample] = []
        for _ in 0..<rounds {
            rawRates.append(RawVerifyRate.measure(seconds: rawSecondsPerRound))
            samples += try phase(clients, credential, seconds: seconds / Double(rounds))
        }
        let raw = rawRates.reduce(0, +) / Double(rawRates.count)
        let failures = samples.filter { !$0.succeeded }.count
        let latencies = samples.filter(\.succeeded).map { Double($0.nanoseconds) / 1e6 }.sorted()
        guard !latencies.isEmpty else { throw Failure(description: "no ceremony succeeded (\(failures) failed)") }
        let rate = Double(latencies.count) / seconds
        print(String(format: "login ceremonies: %.0f/s over %d connections for %.0f s, p50 %.2f ms, p99 %.2f ms, failures %d",
                     rate, connections, seconds, Self.percentile(latencies, 0.50), Self.percentile(latencies, 0.99), failures))
        print(String(format: "openssl raw ES256 verify on one core: %.0f/s (rounds: %@)", raw,
                     rawRates.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
        print(String(format: "RATIO login-vs-raw-verify %.4f", rate / raw))
        if failures > 0 { throw Failure(description: "\(failures) ceremonies failed") }
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private func register() throws -> LoadgenCredential {
        let client = try LoopbackHTTPClient(port: port)
        let name = "loadgen-" + Base64URL.encode(SystemRandom().bytes(count: 6))
        let optionsReply = try client.post("/webauthn/registration/options", json: Array(#"{"username":"\#(name)"}"#.utf8))
        guard optionsReply.status == 200 else { throw Failure(description: "registration options: \(optionsReply.status)") }
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(optionsReply.body))
        guard let userHandle = Base64URL.decode(options.user.id) else { throw Failure(description: "bad user handle") }
        let credential = try LoadgenCredential(userHandle: userHandle)
        let verify = try client.post("/webauthn/registration/verify",
                                     json: Array(try JSONEncoder().encode(try credential.registration(challenge: options.challenge))))
        guard verify.status == 200 else { throw Failure(description: "registration verify: \(verify.status) \(String(decoding: verify.body, as: UTF8.self))") }
        return credential
    }

    /// One ceremony on `client`: discoverable options, sign, verify.
    private static func ceremony(_ client: LoopbackHTTPClient, _ credential: LoadgenCredential) throws -> Bool {
        let optionsReply = try client.post("/webauthn/authentication/options", json: Array("{}".utf8))
        guard optionsReply.status == 200 else { return false }
        let options = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(optionsReply.body))
        let body = Array(try JSONEncoder().encode(try credential.assertion(challenge: options.challenge)))
        return try client.post("/webauthn/authentication/verify", json: body).status == 200
    }

    /// Every client runs ceremonies on its own thread for `seconds`; the ceremonies that ended in time.
    private func phase(_ clients: [LoopbackHTTPClient], _ credential: LoadgenCredential, seconds: Double) throws -> [Sample] {
        let all = Mutex([Sample]())
        let errors = Mutex([String]())
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        for client in clients {
            group.enter()
            Thread {
                defer { group.leave() }
                var samples: [Sample] = []
                do {
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let succeeded = try Self.ceremony(client, credential)
                        let end = DispatchTime.now().uptimeNanoseconds
                        if end <= deadline { samples.append(Sample(nanoseconds: end - start, succeeded: succeeded)) }
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
                all.withLock { $0 += samples }
            }.start()
        }
        group.wait()
        if let error = errors.withLock({ $0.first }) { throw Failure(description: "a connection failed: \(error)") }
        return all.withLock { $0 }
    }
}
