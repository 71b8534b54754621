import Foundation
import HTTPServer
import Storage
import StoragePostgres
import TestSupport
import Testing

@testable import RelyingPartyServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 42: with PostgreSQL frozen (SIGSTOP), requests are answered `503 storage_unavailable` with `Retry-After`
/// within the store's reply deadline instead of hanging, and serving resumes when the database answers again.
@Suite(.serialized) struct FrozenDatabaseTests {
    @Test func aFrozenDatabaseIsAnswered503WithRetryAfterWithinTheDeadline() throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let store = try PostgresStore(
            connectionString: cluster.connectionString(database: try cluster.createDatabase()),
            poolSize: 4,
            replyDeadline: .seconds(2)
        )
        defer { store.close() }
        let server = try TestServerFactory.make(store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let alice = try client.register("alice")

        try cluster.signalEveryProcess(SIGSTOP)
        let started = Date()
        let reply = try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token))
        let seconds = Date().timeIntervalSince(started)
        #expect(reply.status == 503 && reply.errorCode == "storage_unavailable", "\(reply.status) \(reply.text)")
        #expect(reply.headers["Retry-After"] != nil)
        #expect(seconds < 4, "\(seconds) s")
        // /readyz answers within its 2 s, naming the store as timed out.
        let ready = Date()
        let readiness = server.handle(HTTPRequest(method: "GET", path: "/readyz"))
        #expect(readiness.status == 503)
        #expect(String(decoding: readiness.body, as: UTF8.self).contains(#""store":"storage.unavailable (timedOut)""#))
        #expect(Date().timeIntervalSince(ready) < 3)

        try cluster.signalEveryProcess(SIGCONT)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200)
        // The probe still in flight (a connection attempt to the frozen server) ends; then the node is ready again.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, server.handle(HTTPRequest(method: "GET", path: "/readyz")).status != 200 { usleep(200_000) }
        #expect(server.handle(HTTPRequest(method: "GET", path: "/readyz")).status == 200)
        #expect(try client.signIn(alice.credential, username: "alice", .init(signCount: 1)).status == 200)
    }
}
