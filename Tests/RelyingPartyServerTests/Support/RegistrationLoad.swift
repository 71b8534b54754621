import Foundation
import Synchronization
import TestSupport

/// Registrations from several threads against one server, each over HTTPS with curl, until the server goes away
/// (or a bound is reached). It keeps every registration whose success the client saw, and every failure that
/// happened before the test declared the server killed.
final class RegistrationLoad: Sendable {
    /// A registration the client saw succeed: 200 with a session token.
    struct Success: Sendable {
        let username: String
        let credential: SoftwareCredential
        let token: String
    }

    private let port: Int
    private let prefix: String
    private let threads: Int
    private let maximumPerThread: Int
    private let successes = Mutex([Success]())
    private let unexpectedFailures = Mutex([String]())
    private let killed = Atomic<Bool>(false)
    private let finished = DispatchGroup()

    init(port: Int, prefix: String, threads: Int = 4, maximumPerThread: Int = 400) {
        self.port = port
        self.prefix = prefix
        self.threads = threads
        self.maximumPerThread = maximumPerThread
    }

    /// Starts the threads.
    func start() {
        for thread in 0..<threads {
            finished.enter()
            Thread { [self] in
                defer { finished.leave() }
                let client = PasskeyClient(CurlTransport(port: port))
                for index in 0..<maximumPerThread where !killed.load(ordering: .acquiring) {
                    let username = "\(prefix)\(thread)-\(index)"
                    do {
                        let account = try client.register(username)
                        successes.withLock { $0.append(Success(username: username, credential: account.credential, token: account.token)) }
                    } catch {
                        if !killed.load(ordering: .acquiring) {
                            unexpectedFailures.withLock { $0.append("\(username): \(error)") }
                        }
                        return
                    }
                }
            }.start()
        }
    }

    /// Declares the server killed: failures from now on are expected. Call right before the kill.
    func serverIsBeingKilled() {
        killed.store(true, ordering: .releasing)
    }

    /// Waits for every thread (each ends at its first failure, so soon after the kill) and returns what they saw.
    func finish() -> (successes: [Success], unexpectedFailures: [String]) {
        finished.wait()
        return (successes.withLock { $0 }, unexpectedFailures.withLock { $0 })
    }
}
