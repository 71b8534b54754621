import CryptoCore
import Foundation
import TestSupport
import Testing

/// Issue 16, delivery guarantees with `passkeyd serve` and the Python receiver (`standardwebhooks`): a receiver that is
/// down for a while gets everything, in order per user, once it is up; a server SIGKILLed with deliveries pending loses
/// none; two nodes on one PostgreSQL database deliver each event once in the normal case.
@Suite(.serialized) struct WebhookDeliveryTests {
    static let liftedRateLimits = DurabilityTests.liftedRateLimits
    /// The events of one `makeEvents` account.
    static let perUser = expectedTypes(signIns: 1).count

    /// The event types of a registration and then `signIns` sign-ins.
    static func expectedTypes(signIns: Int) -> [String] {
        ["user.created", "passkey.registered", "session.created"] + Array(repeating: "session.created", count: signIns)
    }

    /// Registers `count` accounts named `prefix`-N and signs each in once; returns their user IDs (base64url).
    static func makeEvents(_ client: PasskeyClient, prefix: String, count: Int) throws -> [String] {
        try (0..<count).map { index in
            let account = try client.register("\(prefix)-\(index)")
            let signedIn = try client.signIn(account.credential, username: account.username, .init(signCount: 1))
            guard signedIn.status == 200 else { throw TransportFailure("sign-in: \(signedIn.text)") }
            return Base64URL.encode(account.userID)
        }
    }

    /// Every user's accepted deliveries are exactly its events, in order.
    static func expectInOrder(_ accepted: [WebhookReceiver.Delivery], users: [String], signIns: Int, _ comment: String) {
        for user in users {
            let types = accepted.filter { $0.data["userId"] as? String == user }.map(\.type)
            #expect(types == expectedTypes(signIns: signIns), "\(comment): \(user)")
        }
    }

    @Test func aReceiverThatWasDownAndAServerThatWasKilledMissNothing() throws {
        let folder = try TemporaryFolder()
        let receiver = try WebhookReceiver(folder: folder.path)
        let members = "\(Self.liftedRateLimits), \"webhooks\": [\(receiver.configurationMember())]"
        var server = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: folder.path + "/passkeyd.json", extraMembers: members)
        let client = { PasskeyClient(CurlTransport(port: server.port)) }

        // Down: every attempt is refused; the ceremonies do not wait for it.
        let started = Date()
        let first = try Self.makeEvents(client(), prefix: "down", count: 4)
        #expect(Date().timeIntervalSince(started) < 10, "ceremonies while the receiver is down")
        sleep(2)
        #expect(receiver.accepted().isEmpty)
        try receiver.start()
        var accepted = receiver.wait { $0.count >= first.count * Self.perUser }
        Self.expectInOrder(accepted, users: first, signIns: 1, "after the receiver came back")
        #expect(server.log.contains("http.clientConnectFailed"), "the refused attempts were logged with the client's code")

        // Killed with deliveries pending (the receiver down again), restarted: nothing is missing.
        receiver.stop()
        let second = try Self.makeEvents(client(), prefix: "killed", count: 3)
        server.stopWithSIGKILL()
        server = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: folder.path + "/passkeyd.json", extraMembers: members)
        try receiver.start()
        accepted = receiver.wait(seconds: 40) { $0.count >= (first.count + second.count) * Self.perUser }
        Self.expectInOrder(accepted, users: second, signIns: 1, "after the SIGKILL and restart")
        #expect(accepted.count == (first.count + second.count) * Self.perUser)
        #expect(receiver.deliveries().allSatisfy { $0.verified })
        #expect(server.terminate() == 0, "SIGTERM stops the delivery threads and exits 0")
    }

    @Test func twoPostgresNodesDeliverEachEventOnce() throws {
        let cluster = try PostgresCluster()
        defer { cluster.destroy() }
        let folder = try TemporaryFolder()
        let database = cluster.connectionString(database: try cluster.createDatabase())
        let receiver = try WebhookReceiver(folder: folder.path)
        try receiver.start()
        let members =
            "\(Self.liftedRateLimits), \"database\": {\"postgres\": \"\(database)\", \"poolSize\": 4}, \"webhooks\": [\(receiver.configurationMember())]"
        let nodes = try ["a", "b"].map { name in
            try ServeProcess(
                dataDirectory: folder.path + "/node-\(name)",
                configurationPath: folder.path + "/node-\(name).json",
                extraMembers: members
            )
        }
        let clients = nodes.map { PasskeyClient(CurlTransport(port: $0.port)) }

        // Normal case: events written on both nodes, both delivering.
        var users: [String] = []
        for round in 0..<3 {
            for (index, client) in clients.enumerated() { users += try Self.makeEvents(client, prefix: "n\(index)-\(round)", count: 1) }
        }
        let accepted = receiver.wait(seconds: 60) { $0.count >= users.count * Self.perUser }
        Self.expectInOrder(accepted, users: users, signIns: 1, "two nodes")
        let requests = receiver.deliveries()
        let duplicates = requests.count - Set(requests.map(\.id)).count
        #expect(duplicates == 0, "no event delivered twice in the normal case")

        // A node killed while deliveries are pending: the other takes its claims over once their leases end.
        receiver.stop()
        var pending: [String] = []
        for (index, client) in clients.enumerated() { pending += try Self.makeEvents(client, prefix: "kill\(index)", count: 2) }
        try receiver.start()
        usleep(300_000)
        nodes[0].stopWithSIGKILL()
        let after = receiver.wait(seconds: 60) { $0.count >= (users.count + pending.count) * Self.perUser }
        Self.expectInOrder(after, users: pending, signIns: 1, "after a node was killed")
        let all = receiver.deliveries()
        let killedDuplicates = all.count - Set(all.map(\.id)).count
        print(
            "webhooks: two PostgreSQL nodes, \(all.count) requests for \(Set(all.map(\.id)).count) events; duplicates: \(duplicates) normal, \(killedDuplicates) with a node killed"
        )
        #expect(nodes[1].terminate() == 0)
    }
}
