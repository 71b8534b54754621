import Dispatch
import Foundation
import HTTPServer
import Storage
import StoragePostgres
import Synchronization
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

    /// With the store's defaults (no deadline set by the test): every request is answered `503` with `Retry-After`
    /// within the 5 s a store call may take (`PostgresStore.defaultCallTimeout`), whether it waits for the frozen
    /// server's answer, for one of the pool's connections those calls hold, or to connect to the frozen server; and
    /// so is a request whose statement waits for a lock another client holds. Before the bound, a call could wait 10 s
    /// for the pool, 5 s to connect and 10 s for its statement.
    @Test func everyRequestEndsWithinTheStoreCallBoundWhateverItWaitsFor() throws {
        let cluster = try PostgresCluster()
        defer {
            try? cluster.signalEveryProcess(SIGCONT)
            cluster.destroy()
        }
        let name = try cluster.createDatabase()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: name), poolSize: 2)
        defer { store.close() }
        let server = try TestServerFactory.make(store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let alice = try client.register("alice")
        // The 5 s of a store call, and room for a loaded machine.
        #expect(PostgresStore.defaultCallTimeout == .seconds(5))
        let bound = 6.5

        // A lock: another client holds the sessions table for 8 s.
        let holder = Thread {
            _ = try? cluster.psql("BEGIN; LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT", database: name)
        }
        holder.start()
        usleep(500_000)
        var started = Date()
        let locked = try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token))
        #expect(locked.status == 503 && locked.errorCode == "storage_unavailable", "\(locked.status) \(locked.text)")
        #expect(locked.headers["Retry-After"] != nil)
        #expect(Date().timeIntervalSince(started) < bound, "a lock wait took \(Date().timeIntervalSince(started)) s")
        usleep(3_500_000)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200)

        // Frozen: six requests at once on a pool of two.
        try cluster.signalEveryProcess(SIGSTOP)
        let answers = Mutex<[(status: Int, retryAfter: Bool, seconds: Double)]>([])
        let wave = Date()
        let token = alice.token
        let answered = DispatchGroup()
        // Six threads of their own (`concurrentPerform` would run only as many at once as the machine has cores).
        for _ in 0..<6 {
            answered.enter()
            Thread {
                let reply = try? PasskeyClient(DirectTransport(handler: server)).send("GET", "/me", headers: PasskeyClient.bearer(token))
                let seconds = Date().timeIntervalSince(wave)
                answers.withLock { $0.append((reply?.status ?? 0, reply?.headers["Retry-After"] != nil, seconds)) }
                answered.leave()
            }.start()
        }
        answered.wait()
        #expect(answers.withLock { $0.count } == 6)
        for answer in answers.withLock({ $0 }) {
            #expect(answer.status == 503 && answer.retryAfter)
            #expect(answer.seconds < bound, "answered after \(answer.seconds) s")
        }
        // The pool closed the connections left waiting: the next request connects to the frozen server.
        started = Date()
        let connecting = try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token))
        #expect(connecting.status == 503 && connecting.headers["Retry-After"] != nil)
        #expect(Date().timeIntervalSince(started) < bound, "connecting took \(Date().timeIntervalSince(started)) s")

        try cluster.signalEveryProcess(SIGCONT)
        let thawed = Date().addingTimeInterval(15)
        while Date() < thawed, try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status != 200 { usleep(200_000) }
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(alice.token)).status == 200)
    }
}
