import CryptoCore
import Foundation
import JSON
import Synchronization

/// `--mode attack`: a flood of requests that must all be refused, from many loopback source addresses (the whole of
/// 127/8 is this machine), next to which the attack benchmark measures genuine sign-ins. `connections` threads each
/// hold one keep-alive TLS connection bound to a source address of their own, send their share of `rate` requests a
/// second at even intervals (at once when behind), and after `requestsPerConnection` requests reconnect from the next
/// address, so that `addresses` addresses take turns. Each thread cycles through `kinds` (all three by default):
/// - **bad assertions**: discoverable options (a genuine sealed challenge), then an assertion over it signed with the
///   attacker's own key but naming a genuine user's credential and user handle (`victims`, when given: every check but
///   the signature passes, so the server verifies the signature and counts a failure against that passkey), or a
///   credential the server never saw; every other one instead names a challenge the server never issued;
/// - **ID tokens naming unknown keys**: `POST /auth/<provider>` with a structurally valid RS256 token of `issuer` for
///   `audience` whose `kid` no key set holds, random signature bytes and a fresh raw nonce;
/// - **password guesses**: `POST /auth/password` for one of `passwordUsers` imported users (`<prefix><i>`), or an
///   unknown name, with a wrong password.
/// Runs until SIGTERM (or `seconds`), then prints each kind's answers by status, its rate and latency, and the
/// requests that were answered 2xx (an attack that succeeded), and exits 1 when any was.
struct AttackFlood {
    let port: Int
    let connections: Int
    let rate: Double
    let addresses: Int
    let requestsPerConnection: Int
    let seconds: Double
    let provider: String
    let issuer: String
    let audience: String
    let passwordUsers: Int
    let passwordPrefix: String
    /// A file of `credentialID userHandle` lines (base64url) that the genuine load generator writes; waited for.
    let victimsFile: String?
    /// The kinds sent, in this order (`--kinds assertion,idtoken,password`): one alone sends all of `rate`.
    let kinds: [Kind]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    enum Kind: Int, CaseIterable {
        case assertion, idToken, password

        var name: String { ["bad assertions", "ID tokens naming unknown keys", "password guesses"][rawValue] }

        /// `assertion`, `idtoken` or `password`: the name `--kinds` lists.
        init?(option: Substring) {
            guard let index = ["assertion", "idtoken", "password"].firstIndex(of: option) else { return nil }
            self.init(rawValue: index)
        }
    }

    /// One kind's answers so far.
    struct KindTally {
        var statuses: [Int: Int] = [:]
        var milliseconds: [Double] = []
    }

    struct Tally {
        var kinds = [KindTally](repeating: KindTally(), count: Kind.allCases.count)
        var requests = 0
        var reconnects = 0
        var closedByServer = 0
        var stopped = false
        var firstError: String?
    }

