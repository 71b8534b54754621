import CryptoCore
import Foundation
import Synchronization
import WebAuthnCore

/// Registers one discoverable credential, then runs full sign-in ceremonies (options → sign → verify) on
/// `connections` keep-alive HTTPS connections, and reports ceremonies/s and latency next to OpenSSL's raw
/// ES256 verify rate on one core, measured in the same run.
struct LoadGenerator {
    let port: Int
    let connections: Int
    let warmUpSeconds: Double
    let seconds: Double

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One finished ceremony: when it started and ended (uptime nanoseconds) and whether it succeeded.
    struct Sample {
        let start: UInt64
        let end: UInt64
        let succeeded: Bool
    }

    func run() throws {
        let credential = try register()
        let rawBefore = RawVerifyRate.measure(seconds: 1.5)
        let samples = try load(credential)
        let rawAfter = RawVerifyRate.measure(seconds: 1.5)
        let raw = (rawBefore + rawAfter) / 2

        let measureStart = samples.map(\.start).min()! + UInt64(warmUpSeconds * 1e9)
        let measureEnd = measureStart + UInt64(seconds * 1e9)
        let window = samples.filter { $0.start >= measureStart && $0.end <= measureEnd }
        let failures = samples.filter { !$0.succeeded }.count
        let latencies = window.filter(\.succeeded).map { Double($0.end - $0.start) / 1e6 }.sorted()
        guard !latencies.isEmpty else { throw Failure(description: "no ceremony succeeded (\(failures) failed)") }
        let rate = Double(latencies.count) / seconds
        print(String(format: "login ceremonies: %.0f/s over %d connections for %.0f s, p50 %.2f ms, p99 %.2f ms, failures %d",
                     rate, connections, seconds, Self.percentile(latencies, 0.50), Self.percentile(latencies, 0.99), failures))
        print(String(format: "openssl raw ES256 verify on one core: %.0f/s (before %.0f, after %.0f)", raw, rawBefore, rawAfter))
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

    private func load(_ credential: LoadgenCredential) throws -> [Sample] {
        let all = Mutex([Sample]())
        let errors = Mutex([String]())
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64((warmUpSeconds + seconds + 0.5) * 1e9)
        let group = DispatchGroup()
        for _ in 0..<connections {
            group.enter()
            Thread {
                defer { group.leave() }
                var samples: [Sample] = []
                do {
                    let client = try LoopbackHTTPClient(port: port)
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        let start = DispatchTime.now().uptimeNanoseconds
                        let succeeded = try Self.ceremony(client, credential)
                        samples.append(Sample(start: start, end: DispatchTime.now().uptimeNanoseconds, succeeded: succeeded))
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
