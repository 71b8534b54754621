import AccessTokens
import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import StoragePostgres
import Synchronization
import TestSupport
import Testing
import WebAuthnCore

/// Two `passkeyd serve` processes on one throwaway PostgreSQL cluster, as behind a load balancer: a ceremony may
/// start on one node and end on the other, a challenge is used once across both, sessions and decoys are the same
/// on both, and the database going away gives 503 until it is back.
@Suite(.serialized) struct MultiNodeTests {
    /// The cluster, its database and two nodes on it; everything is stopped by `stop()`.
    private final class Deployment {
        let cluster: PostgresCluster
        let folder: TemporaryFolder
        let database: String
        private(set) var nodes: [ServeProcess] = []

        /// Creates the cluster and the database, and starts the nodes unless told not to yet.
        init(startingNodes: Bool = true) throws {
            cluster = try PostgresCluster()
            do {
                folder = try TemporaryFolder()
                database = cluster.connectionString(database: try cluster.createDatabase())
                if startingNodes { try startNodes() }
            } catch {
                // A node already started is killed by its deinit.
                cluster.destroy()
                throw error
            }
        }

        func startNodes() throws {
            for name in ["a", "b"] {
                nodes.append(
                    try ServeProcess(
                        dataDirectory: folder.path + "/node-\(name)",
                        configurationPath: folder.path + "/node-\(name).json",
                        extraMembers: #""database": {"postgres": "\#(database)", "poolSize": 4}"#
                    )
                )
            }
        }

        func client(_ node: Int) -> PasskeyClient { PasskeyClient(CurlTransport(port: nodes[node].port)) }

        func stop() {
            for node in nodes { _ = node.terminate() }
            cluster.destroy()
        }
    }

    @Test func ceremoniesSessionsAndDecoysSpanBothNodes() throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        let (a, b) = (deployment.client(0), deployment.client(1))

        // Registered on a, signed in on b with options from b, then with options from a answered to b.
        let account = try a.register("alice")
        #expect(try b.signIn(account.credential, username: "alice", .init(signCount: 1)).status == 200)
        let options = try a.requestOptions(username: "alice")
        let crossed = try b.authenticationVerify(try b.assertion(account.credential, answering: options, .init(signCount: 2)))
        #expect(crossed.status == 200, "\(crossed.text)")
        // The counter is shared: b's 2 makes a refuse a replayed 2.
        #expect(try a.signIn(account.credential, .init(signCount: 2)).errorCode == "possible_clone")

        // A session started on a is valid on b; signing out on b ends it on a.
        #expect(try b.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try b.send("POST", "/logout", headers: PasskeyClient.bearer(account.token)).status < 300)
        #expect(try a.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 401)