    func run() throws {
        let victims = try victimsFile.map(Self.victims) ?? []
        let tally = Mutex(Tally())
        let stop = DispatchSemaphore(value: 0)
        signal(SIGTERM, SIG_IGN)
        let termination = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
        termination.setEventHandler { stop.signal() }
        termination.resume()
        let started = DispatchTime.now().uptimeNanoseconds
        let interval = UInt64(Double(connections) / rate * 1e9)
        let running = DispatchGroup()
        for thread in 0..<connections {
            running.enter()
            Thread { [self] in
                defer { running.leave() }
                var attacker = Attacker(flood: self, thread: thread, victims: victims)
                var next = started + interval * UInt64(thread) / UInt64(connections)
                while !tally.withLock({ $0.stopped }) {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if next > now { usleep(useconds_t((next - now) / 1000)) } else if now - next > 1_000_000_000 { next = now }
                    next += interval
                    do {
                        let (kind, status, elapsed) = try attacker.send()
                        tally.withLock { tally in
                            guard !tally.stopped else { return }
                            tally.requests += 1
                            tally.kinds[kind.rawValue].statuses[status, default: 0] += 1
                            tally.kinds[kind.rawValue].milliseconds.append(elapsed)
                        }
                    } catch {
                        // The server may close a connection (its caps on connections): counted, and connected again.
                        tally.withLock { tally in
                            tally.closedByServer += 1
                            tally.firstError = tally.firstError ?? "\(error)"
                        }
                        attacker.disconnect()
                    }
                    if attacker.reconnected { tally.withLock { $0.reconnects += 1 } }
                }
            }.start()
        }
        _ = stop.wait(timeout: DispatchTime(uptimeNanoseconds: started + UInt64(seconds * 1e9)))
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let seen = tally.withLock { tally in
            tally.stopped = true
            return tally
        }
        // The threads end after their request in flight: none may still use OpenSSL while the process exits.
        let ended = running.wait(timeout: .now() + 10) == .success
        defer {
            fflush(nil)
            if !ended { _exit(1) }
        }
        print(
            String(
                format: "attack: %d requests answered in %.1f s (%.0f/s; asked for %.0f/s) from %d source addresses over %d connections, "
                    + "%d connections opened, %d lost (closed by the server or refused)",
                seen.requests,
                elapsed,
                Double(seen.requests) / elapsed,
                rate,
                addresses,
                connections,
                seen.reconnects,
                seen.closedByServer
            )
        )
        var succeeded = 0
        for kind in Kind.allCases {
            let kindTally = seen.kinds[kind.rawValue]
            let sorted = kindTally.milliseconds.sorted()
            succeeded += kindTally.statuses.filter { (200..<300).contains($0.key) }.values.reduce(0, +)
            let answers = kindTally.statuses.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }.joined(separator: " ")
            print(
                String(
                    format: "  %@: %d (%.0f/s), statuses %@, p50 %.2f ms, p99 %.2f ms",
                    kind.name,
                    sorted.count,
                    Double(sorted.count) / elapsed,
                    answers.isEmpty ? "none" : answers,
                    sorted.isEmpty ? 0 : sorted[sorted.count / 2],
                    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
                )
            )
        }
        print("attack requests answered 2xx: \(succeeded)")
        if let error = seen.firstError { print("attack: the first connection lost: \(error)") }
        if succeeded > 0 { throw Failure(description: "\(succeeded) attack requests were accepted") }
    }

    /// The genuine users' credentials, once the genuine load generator has written them (at most 60 s).
    private static func victims(_ path: String) throws -> [(id: [UInt8], userHandle: [UInt8])] {
        for _ in 0..<600 {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n") {
                return text.split(separator: "\n").compactMap { line in
                    let fields = line.split(separator: " ")
                    guard fields.count == 2, let id = Base64URL.decode(String(fields[0])), let handle = Base64URL.decode(String(fields[1]))
                    else { return nil }
                    return (id, handle)
                }
            }
            usleep(100_000)
        }
        throw Failure(description: "no victims file at \(path) within 60 s")
    }

    /// One thread's connection, source address and place in the cycle of kinds.
    struct Attacker {
        let flood: AttackFlood
        let thread: Int
        let victims: [(id: [UInt8], userHandle: [UInt8])]
        let key: LoadgenCredential
        var client: LoopbackHTTPClient?
        var sentOnConnection = 0
        var connectionsOpened = 0
        var reconnected = false
        var sequence = 0

        init(flood: AttackFlood, thread: Int, victims: [(id: [UInt8], userHandle: [UInt8])]) {
            self.flood = flood
            self.thread = thread
            self.victims = victims
            // Key generation cannot fail for P-256 short of a broken OpenSSL, which the first request would show.
            key = try! LoadgenCredential(userHandle: SystemRandom().bytes(count: 32))
            sequence = thread
        }

        mutating func disconnect() {
            client = nil
        }

        /// The source address of the `index`th connection any thread opens: 127.10.x.y, `addresses` of them.
        private func sourceAddress(_ index: Int) -> String {
            let address = index % flood.addresses + 1
            return "127.10.\(address >> 8).\(address & 0xFF)"
        }

        private mutating func connection() throws -> LoopbackHTTPClient {
            reconnected = false
            if let client, sentOnConnection < flood.requestsPerConnection { return client }
            let address = sourceAddress(thread + connectionsOpened * flood.connections)
            connectionsOpened += 1
            sentOnConnection = 0
            let fresh = try LoopbackHTTPClient(port: flood.port, from: address)
            client = fresh
            reconnected = true
            return fresh
        }

        /// Sends the next request of the cycle (a bad assertion may take two: its options, then the assertion):
        /// its kind, status and latency in milliseconds.
        mutating func send() throws -> (Kind, Int, Double) {
            let kind = flood.kinds[sequence % flood.kinds.count]
            let round = sequence / flood.kinds.count
            sequence += 1
            let client = try connection()
            sentOnConnection += 1
            let random = SystemRandom()
            let start = DispatchTime.now().uptimeNanoseconds
            let reply: LoopbackHTTPClient.Reply
            switch kind {
            case .assertion:
                if round % 2 == 0 {
                    // A genuine challenge, a wrong key.
                    let options = try client.post("/webauthn/authentication/options", json: Array("{}".utf8))
                    guard options.status == 200, case .object(let members)? = StrictJSONParser.strictValue(options.body),
                        case .string(let challenge)? = members["challenge"]
                    else { return (kind, options.status, Self.milliseconds(since: start)) }
                    let victim = victims.isEmpty ? nil : victims[(round / 2) % victims.count]
                    let forged = LoadgenCredential(
                        key: key,
                        id: victim?.id ?? random.bytes(count: 32),
                        userHandle: victim?.userHandle ?? key.userHandle
                    )
                    reply = try client.post("/webauthn/authentication/verify", json: try forged.assertionBody(challenge: challenge))
                } else {
                    let challenge = Base64URL.encode(random.bytes(count: 32))
                    reply = try client.post("/webauthn/authentication/verify", json: try key.assertionBody(challenge: challenge))
                }
            case .idToken:
                reply = try client.post("/auth/\(flood.provider)", json: try idTokenBody(random))
            case .password:
                var body = JSONObjectWriter(capacity: 96)
                let user = Int(random.bytes(count: 1)[0]) % (flood.passwordUsers + 1)
                body.add("username", user < flood.passwordUsers ? "\(flood.passwordPrefix)\(user)" : "nobody-\(Hex.encode(random.bytes(count: 4)))")
                body.add("password", "guess-\(Hex.encode(random.bytes(count: 6)))")
                reply = try client.post("/auth/password", json: body.finished())
            }
            return (kind, reply.status, Self.milliseconds(since: start))
        }

        private static func milliseconds(since start: UInt64) -> Double {
            Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }

        /// A structurally valid ID token (RS256, the issuer's claims, a fresh nonce) under a key ID no key set holds.
        private func idTokenBody(_ random: SystemRandom) throws -> [UInt8] {
            let rawNonce = Base64URL.encode(random.bytes(count: 16))
            let now = Int(Date().timeIntervalSince1970)
            let header = #"{"alg":"RS256","typ":"JWT","kid":"attack-\#(Hex.encode(random.bytes(count: 4)))"}"#
            let claims =
                #"{"iss":"\#(flood.issuer)","aud":"\#(flood.audience)","sub":"\#(Hex.encode(random.bytes(count: 8)))","#
                + #""iat":\#(now),"exp":\#(now + 600),"nonce":"\#(Hex.encode(DigestAlgorithm.sha256.hash(Array(rawNonce.utf8))))"}"#
            let token = [Array(header.utf8), Array(claims.utf8), random.bytes(count: 256)].map(Base64URL.encode).joined(separator: ".")
            var body = JSONObjectWriter(capacity: token.utf8.count + 64)
            body.add("idToken", token)
            body.add("rawNonce", rawNonce)
            return body.finished()
        }
    }
}
