import CryptoCore
import Foundation
import Synchronization
import WebAuthnCore

/// `--mode soak`: a fixed-length mixed load on `connections` keep-alive HTTPS connections, one thread each, walking
/// `SoakKind.cycle` (registrations, logins, AASA fetches and bad requests in fixed proportions). It reports, per
/// kind, the operations, the unexpected answers (0 required: valid requests must succeed, bad ones must get their
/// expected 4xx) and the p50/p99 latency, and the server's resident memory (VmRSS of `serverProcessID`) at start,
/// after the warm-up, every 10 s and at the end, with a PASS/FAIL line for errors and for flat memory.
struct SoakRun {
    let port: Int
    let serverProcessID: Int32
    let connections: Int
    let warmUpSeconds: Double
    let seconds: Double

    /// Memory is flat when the end RSS exceeds the after-warm-up RSS by at most this fraction, or this many kB.
    static let flatFraction = 0.20
    static let flatKilobytes = 10 * 1024
    static let aasaPath = "/.well-known/apple-app-site-association"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// One finished operation: its latency, its HTTP requests, and whether every answer was the expected one.
    struct Sample {
        let kind: SoakKind
        let nanoseconds: UInt64
        let requests: Int
        let asExpected: Bool
    }

    /// What one connection's thread holds. `@unchecked Sendable`: used by one thread at a time.
    final class Worker: @unchecked Sendable {
        let index: Int
        var client: LoopbackHTTPClient
        let credential: LoadgenCredential
        var step: Int
        var registrations = 0
        var firstFailure: String?

        init(index: Int, client: LoopbackHTTPClient, credential: LoadgenCredential) {
            self.index = index
            self.client = client
            self.credential = credential
            step = index * 7
        }
    }

    /// Runs the soak; true when both PASS lines passed.
    func run() throws -> Bool {
        let runID = Base64URL.encode(SystemRandom().bytes(count: 4))
        let workers = try (0..<connections).map { index in
            let client = try LoopbackHTTPClient(port: port)
            guard let credential = try Self.register(client, username: "soak-\(runID)-login-\(index)") else {
                throw Failure(description: "could not register the login credential of connection \(index)")
            }
            return Worker(index: index, client: client, credential: credential)
        }
        let startRSS = try residentKilobytes()
        let warmUp = phase(workers, runID: runID, seconds: warmUpSeconds) { _ in }
        let warmRSS = try residentKilobytes()
        var series: [Int] = []
        let measured = phase(workers, runID: runID, seconds: seconds) { elapsed in
            if elapsed.isMultiple(of: 10), let rss = try? residentKilobytes() { series.append(rss) }
        }
        let endRSS = try residentKilobytes()

        print(
            String(
                format: "soak: %.0f s after a %.0f s warm-up, %d keep-alive HTTPS connections, per 20 operations: %@",
                seconds,
                warmUpSeconds,
                connections,
                SoakKind.allCases.map { kind in "\(SoakKind.cycle.filter { $0 == kind }.count) \(kind.rawValue)" }.joined(separator: ", ")
            )
        )
        print("kind                 operations  requests  unexpected  expected answer             p50 ms    p99 ms")
        var validOperations = 0
        var validErrors = 0
        var badOperations = 0
        var badErrors = 0
        for kind in SoakKind.allCases {
            let samples = measured.filter { $0.kind == kind }
            let unexpected = samples.filter { !$0.asExpected }.count
            let latencies = samples.map { Double($0.nanoseconds) / 1e6 }.sorted()
            print(
                kind.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(format: " %10d %9d %11d  ", samples.count, samples.reduce(0) { $0 + $1.requests }, unexpected)
                    + kind.expected.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + String(format: " %7.2f %9.2f", Self.percentile(latencies, 0.50), Self.percentile(latencies, 0.99))
            )
            if kind.isValid {
                validOperations += samples.count
                validErrors += unexpected
            } else {
                badOperations += samples.count
                badErrors += unexpected
            }
        }
        let total = measured.reduce(0) { $0 + $1.requests }
        print(String(format: "total: %d operations, %d HTTP requests, %.0f requests/s", measured.count, total, Double(total) / seconds))
        let warmUpErrors = warmUp.filter { !$0.asExpected }.count
        if let failure = workers.compactMap(\.firstFailure).first { print("first unexpected answer: \(failure)") }
        let errorsPass = validErrors == 0 && badErrors == 0 && warmUpErrors == 0 && validOperations > 0 && badOperations > 0
        print(
            "\(errorsPass ? "PASS" : "FAIL") errors: \(validErrors) of \(validOperations) valid operations failed, \(badErrors) of "
                + "\(badOperations) bad requests did not get their expected 4xx (warm-up: \(warmUpErrors) unexpected of \(warmUp.count))"
        )
        let allowed = max(Int(Double(warmRSS) * Self.flatFraction), Self.flatKilobytes)
        let memoryPass = endRSS - warmRSS <= allowed
        print(
            String(
                format: "server RSS: start %.1f MB, after warm-up %.1f MB, end %.1f MB (every 10 s: %@)",
                Double(startRSS) / 1024,
                Double(warmRSS) / 1024,
                Double(endRSS) / 1024,
                series.map { String(format: "%.1f", Double($0) / 1024) }.joined(separator: ", ")
            )
        )
        print(
            String(
                format: "%@ memory flat: end − after warm-up = %+.1f MB, allowed %.1f MB (20%% or 10 MB, whichever is larger)",
                memoryPass ? "PASS" : "FAIL",
                Double(endRSS - warmRSS) / 1024,
                Double(allowed) / 1024
            )
        )
        return errorsPass && memoryPass
    }

