import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// Issue 20: handlers that may wait run on the worker pool, so an event loop serves its other connections meanwhile;
/// a full queue is answered at once; a stop or a client leaving while a worker holds its request costs nothing.
@Suite(.serialized) struct WorkerPoolTests {
    /// `/slow?ms=N` sleeps N ms; `/gate` waits until the test opens the gate; `/loop` answers on the loop thread.
    final class WaitingHandler: HTTPHandler {
        private let gate = Mutex((isOpen: false, entered: 0))

        var entered: Int { gate.withLock { $0.entered } }

        func open() { gate.withLock { $0.isOpen = true } }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            switch request.path {
            case "/slow":
                let milliseconds = request.query.flatMap { Int($0.dropFirst("ms=".count)) } ?? 0
                usleep(UInt32(milliseconds * 1000))
            case "/gate":
                gate.withLock { $0.entered += 1 }
                let deadline = Date().addingTimeInterval(10)
                while !gate.withLock({ $0.isOpen }) && Date() < deadline { usleep(10_000) }
            default:
                break
            }
            return .json(status: 200, Array(#"{"path":"\#(request.path)"}"#.utf8))
        }

        func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? { request.path == "/loop" ? handle(request) : nil }
    }

    /// Runs curl on a thread of its own; `wait` gives its result.
    final class BackgroundRequest: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: ProcessResult?

        init(_ arguments: [String]) {
            Thread.detachNewThread { [self] in
                result = try? curl(arguments)
                done.signal()
            }
        }

        func wait() -> ProcessResult? {
            done.wait()
            return result
        }
    }

