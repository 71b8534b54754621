import CryptoCore
import Foundation
import JSON
import Synchronization
import WebAuthnCore

/// Registers `passkeys` discoverable credentials (one by default, each of its own account; worker `i` signs in with
/// passkey `i mod passkeys`), then runs full sign-in ceremonies (options → sign → verify) on
/// `connections` keep-alive HTTPS connections, and reports ceremonies/s and latency next to OpenSSL's raw
/// ES256 verify rate on one core. The two are measured in alternating rounds (raw, load, raw, load, ...) so
/// that a change in machine load affects both alike.
///
/// With several `ports`, the nodes of one deployment that share a database, it acts as a load balancer that
/// never sends a ceremony's two requests to the same node: worker `i` (of `connections`, one thread each) takes
/// its options from node `i mod n` and posts its verification to node `(i + 1) mod n`, over one keep-alive
/// connection to each, so a verification succeeds only if the nodes share the challenge and the credential.
/// The credential is registered on the first node.
struct LoadGenerator {
    let ports: [Int]
    let connections: Int
    let warmUpSeconds: Double
    let seconds: Double
    /// How many passkeys the workers sign in with: with one, every ceremony updates the same credential row.
    var passkeys = 1
    /// When given (one node only), the server whose CPU time per ceremony is measured during the load rounds.
    var serverCPU: ProcessCPUTime? = nil
    var rounds = 4
    var rawSecondsPerRound = 0.75
    /// When given, the first registration's and one sign-in's replies are written there before the load
    /// (`Recorder`), for a stand-in server that answers with the same bytes (the benchmark's CPU floor).
    var recordingDirectory: String? = nil
    /// When given, the ceremonies per second all connections together start at most (each connection paces its own
    /// share): a server measured at the rate another one reached, so that both wait and wake alike between requests.
    var pacedRate: Double? = nil
    /// When given, a file the registered passkeys are written to (`credentialID userHandle`, base64url, one a line)
    /// before the load: the attack benchmark's flood names them in its forged assertions.
    var credentialsFile: String? = nil

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The connections one worker thread runs its ceremonies on: one to the node that issues the options and one
    /// to the node that verifies; with a single node, one connection for both.
    struct CeremonyClients {
        let options: LoopbackHTTPClient
        let verification: LoopbackHTTPClient

        init(optionsPort: Int, verificationPort: Int) throws {
            options = try LoopbackHTTPClient(port: optionsPort)
            verification = verificationPort == optionsPort ? options : try LoopbackHTTPClient(port: verificationPort)
        }
    }

    /// One finished ceremony: its latency, and whether it succeeded.
    struct Sample {
        let nanoseconds: UInt64
        let succeeded: Bool
    }

