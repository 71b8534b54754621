import CryptoCore
import Foundation
import StorageSQLite
import Synchronization
import TestSupport
import Testing
import WebAuthnCore

/// A challenge is used once even when many requests carry it at the same instant.
@Suite(.serialized) struct ConcurrentChallengeTests {
    static let contenders = 16

    /// Runs `body` on `count` threads released together; returns what each returned.
    static func race<Outcome: Sendable>(_ count: Int, _ body: @escaping @Sendable () -> Outcome) -> [Outcome] {
        let results = Mutex([Outcome]())
        let ready = DispatchGroup()
        let done = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            ready.enter()
            done.enter()
            let thread = Thread {
                ready.leave()
                gate.wait()
                let reply = body()
                results.withLock { $0.append(reply) }
                done.leave()
            }
            thread.start()
        }
        ready.wait()
        for _ in 0..<count { gate.signal() }
        done.wait()
        return results.withLock { $0 }
    }

    private static func expectExactlyOneWinner(_ replies: [ServerReply?], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(replies.count == contenders, sourceLocation: sourceLocation)
        #expect(replies.filter { $0?.status == 200 }.count == 1, sourceLocation: sourceLocation)
        #expect(
            replies.filter { $0?.status == 400 && $0?.errorCode == "challenge_unknown" }.count == contenders - 1,
            "\(replies.map { $0?.text ?? "no reply" })",
            sourceLocation: sourceLocation
        )
    }

    @Test func sameAssertionSixteenTimesAtOnceThroughTheHandler() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        defer { store.close() }
        let server = try TestServerFactory.make(store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let account = try client.register("alice")
        let body = Array(try JSONEncoder().encode(try client.assertion(account.credential, answering: try client.requestOptions())))
        let replies = Self.race(Self.contenders) {
            try? DirectTransport(handler: server).send("POST", "/webauthn/authentication/verify", body: body, headers: [])
        }
        Self.expectExactlyOneWinner(replies)
    }

    @Test func sameRegistrationSixteenTimesAtOnceThroughTheHandler() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        defer { store.close() }
        let server = try TestServerFactory.make(store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let options = try client.registrationOptions(username: "alice").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let body = Array(try JSONEncoder().encode(try client.answer(options).response))
        let replies = Self.race(Self.contenders) {
            try? DirectTransport(handler: server).send("POST", "/webauthn/registration/verify", body: body, headers: [])
        }
        Self.expectExactlyOneWinner(replies)
        #expect(try store.user(name: "alice") != nil)
    }

    @Test func sameAssertionSixteenTimesAtOnceOverHTTPS() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        defer { store.close() }
        let server = try LoopbackServer(store: store)
        defer { server.stop() }
        let client = PasskeyClient(DirectTransport(handler: server.handler))
        let account = try client.register("alice")
        let bodyFile = folder.path + "/assertion.json"
        try JSONEncoder().encode(try client.assertion(account.credential, answering: try client.requestOptions()))
            .write(to: URL(fileURLWithPath: bodyFile))
        var processes: [SpawnedProcess] = []
        for _ in 0..<Self.contenders {
            let process = try SpawnedProcess(
                "/usr/bin/curl",
                [
                    "-sk", "-i", "--max-time", "20", "-H", "Content-Type: application/json", "--data-binary", "@" + bodyFile,
                    "https://127.0.0.1:\(server.port)/webauthn/authentication/verify",
                ],
                standardOutput: .pipe
            )
            processes.append(process)
        }
        let replies = processes.map { process -> ServerReply? in
            let data = process.standardOutput?.readDataToEndOfFile() ?? Data()
            process.waitUntilExit()
            return try? CurlTransport.parse(Array(data))
        }
        Self.expectExactlyOneWinner(replies)
    }
}