        // The username is taken on both; an unknown username gets the same decoys from both (shared secret).
        #expect(try b.registrationOptions(username: "alice").errorCode == "username_taken")
        let decoys = try [a, b].map { client in
            try client.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]]
        }.map { $0?.compactMap { $0["id"] as? String } }
        #expect(decoys[0] == decoys[1])
        #expect(decoys[0]?.isEmpty == false)
    }

    /// Both nodes publish and sign with the one key set of the database: a token one node signed verifies, with PyJWT,
    /// against the other's JWKS, before and after `passkeyd keys rotate` on the shared database, which both nodes pick
    /// up within their key worker's round; the retired key stays published for its tokens.
    @Test func tokensOfOneNodeVerifyWithTheOthersJWKSAcrossARotation() throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        let (a, b) = (deployment.client(0), deployment.client(1))
        let account = try a.register("gina")
        let mint = { (client: PasskeyClient) throws -> String in
            let reply = try client.send("POST", "/session/token", headers: PasskeyClient.bearer(account.token))
            guard let token = reply.object["accessToken"] as? String else { throw TransportFailure("mint: \(reply.text)") }
            return token
        }
        let kids = { (client: PasskeyClient) throws -> Set<String> in
            let document =
                try JSONSerialization.jsonObject(with: Data(try client.send("GET", "/.well-known/jwks.json").body)) as? [String: [[String: Any]]]
            return Set(document?["keys"]?.compactMap { $0["kid"] as? String } ?? [])
        }
        let first = try mint(a)
        let firstKey = try #require(try DecodedToken(first).keyID)
        let published = try kids(b)
        #expect(try kids(a) == published && published.count == 2 && published.contains(firstKey), "one key set: the key and its standby")
        #expect(try DecodedToken(try mint(b)).keyID == firstKey)
        #expect(try PyJWTBackendTests.verdicts(["first": first], port: deployment.nodes[1].port).verdicts["first"] == "ok")

        let rotation = try ChildProcess.run(
            try ServeProcess.executable(),
            ["keys", "rotate", "--immediately", "--config", deployment.folder.path + "/node-a.json"]
        )
        #expect(rotation.status == 0, "\(rotation.errorOutput)")
        let deadline = Date().addingTimeInterval(30)
        var second = try mint(a)
        while try DecodedToken(second).keyID == firstKey, Date() < deadline {
            usleep(250_000)
            second = try mint(a)
        }
        let secondKey = try #require(try DecodedToken(second).keyID)
        #expect(secondKey != firstKey, "node a signs with the new key")
        #expect(published.contains(secondKey), "the new key is the standby, published before the rotation")
        #expect(try kids(b).isSuperset(of: [firstKey, secondKey]), "node b publishes both")
        let verdicts = try PyJWTBackendTests.verdicts(["first": first, "second": second], port: deployment.nodes[1].port).verdicts
        #expect(verdicts["first"] == "ok" && verdicts["second"] == "ok", "\(verdicts)")
        #expect(try b.send("GET", "/me", headers: PasskeyClient.bearer(second)).status == 200)
    }

    /// Sixteen schedule rounds at once on two stores of one empty database (two nodes starting together, then due
    /// together): one transaction makes the first key (and one its standby) and the others find them; at the rotation
    /// one makes the next standby.
    @Test func nodesRacingTheScheduleConvergeOnOneKeySet() throws {
        let deployment = try Deployment(startingNodes: false)
        defer { deployment.stop() }
        let stores = try (0..<2).map { _ in try PostgresStore(connectionString: deployment.database, poolSize: 8) }
        defer { stores.forEach { $0.close() } }
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (round, now) in [start, start.addingTimeInterval(31 * 86_400)].enumerated() {
            let turn = Mutex(0)
            let outcomes = ConcurrentChallengeTests.race(16) { () -> [SigningKeyRecord]? in
                let index = turn.withLock { turn in
                    defer { turn += 1 }
                    return turn
                }
                return try? schedule.update(store: stores[index % 2], now: now).keys
            }
            #expect(outcomes.allSatisfy { $0 != nil }, "round \(round): every node's round succeeds")
            let keys = try stores[1].transaction { transaction throws(StorageError) in try transaction.signingKeys() }
            // The signing key and its standby; at the rotation the first is gone (its tokens expired a day before).
            #expect(keys.count == 2, "round \(round): \(keys.map(\.id))")
            #expect(keys.filter { $0.retiresAt == nil }.count == 1, "round \(round): one standby")
        }
    }

    @Test func aChallengeRacedOnBothNodesWinsOnce() throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        let ports = deployment.nodes.map(\.port)
        let account = try deployment.client(0).register("bob")
        for round in 1...3 {
            let client = deployment.client(round % 2)
            let body = Array(
                try JSONEncoder().encode(
                    try client.assertion(
                        account.credential,
                        answering: try client.requestOptions(),
                        .init(signCount: UInt32(round))
                    )
                )
            )
            // Contenders alternate between the nodes, connected and past the TLS handshake before the gate opens.
            let requests = try (0..<8).map { index in
                try PreparedTLSRequest(port: ports[index % 2], method: "POST", path: "/webauthn/authentication/verify", json: body)
            }
            let turn = Mutex(0)
            let replies = ConcurrentChallengeTests.race(requests.count) {
                let request = requests[
                    turn.withLock { turn in
                        defer { turn += 1 }
                        return turn
                    }
                ]
                return try? request.send()
            }
            #expect(replies.filter { $0?.status == 200 }.count == 1, "round \(round)")
            #expect(replies.filter { $0?.errorCode == "challenge_unknown" }.count == 7, "round \(round): \(replies.map { $0?.text ?? "no reply" })")
        }
    }

    /// In-process, so that the requests really overlap (curl is started once at a time): two servers, each with
    /// its own store on one database, as two nodes.
    @Test func concurrentSignInsOnTwoServersKeepTheHighestCounter() throws {
        let deployment = try Deployment(startingNodes: false)
        defer { deployment.stop() }
        let configuration = try TestServerFactory.configuration(
            #"""
            {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
             "rateLimits": {"perAddressPerMinute": 100000, "perAddressBurst": 100000, "perAccountPerMinute": 100000, "perAccountBurst": 100000}}
            """#
        )
        let servers = try (0..<2).map { _ in
            try TestServerFactory.make(configuration: configuration, store: try PostgresStore(connectionString: deployment.database, poolSize: 8))
        }
        let clients = servers.map { PasskeyClient(DirectTransport(handler: $0)) }
        let account = try clients[0].register("frank")
        var stored: UInt32 = 0
        for round in 0..<4 {
            // Twelve sign-ins with one passkey, each with its own challenge and a counter above the stored one, sent
            // at once to alternating servers: every verification reads the same stored counter, so only the write
            // can keep a lower counter from landing after a higher one.
            var attempts: [(server: Int, body: [UInt8], signCount: UInt32)] = []
            for (index, signCount) in (stored + 1...stored + 12).shuffled().enumerated() {
                let options = try clients[index % 2].requestOptions()
                let assertion = try clients[index % 2].assertion(account.credential, answering: options, .init(signCount: signCount))
                attempts.append(((index + 1) % 2, Array(try JSONEncoder().encode(assertion)), signCount))
            }
            let turn = Mutex(0)
            let acceptedCounters = Mutex<[UInt32]>([])
            let replies = ConcurrentChallengeTests.race(attempts.count) { [attempts] in
                let attempt = attempts[
                    turn.withLock { turn in
                        defer { turn += 1 }
                        return turn
                    }
                ]
                let reply = try? DirectTransport(handler: servers[attempt.server]).send(
                    "POST",
                    "/webauthn/authentication/verify",
                    body: attempt.body,
                    headers: []
                )
                if reply?.status == 200 { acceptedCounters.withLock { $0.append(attempt.signCount) } }
                return reply
            }
            #expect(replies.allSatisfy { $0?.status == 200 || $0?.errorCode == "possible_clone" }, "\(replies.map { $0?.text ?? "no reply" })")
            let highest = try #require(acceptedCounters.withLock { $0 }.max())
            // The stored counter is the highest accepted one, whichever server wrote last.
            #expect(try clients[round % 2].signIn(account.credential, .init(signCount: highest)).errorCode == "possible_clone", "round \(round)")
            stored = highest
        }
    }

    @Test func theDatabaseGoingAwayGives503UntilItIsBack() throws {
        let deployment = try Deployment()
        defer { deployment.stop() }
        let (a, b) = (deployment.client(0), deployment.client(1))
        let account = try a.register("carol")

        try deployment.cluster.stop()
        for client in [a, b] {
            let options = try client.registrationOptions(username: "dave")
            #expect(options.status == 503)
            #expect(options.errorCode == "storage_unavailable")
            let me = try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token))
            #expect(me.status == 503, "\(me.text)")
        }
        #expect(try a.send("GET", "/healthz").status == 200, "the node itself stays up")

        try deployment.cluster.start()
        for (index, client) in [a, b].enumerated() {
            var reply = try client.signIn(account.credential, username: "carol", .init(signCount: UInt32(10 + index)))
            let deadline = Date().addingTimeInterval(10)
            while reply.status == 503, Date() < deadline {
                usleep(200_000)
                reply = try client.signIn(account.credential, username: "carol", .init(signCount: UInt32(10 + index)))
            }
            #expect(reply.status == 200, "node \(index) after the database came back: \(reply.text)")
        }
        // Nothing from the outage was stored: dave can register now.
        #expect(try b.register("dave").username == "dave")
        for node in deployment.nodes {
            #expect(!node.log.contains(account.token))
        }
    }

    @Test func migrateMovesASingleSQLiteNodeToTwoNodes() throws {
        let deployment = try Deployment(startingNodes: false)
        defer { deployment.stop() }
        let single = deployment.folder.path + "/single"
        let node = try ServeProcess(dataDirectory: single, configurationPath: deployment.folder.path + "/single.json")
        let client = PasskeyClient(CurlTransport(port: node.port))
        let account = try client.register("erin")
        #expect(try client.signIn(account.credential, username: "erin", .init(signCount: 5)).status == 200)
        let decoys = try client.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]]
        let accessToken = try #require(
            try client.send("POST", "/session/token", headers: PasskeyClient.bearer(account.token)).object["accessToken"] as? String
        )
        #expect(node.terminate() == 0)

        let executable = try ServeProcess.executable()
        let migrate = ["migrate", "--from-sqlite", single + "/passkeyd.sqlite", "--to-postgres", deployment.database]
        let first = try ChildProcess.run(executable, migrate)
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(String(decoding: first.output, as: UTF8.self).contains("copied 1 users, 1 passkeys, 2 sessions"))
        #expect(String(decoding: first.output, as: UTF8.self).contains("2 signing keys"), "the key and its standby")
        let again = try ChildProcess.run(executable, migrate)
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("storage.notEmpty"))

        try deployment.startNodes()
        let b = deployment.client(1)
        // The session, the passkey with its counter, the username and the decoys all came across.
        #expect(try b.send("GET", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        // So did the signing key, under the server secret that came with it: the access token still verifies.
        #expect(try b.send("GET", "/me", headers: PasskeyClient.bearer(accessToken)).status == 200)
        #expect(
            try DecodedToken(
                try #require(b.send("POST", "/session/token", headers: PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
            ).keyID == (try DecodedToken(accessToken).keyID)
        )
        #expect(try b.signIn(account.credential, .init(signCount: 5)).errorCode == "possible_clone")
        #expect(try b.signIn(account.credential, username: "erin", .init(signCount: 6)).status == 200)
        #expect(try deployment.client(0).registrationOptions(username: "erin").errorCode == "username_taken")
        let decoysAfter = try b.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]]
        #expect(decoys?.compactMap { $0["id"] as? String } == decoysAfter?.compactMap { $0["id"] as? String })
        #expect(try ChildProcess.run(executable, ["migrate", "--from-sqlite", single + "/passkeyd.sqlite"]).status == 2)
    }

    @Test func aNodeWithoutItsDatabaseStopsWithAClearMessage() throws {
        let folder = try TemporaryFolder()
        let port = try LoopbackPort.free()
        let configuration = folder.path + "/node.json"
        try Data(
            #"""
            {"listen": {"https": "127.0.0.1:\#(try LoopbackPort.free())"}, "dataDirectory": "\#(folder.path)/data",
             "database": {"postgres": "host=127.0.0.1 port=\#(port) user=passkeyd password=hunter2 dbname=passkeyd"}}
            """#.utf8
        ).write(to: URL(fileURLWithPath: configuration))
        let result = try ChildProcess.run(try ServeProcess.executable(), ["serve", "--config", configuration])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("cannot start: storage.unavailable (unreachable): PostgreSQL connect failed"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("hunter2"))
    }
}
