import CryptoCore
import Dispatch
import Foundation
import HTTPFields
import HTTPServer
import Observability
import RateLimiting
import Storage
import StoragePostgres
import Synchronization
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 42: "ten nodes let through exactly ten times the single-node budget (101 against 11)". Ten in-process
/// nodes, each with its own store, on one PostgreSQL database: junk assertions naming one victim's credential,
/// spread over every node, get `perAccountBurst` answers of `400` together; with the shared buckets unusable each
/// node falls back to its own limit (the old ten times), logs it once and counts it; and a stopped or frozen
/// database never stalls a request for longer than one call's deadline.
@Suite("Rate limits shared by every node on PostgreSQL", PostgresClusterScope(), .serialized)
struct SharedRateLimitTests {
    static let configuration =
        #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "#
        + #""rateLimits": {"perAddressBurst": 100000, "perAccountPerMinute": 30, "perAccountBurst": 10}}"#

    /// The lines logged, by every node.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    struct Deployment {
        let clock = ManualClock()
        let database: String
        let nodes: [RelyingPartyServer]
        let warnings = Lines()

        init(count: Int) throws {
            let cluster = try PostgresClusterScope.current()
            database = try cluster.createDatabase()
            let configuration = try TestServerFactory.configuration(SharedRateLimitTests.configuration)
            let (clock, database, warnings) = (clock, database, warnings)
            nodes = try (0..<count).map { _ in
                try TestServerFactory.make(
                    configuration: configuration,
                    store: try PostgresStore(connectionString: cluster.connectionString(database: database), poolSize: 2),
                    clock: clock,
                    log: Logger(level: .warning) { record in warnings.lines.withLock { $0.append(record.message) } }
                )
            }
        }

        func client(_ node: Int, address: String) -> PasskeyClient {
            PasskeyClient(DirectTransport(handler: nodes[node % nodes.count], remoteAddress: address))
        }