    /// The server's VmRSS in kB, from /proc/<pid>/status.
    func residentKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(serverProcessID)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else {
            throw Failure(description: "no VmRSS for process \(serverProcessID)")
        }
        return kilobytes
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// Every worker runs operations on its own thread for `seconds`; `tick` is called on this thread once a second
    /// with the whole seconds elapsed. Returns the operations that ended in time.
    private func phase(_ workers: [Worker], runID: String, seconds: Double, tick: (Int) -> Void) -> [Sample] {
        let all = Mutex([Sample]())
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        let group = DispatchGroup()
        for worker in workers {
            group.enter()
            Thread {
                defer { group.leave() }
                var samples: [Sample] = []
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let kind = SoakKind.cycle[worker.step % SoakKind.cycle.count]
                    worker.step += 1
                    let start = DispatchTime.now().uptimeNanoseconds
                    let (requests, asExpected) = Self.operation(kind, worker, port: port, runID: runID)
                    let end = DispatchTime.now().uptimeNanoseconds
                    if end <= deadline { samples.append(Sample(kind: kind, nanoseconds: end - start, requests: requests, asExpected: asExpected)) }
                }
                all.withLock { $0 += samples }
            }.start()
        }
        var elapsed = 0
        while group.wait(timeout: .now() + 1) == .timedOut, Double(elapsed) < seconds + 60 {
            elapsed += 1
            tick(elapsed)
        }
        group.wait()
        return all.withLock { $0 }
    }

    /// One operation of `kind` on the worker's connection: the HTTP requests it made, and whether every answer
    /// was the expected one. A connection the server closed is an unexpected answer; the worker reconnects.
    private static func operation(_ kind: SoakKind, _ worker: Worker, port: Int, runID: String) -> (Int, Bool) {
        do {
            let (requests, asExpected, detail) = try perform(kind, worker, runID: runID)
            if !asExpected, worker.firstFailure == nil { worker.firstFailure = "\(kind.rawValue): \(detail)" }
            return (requests, asExpected)
        } catch {
            if worker.firstFailure == nil { worker.firstFailure = "\(kind.rawValue): \(error)" }
            if let client = try? LoopbackHTTPClient(port: port) { worker.client = client }
            return (1, false)
        }
    }

    private static func perform(_ kind: SoakKind, _ worker: Worker, runID: String) throws -> (Int, Bool, String) {
        let client = worker.client
        switch kind {
        case .registration:
            worker.registrations += 1
            let registered = try register(client, username: "soak-\(runID)-\(worker.index)-\(worker.registrations)")
            return (2, registered != nil, "registration refused")
        case .login:
            let options = try client.post("/webauthn/authentication/options", json: Array("{}".utf8))
            guard options.status == 200 else { return (1, false, "options \(options.status)") }
            let challenge = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(options.body)).challenge
            let verify = try client.post(
                "/webauthn/authentication/verify",
                json: Array(try JSONEncoder().encode(try worker.credential.assertion(challenge: challenge)))
            )
            return (2, verify.status == 200 && token(in: verify) != nil, "verify \(verify.status) \(String(decoding: verify.body, as: UTF8.self))")
        case .aasa:
            let reply = try client.get(aasaPath)
            return (1, reply.status == 200 && !reply.body.isEmpty, "status \(reply.status)")
        case .malformedJSON:
            let reply = try client.post("/webauthn/authentication/options", json: Array(#"{"username": "#.utf8))
            return (1, reply.status == 400 && errorCode(in: reply) == "invalid_json", "status \(reply.status)")
        case .wrongContentType:
            let reply = try client.post("/webauthn/registration/options", contentType: "text/plain", body: Array(#"{"username":"soak"}"#.utf8))
            return (1, reply.status == 415 && errorCode(in: reply) == "unsupported_media_type", "status \(reply.status)")
        case .unknownRoute:
            let reply = try client.get("/no-such-route/\(worker.step)")
            return (1, reply.status == 404 && errorCode(in: reply) == "not_found", "status \(reply.status)")
        case .wrongChallenge:
            let never = Base64URL.encode(SystemRandom().bytes(count: 32))
            let reply = try client.post(
                "/webauthn/authentication/verify",
                json: Array(try JSONEncoder().encode(try worker.credential.assertion(challenge: never)))
            )
            return (1, reply.status == 400 && errorCode(in: reply) == "challenge_unknown", "status \(reply.status)")
        }
    }

    /// Registers a new account with one discoverable ES256 credential; nil when the server refused.
    static func register(_ client: LoopbackHTTPClient, username: String) throws -> LoadgenCredential? {
        let optionsReply = try client.post("/webauthn/registration/options", json: Array(#"{"username":"\#(username)"}"#.utf8))
        guard optionsReply.status == 200 else { return nil }
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(optionsReply.body))
        guard let userHandle = Base64URL.decode(options.user.id) else { return nil }
        let credential = try LoadgenCredential(userHandle: userHandle)
        let verify = try client.post(
            "/webauthn/registration/verify",
            json: Array(try JSONEncoder().encode(try credential.registration(challenge: options.challenge)))
        )
        return verify.status == 200 && token(in: verify) != nil ? credential : nil
    }

    private static func object(in reply: LoopbackHTTPClient.Reply) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(reply.body))) as? [String: Any]
    }

    private static func token(in reply: LoopbackHTTPClient.Reply) -> String? {
        object(in: reply)?["token"] as? String
    }

    private static func errorCode(in reply: LoopbackHTTPClient.Reply) -> String? {
        object(in: reply)?["error"] as? String
    }
}