    func run() throws {
        let recorder = recordingDirectory.map(Recorder.init)
        let credentials = try (0..<passkeys).map { index in try register(recorder: index == 0 ? recorder : nil) }
        if let credentialsFile {
            let lines = credentials.map { Base64URL.encode($0.id) + " " + Base64URL.encode($0.userHandle) + "\n" }.joined()
            try Data(lines.utf8).write(to: URL(fileURLWithPath: credentialsFile), options: .atomic)
        }
        let clients = try (0..<connections).map { index in
            try CeremonyClients(optionsPort: ports[index % ports.count], verificationPort: ports[(index + 1) % ports.count])
        }
        let credential = { (index: Int) in credentials[index % credentials.count] }
        if let recorder {
            let recording = try CeremonyClients(optionsPort: ports[0], verificationPort: ports[0])
            recording.options.keepsHeads = true
            recording.verification.keepsHeads = true
            guard try Self.ceremony(recording, credentials[0], recorder: recorder) else { throw Failure(description: "the recorded sign-in failed") }
        }
        _ = try phase(clients, credential, seconds: warmUpSeconds)
        var rawRates: [Double] = []
        var samples: [Sample] = []
        var serverCPUSeconds = 0.0
        // This process's CPU while its workers run the ceremonies (the main thread waits for them meanwhile; the
        // raw-verify rounds fall outside): what the load costs the cores it shares with the server.
        let ownCPU = ProcessCPUTime(processID: getpid())
        var ownCPUSeconds = 0.0
        var machine = MachineIdleTime.Reading(idle: 0, busy: 0)
        var signRates: [Double] = []
        for _ in 0..<rounds {
            rawRates.append(RawVerifyRate.measure(seconds: rawSecondsPerRound))
            if serverCPU != nil { signRates.append(RawSignRate.measure(seconds: rawSecondsPerRound / 3)) }
            let cpuBefore = try serverCPU?.seconds() ?? 0
            let ownBefore = try ownCPU.seconds()
            let machineBefore = try MachineIdleTime.read()
            samples += try phase(clients, credential, seconds: seconds / Double(rounds))
            let machineAfter = try MachineIdleTime.read()
            ownCPUSeconds += try ownCPU.seconds() - ownBefore
            machine.idle += machineAfter.idle - machineBefore.idle
            machine.busy += machineAfter.busy - machineBefore.busy
            serverCPUSeconds += try (serverCPU?.seconds() ?? 0) - cpuBefore
        }
        let raw = rawRates.reduce(0, +) / Double(rawRates.count)
        let failures = samples.filter { !$0.succeeded }.count
        let latencies = samples.filter(\.succeeded).map { Double($0.nanoseconds) / 1e6 }.sorted()
        guard !latencies.isEmpty else { throw Failure(description: "no ceremony succeeded (\(failures) failed)") }
        let rate = Double(latencies.count) / seconds
        let spread =
            (ports.count == 1 ? "" : " spread over \(ports.count) nodes (options and verification on different nodes)")
            + (passkeys == 1 ? "" : " with \(passkeys) passkeys")
        print(
            String(
                format: "login ceremonies: %.0f/s over %d connections%@ for %.0f s, p50 %.2f ms, p99 %.2f ms, failures %d",
                rate,
                connections,
                spread,
                seconds,
                Self.percentile(latencies, 0.50),
                Self.percentile(latencies, 0.99),
                failures
            )
        )
        print(
            String(
                format: "openssl raw ES256 verify on one core: %.0f/s (rounds: %@)",
                raw,
                rawRates.map { String(format: "%.0f", $0) }.joined(separator: ", ")
            )
        )
        let label = ports.count == 1 ? "login-vs-raw-verify" : "login-\(ports.count)-nodes-vs-raw-verify"
        print(String(format: "RATIO %@ %.4f", label, rate / raw))
        if serverCPU != nil {
            // Every sample counts here, failed or not: the server spent its CPU on all of them.
            let cpuPerCeremony = serverCPUSeconds / Double(samples.count)
            print(
                String(
                    format: "server CPU per ceremony: %.3f ms (%.2f s over %d ceremonies), one raw ES256 verify: %.4f ms",
                    cpuPerCeremony * 1e3,
                    serverCPUSeconds,
                    samples.count,
                    1e3 / raw
                )
            )
            print(String(format: "RATIO ceremony-cpu-efficiency %.4f", (1 / raw) / cpuPerCeremony))
            let sign = signRates.reduce(0, +) / Double(signRates.count)
            print(String(format: "openssl raw ES256 sign on one core: %.0f/s, one signature: %.4f ms", sign, 1e3 / sign))
        }
        print(
            String(
                format: "load generator CPU per ceremony: %.3f ms (%.2f s over %d ceremonies)",
                ownCPUSeconds / Double(samples.count) * 1e3,
                ownCPUSeconds,
                samples.count
            )
        )
        // The raw-verify rounds between the load rounds keep one core busy and leave the other idle: only the load
        // rounds are counted here.
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let total = machine.idle + machine.busy
        print(
            String(
                format: "machine idle during the load: %.1f %% of %.0f cores (%.2f of %.2f core-seconds)",
                total > 0 ? machine.idle / total * 100 : 0,
                cores,
                machine.idle,
                total
            )
        )
        if failures > 0 { throw Failure(description: "\(failures) ceremonies failed") }
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    private func register(recorder: Recorder?) throws -> LoadgenCredential {
        let client = try LoopbackHTTPClient(port: ports[0])
        client.keepsHeads = recorder != nil
        let name = "loadgen-" + Base64URL.encode(SystemRandom().bytes(count: 6))
        let optionsReply = try client.post("/webauthn/registration/options", json: Array(#"{"username":"\#(name)"}"#.utf8))
        guard optionsReply.status == 200 else { throw Failure(description: "registration options: \(optionsReply.status)") }
        try recorder?.record("registration-options", optionsReply)
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(optionsReply.body))
        guard let userHandle = Base64URL.decode(options.user.id) else { throw Failure(description: "bad user handle") }
        let credential = try LoadgenCredential(userHandle: userHandle)
        let verify = try client.post(
            "/webauthn/registration/verify",
            json: Array(try JSONEncoder().encode(try credential.registration(challenge: options.challenge)))
        )
        guard verify.status == 200 else {
            throw Failure(description: "registration verify: \(verify.status) \(String(decoding: verify.body, as: UTF8.self))")
        }
        try recorder?.record("registration-verify", verify)
        return credential
    }

    /// One ceremony on `clients`: discoverable options from one node, sign, verify on the other.
    private static func ceremony(_ clients: CeremonyClients, _ credential: LoadgenCredential, recorder: Recorder? = nil) throws -> Bool {
        let optionsReply = try clients.options.post("/webauthn/authentication/options", json: Array("{}".utf8))
        guard optionsReply.status == 200 else { return false }
        try recorder?.record("authentication-options", optionsReply)
        // The challenge read and the assertion written without Foundation's coders: this client shares the machine's
        // two cores with the server it measures, so its own CPU per ceremony is kept small.
        guard case .object(let options)? = StrictJSONParser.strictValue(optionsReply.body), case .string(let challenge)? = options["challenge"]
        else {
            throw Failure(description: "authentication options without a challenge")
        }
        let body = try credential.assertionBody(challenge: challenge)
        let verify = try clients.verification.post("/webauthn/authentication/verify", json: body)
        try recorder?.record("authentication-verify", verify)
        return verify.status == 200
    }

    /// Every worker runs ceremonies on its own thread for `seconds`; the ceremonies that ended in time.
    private func phase(_ clients: [CeremonyClients], _ credential: (Int) -> LoadgenCredential, seconds: Double) throws -> [Sample] {
        let all = Mutex([Sample]())
        let errors = Mutex([String]())
        let begin = DispatchTime.now().uptimeNanoseconds
        let deadline = begin + UInt64(seconds * 1e9)
        // Each connection's own interval between ceremony starts, and its first start (the connections spread over it).
        let interval = pacedRate.map { UInt64(Double(clients.count) / $0 * 1e9) }
        let group = DispatchGroup()
        for (index, client) in clients.enumerated() {
            let credential = credential(index)
            group.enter()
            Thread {
                defer { group.leave() }
                var samples: [Sample] = []
                var next = begin + (interval ?? 0) * UInt64(index) / UInt64(clients.count)
                do {
                    while DispatchTime.now().uptimeNanoseconds < deadline {
                        if let interval {
                            let now = DispatchTime.now().uptimeNanoseconds
                            if next > now { usleep(useconds_t((next - now) / 1000)) }
                            next += interval
                        }
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