        /// The statuses of `rounds` junk assertions per node naming `credentialID`, the nodes taken in turn.
        func junk(naming credentialID: [UInt8], by own: SoftwareCredential, rounds: Int) throws -> [Int] {
            var statuses: [Int] = []
            for attempt in 0..<(rounds * nodes.count) {
                let attacker = client(attempt, address: "203.0.113.66")
                var assertion = try attacker.assertion(own, answering: try attacker.requestOptions())
                assertion.id = Base64URL.encode(credentialID)
                assertion.rawId = assertion.id
                statuses.append(try attacker.authenticationVerify(assertion).status)
            }
            return statuses
        }
    }

    @Test func tenNodesTogetherLetThroughTheBudgetOfOne() throws {
        let deployment = try Deployment(count: 10)
        let victim = try deployment.client(0, address: "198.51.100.7").register("victim")
        let own = try deployment.client(1, address: "203.0.113.66").register("attacker").credential
        let statuses = try deployment.junk(naming: victim.credential.id, by: own, rounds: 20)
        let failures = statuses.filter { $0 == 400 }.count
        #expect(failures == 10, "the budget is 10; per node it was 100: \(statuses)")
        #expect(statuses.allSatisfy { $0 == 400 || $0 == 429 })
        // A valid assertion is never limited, on any node.
        for node in 0..<10 { #expect(try deployment.client(node, address: "198.51.100.7").signIn(victim.credential).status == 200) }
        #expect(deployment.warnings.all.isEmpty)
    }

    @Test func unusableSharedBucketsFallBackToEachNodesOwnLimit() throws {
        let deployment = try Deployment(count: 10)
        let victim = try deployment.client(0, address: "198.51.100.7").register("victim")
        let own = try deployment.client(1, address: "203.0.113.66").register("attacker").credential
        _ = try PostgresClusterScope.current().psql("DROP TABLE limit_buckets", database: deployment.database)
        let statuses = try deployment.junk(naming: victim.credential.id, by: own, rounds: 20)
        #expect(statuses.filter { $0 == 400 }.count == 100, "each node's own budget of 10: \(statuses)")
        #expect(statuses.allSatisfy { $0 == 400 || $0 == 429 })
        let warnings = deployment.warnings.all.filter { $0.hasPrefix("shared rate limits unavailable") }
        #expect(warnings.count == 10, "one line per node: \(warnings)")
        let metrics = try #require(deployment.nodes[0].metrics).registry.render()
        #expect(metrics.contains(#"passkeyd_rate_limit_fallbacks_total{rule="account"}"#), "\(metrics)")
    }

    /// A larger budget is drawn a chunk at a time: a tenth of the burst over `rateLimits.nodes`, spent without a
    /// database write, dropped when held longer than `holdSeconds`; the nodes together never pass the budget.
    @Test func aLargerBudgetIsDrawnInChunks() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
        let outage = SharedLimitOutage(log: .discarding, fallbacks: nil)
        let nodes = (0..<2).map { _ in
            SharedRateLimiter(name: "challenges", rule: .init(perMinute: 0.001, burst: 100), capacity: 100, nodes: 2, shared: store, outage: outage)
        }
        #expect(nodes[0].chunk == 5)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let key = DigestAlgorithm.sha256.hash(Array("k".utf8))
        func left() throws -> Double {
            try store.drawTokens(limit: "challenges", key: key, count: 0, perSecond: 0.001 / 60, burst: 100, now: start).left
        }
        for _ in 0..<6 { #expect(nodes[0].take("k", now: start) == nil) }
        #expect(try left() == 90, "two draws of five for six requests")
        // The four tokens node 0 holds are dropped after `holdSeconds`: it draws again.
        #expect(nodes[0].take("k", now: start + SharedRateLimiter.holdSeconds) == nil)
        #expect(try left().rounded() == 85)
        var allowed = 7
        for index in 0..<300 where nodes[index % 2].take("k", now: start + SharedRateLimiter.holdSeconds) == nil { allowed += 1 }
        #expect(allowed <= 100 && allowed >= 90, "\(allowed)")
    }

    /// The minute's purge deletes the buckets that have refilled (a full bucket limits nothing), and only those.
    @Test func theExpiredRecordPurgeDeletesRefilledBuckets() throws {
        let cluster = try PostgresClusterScope.current()
        let database = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: database), poolSize: 2)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        _ = try store.drawTokens(limit: "account", key: [1], count: 1, perSecond: 1, burst: 10, now: start)
        _ = try store.drawTokens(limit: "account", key: [2], count: 5, perSecond: 1, burst: 10, now: start)
        ExpiredRecordPurge(store: store, log: .discarding).purgeIfDue(now: start + 2)
        #expect(try cluster.psql("SELECT count(*) FROM limit_buckets", database: database) == "1")
        ExpiredRecordPurge(store: store, log: .discarding).purgeIfDue(now: start + 5)
        #expect(try cluster.psql("SELECT count(*) FROM limit_buckets", database: database) == "0")
    }

    /// A draw waits for a pooled connection no longer than its own deadline (not the pool's 10 s): with every
    /// connection busy, the node decides by its own limit within `limitDrawDeadline`, and counts it.
    @Test func aBusyPoolFallsBackWithinTheDrawDeadline() throws {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 1)
        let registry = MetricsRegistry()
        let fallbacks = registry.counter("passkeyd_rate_limit_fallbacks_total", "Decided alone.", labels: ["rule"])
        let limiter = SharedRateLimiter(
            name: "account",
            rule: .init(perMinute: 30, burst: 10),
            capacity: 100,
            nodes: 10,
            shared: store,
            outage: SharedLimitOutage(log: .discarding, fallbacks: fallbacks)
        )
        let (holding, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let held = DispatchGroup()
        DispatchQueue.global().async(group: held) {
            _ = try? store.transaction { _ throws(StorageError) in
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let started = ContinuousClock.now
        let answer = limiter.take("k", now: Date(timeIntervalSince1970: 1_800_000_000))
        let waited = started.duration(to: .now)
        release.signal()
        held.wait()
        #expect(answer == nil, "the node's own budget allows it")
        #expect(waited < PostgresStore.limitDrawDeadline + .milliseconds(500), "\(waited)")
        #expect(registry.render().contains(#"passkeyd_rate_limit_fallbacks_total{rule="account"} 1"#), "\(registry.render())")
    }

    @Test(arguments: [false, true])
    func aStoppedOrFrozenDatabaseFallsBackWithoutStalling(frozen: Bool) throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            poolSize: 2,
            replyDeadline: .seconds(1)
        )
        defer { store.close() }
        let messages = Lines()
        let outage = SharedLimitOutage(log: .messages { message in messages.lines.withLock { $0.append(message) } }, fallbacks: nil)
        let limiter = SharedRateLimiter(
            name: "account",
            rule: .init(perMinute: 30, burst: 10),
            capacity: 100,
            nodes: 10,
            shared: store,
            outage: outage
        )
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(limiter.take("k", now: start) == nil)
        if frozen { try cluster.signalEveryProcess(SIGSTOP) } else { try cluster.stop() }
        var answers: [Int?] = []
        var slowest = 0.0
        for _ in 0..<12 {
            let started = Date()
            answers.append(limiter.take("k", now: start))
            slowest = max(slowest, Date().timeIntervalSince(started))
            #expect(Date().timeIntervalSince(started) < 0.1 || answers.count == 1, "only the first call waits for the database")
        }
        #expect(slowest < 3, "\(slowest) s")
        #expect(answers.prefix(9).allSatisfy { $0 == nil }, "the node's own budget: 10, one spent before: \(answers)")
        #expect(answers.suffix(3).allSatisfy { $0 != nil }, "\(answers)")
        #expect(messages.all.filter { $0.hasPrefix("shared rate limits unavailable") }.count == 1)

        if frozen { try cluster.signalEveryProcess(SIGCONT) } else { try cluster.start() }
        // Past the pause the database is asked again: the shared bucket had given one of ten, and a minute refills it.
        let later = start.addingTimeInterval(SharedLimitOutage.retrySeconds + 60)
        var allowed = 0
        for _ in 0..<12 where limiter.take("k", now: later) == nil { allowed += 1 }
        #expect(allowed == 10, "\(allowed)")
        #expect(messages.all.contains("shared rate limits available again"))
        #expect(try store.drawTokens(limit: "account", key: [0], count: 1, perSecond: 1, burst: 1, now: later).taken == 1)
    }

    /// Counts the draws a limiter makes, and never refuses one.
    final class CountingBuckets: SharedLimitStore {
        let draws = Mutex(0)

        func drawTokens(
            limit: String,
            _ draws: [LimitDraw],
            perSecond: Double,
            burst: Double,
            now: Date
        ) throws(StorageError) -> [(taken: Int, left: Double)] {
            self.draws.withLock { $0 += 1 }
            return draws.map { ($0.count, burst - Double($0.count)) }
        }

        func purgeFullLimitBuckets(now: Date) throws(StorageError) -> Int { 0 }
    }

    /// A request answered on the event loop (a discoverable sign-in's options) must never wait on the database: its
    /// address limit is the node's own, and only the worker pool's requests draw from the shared buckets.
    @Test func aRequestAnsweredOnTheLoopNeverDrawsFromTheDatabase() throws {
        let buckets = CountingBuckets()
        let limiter = SharedRateLimiter(
            name: "address",
            rule: .init(perMinute: 240, burst: 3),
            capacity: 100,
            nodes: 10,
            shared: buckets,
            outage: SharedLimitOutage(log: .discarding, fallbacks: nil)
        )
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(limiter.take("192.0.2.1", now: now, locally: true) == nil)
        #expect(buckets.draws.withLock { $0 } == 0, "no draw on the loop")
        #expect(limiter.take("192.0.2.1", now: now) == nil)
        #expect(buckets.draws.withLock { $0 } == 1, "a worker's request draws")
        #expect(limiter.take("192.0.2.1", now: now, locally: true) == nil)
        #expect(limiter.take("192.0.2.1", now: now, locally: true) != nil, "the node's own burst of 3 still holds on the loop")
        #expect(buckets.draws.withLock { $0 } == 1)
    }

    /// A discoverable sign-in's options are answered on the event loop: neither their address limit nor the challenges
    /// an address holds may draw from the database there (a draw waits up to its deadline, and every connection of
    /// the loop with it); the same request from a worker draws.
    @Test func discoverableOptionsOnTheLoopDrawNothing() throws {
        let deployment = try Deployment(count: 1)
        let options = HTTPRequest(
            method: "POST",
            path: "/webauthn/authentication/options",
            headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Array("{}".utf8)
        )
        func buckets() throws -> String {
            try PostgresClusterScope.current().psql("SELECT count(*) FROM limit_buckets", database: deployment.database)
        }
        for _ in 0..<3 { #expect(deployment.nodes[0].answerOnLoop(options)?.status == 200) }
        #expect(try buckets() == "0", "no draw on the loop")
        #expect(deployment.nodes[0].handle(options).status == 200)
        #expect(try buckets() == "2", "a worker's request draws for its address and its challenges")
    }
}