    /// Seconds `body` took.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let started = Date()
        try body()
        return Date().timeIntervalSince(started)
    }

    /// With one event loop, a request whose handler sleeps 3 s on a worker leaves the loop free: another connection's
    /// request is answered at once. Before the pool the loop slept with the handler and the second waited the 3 s.
    @Test func aSlowHandlerDoesNotHoldUpTheLoopsOtherConnections() throws {
        let handler = WaitingHandler()
        let server = try TestServer(threads: 1, handler: handler)
        let slow = BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/slow?ms=3000"])
        usleep(200_000)
        var fast: ProcessResult?
        let elapsed = try Self.seconds { fast = try curl(["-w", " %{http_code}", server.httpURL + "/fast"]) }
        #expect(fast?.output.hasSuffix(" 200") == true, "\(String(describing: fast))")
        #expect(elapsed < 2, "the other connection waited \(elapsed) s")
        #expect(slow.wait()?.output == "200")
    }

    /// A route answered from memory runs on the loop thread itself: while it runs, the loop serves nobody else (which
    /// is why only answers that wait on nothing may say so).
    @Test func answersFromMemoryRunOnTheLoopThread() throws {
        let threads = try Self.threadsAnswering(["/loop", "/pool"])
        #expect(threads.mapValues(\.isOnLoop) == ["/loop": true, "/pool": false])
    }

    /// The server's threads carry names that `top -H`, `ps -L` and `perf` show: its event loops `passkeyd-loop`, its
    /// workers `passkeyd-worker` and a suspect lane's `passkeyd-lane` (before, every thread showed the process's name).
    @Test func threadsCarryTheirKindsNameForTheSystemsTools() throws {
        let threads = try Self.threadsAnswering(["/loop", "/pool"])
        #expect(threads.mapValues(\.name) == ["/loop": "passkeyd-loop", "/pool": "passkeyd-worker"])

        let pool = try WorkerPool(threads: 1, maximumQueued: 1, lane: SuspectLane(workers: 1, maximumQueued: 1, niceness: 0))
        let laneName = Mutex<String?>(nil)
        #expect(pool.submit({ laneName.withLock { $0 = SystemThreadName.current } }, lane: .suspect) == .queued)
        let deadline = Date().addingTimeInterval(5)
        while laneName.withLock({ $0 }) == nil && Date() < deadline { usleep(10_000) }
        pool.stop()
        #expect(laneName.withLock { $0 } == "passkeyd-lane")
    }

    /// The thread that answered each of `paths` on a one-loop server (`/loop` on the loop, the others on its pool):
    /// whether it was the loop, and its name as the system shows it.
    private static func threadsAnswering(_ paths: [String]) throws -> [String: (isOnLoop: Bool, name: String)] {
        final class ThreadRecorder: HTTPHandler {
            let threads = Mutex<[String: (isOnLoop: Bool, name: String)]>([:])
            func handle(_ request: HTTPRequest) -> HTTPResponse {
                threads.withLock { $0[request.path] = (EventLoop.current != nil, SystemThreadName.current) }
                return .json(status: 200, Array("{}".utf8))
            }
            func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? { request.path == "/loop" ? handle(request) : nil }
        }
        let handler = ThreadRecorder()
        let server = try TestServer(threads: 1, handler: handler)
        for path in paths {
            #expect(try curl(["-o", "/dev/null", server.httpURL + path]).status == 0)
        }
        return handler.threads.withLock { $0 }
    }

    /// One worker busy and one request queued: the next is answered `503 server_busy` with `Retry-After` at once,
    /// and the two accepted ones are answered once the worker is free.
    @Test func aFullQueueIsAnswered503WithRetryAfter() throws {
        let handler = WaitingHandler()
        let server = try TestServer(threads: 1, workers: 1, maximumQueuedRequests: 1, handler: handler)
        let running = BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/gate"])
        let deadline = Date().addingTimeInterval(5)
        while handler.entered < 1 && Date() < deadline { usleep(10_000) }
        try #require(handler.entered == 1)
        let queued = BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/queued"])
        usleep(300_000)
        var refused: ProcessResult?
        let elapsed = try Self.seconds { refused = try curl(["-i", server.httpURL + "/refused"]) }
        let answer = try #require(refused?.output)
        #expect(answer.hasPrefix("HTTP/1.1 503 "), "\(answer)")
        #expect(answer.contains("Retry-After: 1\r\n"))
        #expect(answer.contains(#"{"error":"server_busy","message":"The server is busy; try again shortly."}"#))
        // Answered while the gate is still shut (it waits 10 s at most): the refusal never queued.
        #expect(elapsed < 5)
        // The metrics' figures: one waiting, one refused.
        #expect(server.server.statistics.queuedRequests == 1)
        #expect(server.server.statistics.busyRefusals == 1)
        handler.open()
        #expect(running.wait()?.output == "200")
        #expect(queued.wait()?.output == "200")
    }

    /// A handler slower than the read timeout is not cut off by the whole-request deadline: the request arrived in
    /// time, and the deadline waits for its answer.
    @Test func aHandlerSlowerThanTheReadTimeoutIsAnswered() throws {
        let server = try TestServer(threads: 1, readTimeoutSeconds: 1, handler: WaitingHandler())
        let answer = try curl(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/slow?ms=1800"])
        #expect(answer.output == "200")
    }

    /// A client that leaves while a worker holds its request: the answer is dropped with the connection, which is
    /// uncounted, and the server serves on.
    @Test func aClientLeavingWhileItsRequestIsOnAWorkerCostsNothing() throws {
        let server = try TestServer(threads: 1, handler: WaitingHandler())
        let port = server.server.httpPort!
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(connectLoopback(descriptor, port: port))
        let request = Array("GET /slow?ms=500 HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        usleep(100_000)
        close(descriptor)
        var remaining = server.server.openConnectionCount
        for _ in 0..<50 where remaining != 0 {
            usleep(100_000)
            remaining = server.server.openConnectionCount
        }
        #expect(remaining == 0)
        #expect(try curl(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/fast"]).output == "200")
    }

    /// Issue 44: each job queued wakes one parked thread of its lane (its own semaphore), so jobs submitted while every
    /// thread is parked run at once, side by side; and a pool whose threads are all parked stops at once.
    @Test func everyJobWakesAParkedThreadOfItsLane() throws {
        let pool = try WorkerPool(threads: 3, maximumQueued: 8, lane: SuspectLane(workers: 2, maximumQueued: 8, niceness: 0))
        for (lane, count) in [(WorkerPool.Lane.clean, 3), (.suspect, 2), (.clean, 3)] {
            usleep(100_000)  // every thread parks
            let running = Atomic<Int>(0)
            let together = Atomic<Int>(0)
            for _ in 0..<count {
                let admission = pool.submit(
                    {
                        running.add(1, ordering: .relaxed)
                        // Each job waits for all of its round: only threads running side by side get there.
                        let deadline = Date().addingTimeInterval(5)
                        while running.load(ordering: .relaxed) < count && Date() < deadline { usleep(1_000) }
                        if running.load(ordering: .relaxed) == count { together.add(1, ordering: .relaxed) }
                    },
                    lane: lane
                )
                #expect(admission == .queued)
            }
            let deadline = Date().addingTimeInterval(8)
            while together.load(ordering: .relaxed) < count && Date() < deadline { usleep(10_000) }
            #expect(together.load(ordering: .relaxed) == count, "\(lane): \(count) jobs side by side")
        }
        usleep(100_000)
        #expect(Self.seconds { pool.stop() } < 1)
        #expect(pool.submit({}) == .busy, "a stopped pool queues nothing")
    }

    /// Stopping the server while workers hold requests returns once they end (each wait is bounded), and drops what
    /// still waits in the queue without running it.
    @Test func stopWhileWorkersHoldRequestsReturns() throws {
        let handler = WaitingHandler()
        let server = try TestServer(threads: 1, workers: 1, handler: handler)
        let requests = (0..<3).map { _ in BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}", server.httpURL + "/gate"]) }
        let deadline = Date().addingTimeInterval(5)
        while handler.entered < 1 && Date() < deadline { usleep(10_000) }
        usleep(200_000)
        Thread.detachNewThread {
            usleep(300_000)
            handler.open()
        }
        let elapsed = Self.seconds { server.server.stop() }
        #expect(elapsed < 5)
        #expect(handler.entered == 1, "the queued requests never ran")
        for request in requests { _ = request.wait() }
    }
}
