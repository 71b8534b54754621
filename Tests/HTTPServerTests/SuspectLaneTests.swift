import Foundation
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 44: the requests of an address with recent refusals run in the worker pool's suspect lane (its own niced
/// threads and bounded queue, `429 rate_limited` when full), so that a flood of requests that must be refused neither
/// delays nor refuses anyone else's.
@Suite(.serialized) struct SuspectLaneTests {
    /// `/refuse` answers 401; `/gate` waits until the test opens the gate; `/nice` answers the nice value of the thread
    /// that runs it; anything else 200.
    final class LaneHandler: HTTPHandler {
        private let gate = Mutex((isOpen: false, entered: 0))

        var entered: Int { gate.withLock { $0.entered } }

        func open() { gate.withLock { $0.isOpen = true } }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            switch request.path {
            case "/refuse":
                return .json(status: 401, Array(#"{"error":"password_invalid"}"#.utf8))
            case "/gate":
                gate.withLock { $0.entered += 1 }
                let deadline = Date().addingTimeInterval(10)
                while !gate.withLock({ $0.isOpen }) && Date() < deadline { usleep(10_000) }
            case "/nice":
                errno = 0
                let niceness = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                return .json(status: 200, Array("\(niceness)".utf8))
            default:
                break
            }
            return .json(status: 200, Array("{}".utf8))
        }
    }

    /// A flooding address: 127.0.0.2 (every 127/8 address is the loopback interface's).
    static let flooder = ["--interface", "127.0.0.2"]

    /// The lane of these tests: one thread, one request waiting, three refusals.
    static let lane = SuspectLane(workers: 1, maximumQueued: 1, refusals: 3, seconds: 600, niceness: 10, maximumAddresses: 1000)

    static func status(_ arguments: [String]) throws -> String {
        try curl(["-o", "/dev/null", "-w", "%{http_code}"] + arguments).output
    }

    /// Three refusals make 127.0.0.2 a suspect: its next requests run on the lane's niced thread, while 127.0.0.1's
    /// keep the pool's. With the lane's thread held and its one place taken, 127.0.0.2's next request is answered
    /// `429 rate_limited` with `Retry-After` at once, and 127.0.0.1's requests are answered at once, none refused.
    @Test func aFloodedAddressCannotDelayOrRefuseACleanOne() throws {
        let handler = LaneHandler()
        let server = try TestServer(threads: 1, workers: 2, maximumQueuedRequests: 8, suspectLane: Self.lane, handler: handler)
        let url = server.httpURL
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "0", "before any refusal: the pool's threads")
        for _ in 0..<3 { #expect(try Self.status(Self.flooder + [url + "/refuse"]) == "401") }
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "10", "a suspect's request runs on the lane's niced thread")
        #expect(try curl([url + "/nice"]).output == "0", "a clean address keeps the pool's threads")
        #expect(server.server.suspectLaneStatistics.suspects == 1)

        let held = WorkerPoolTests.BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}"] + Self.flooder + [url + "/gate"])
        let deadline = Date().addingTimeInterval(5)
        while handler.entered < 1 && Date() < deadline { usleep(10_000) }
        try #require(handler.entered == 1)
        let waiting = WorkerPoolTests.BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}"] + Self.flooder + [url + "/gate"])
        while server.server.suspectLaneStatistics.queued < 1 && Date() < deadline { usleep(10_000) }
        try #require(server.server.suspectLaneStatistics.queued == 1)

        var shed: ProcessResult?
        let elapsed = try WorkerPoolTests.seconds { shed = try curl(["-i"] + Self.flooder + [url + "/ok"]) }
        let answer = try #require(shed?.output)
        #expect(answer.hasPrefix("HTTP/1.1 429 "), "\(answer)")
        #expect(answer.contains("Retry-After: 1\r\n"))
        #expect(answer.contains(#"{"error":"rate_limited","#))
        #expect(elapsed < 5, "answered while the lane is held: the refusal never queued")

        // The clean address, meanwhile: eight requests at once, every one answered 200 while the lane is still held.
        let clean = (0..<8).map { _ in WorkerPoolTests.BackgroundRequest(["-o", "/dev/null", "-w", "%{http_code}", url + "/ok"]) }
        let cleanElapsed = WorkerPoolTests.seconds { for request in clean { #expect(request.wait()?.output == "200") } }
        #expect(cleanElapsed < 5, "the clean address waited \(cleanElapsed) s behind the suspect lane")
        #expect(handler.entered == 1, "the lane was still held")
        #expect(server.server.statistics.busyRefusals == 0)
        #expect(server.server.suspectLaneStatistics.shed == 1)

        handler.open()
        #expect(held.wait()?.output == "200")
        #expect(waiting.wait()?.output == "200")
        #expect(server.server.suspectLaneStatistics.admitted >= 3)
    }

    /// Refusals of one address make only that address a suspect, and successes make none.
    @Test func onlyRefusalsMakeASuspect() throws {
        let server = try TestServer(threads: 1, suspectLane: Self.lane, handler: LaneHandler())
        let url = server.httpURL
        for _ in 0..<5 { #expect(try Self.status(Self.flooder + [url + "/ok"]) == "200") }
        for _ in 0..<2 { #expect(try Self.status(Self.flooder + [url + "/refuse"]) == "401") }
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "0", "two refusals of three")
        for _ in 0..<3 { #expect(try Self.status([url + "/refuse"]) == "401") }
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "0", "another address's refusals")
        #expect(try curl([url + "/nice"]).output == "10")
    }

    /// Issue 44: the client the lane resolved reaches a worker's handler when the configuration says it is the
    /// handler's rule too, and only then: one resolution per request instead of two. A request answered on the loop is
    /// not resolved ahead (a well-known file needs no client; an answer from memory that does resolves it once itself).
    @Test func theResolvedClientReachesTheHandlerWhenShared() throws {
        final class ClientRecorder: HTTPHandler {
            let clients = Mutex<[String: String]>([:])
            func handle(_ request: HTTPRequest) -> HTTPResponse {
                clients.withLock { $0[request.path] = request.clientAddress ?? "none" }
                return .json(status: 200, Array("{}".utf8))
            }
            func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? { request.path == "/loop" ? handle(request) : nil }
        }
        for (shares, lane, expected) in [(true, Self.lane, "127.0.0.2"), (false, Self.lane, "none"), (true, nil, "none")] {
            let handler = ClientRecorder()
            let server = try TestServer(threads: 1, suspectLane: lane, sharesClientAddress: shares, handler: handler)
            for path in ["/pool", "/loop"] { #expect(try Self.status(Self.flooder + [server.httpURL + path]) == "200") }
            #expect(handler.clients.withLock { $0 } == ["/pool": expected, "/loop": "none"], "shares \(shares), lane \(lane != nil)")
        }
    }

    /// Refusals answered on the loop (from memory) count against their client like a worker's: the address is resolved
    /// for them when they are refusals.
    @Test func refusalsAnsweredOnTheLoopMakeASuspect() throws {
        final class LoopRefuser: HTTPHandler {
            func handle(_ request: HTTPRequest) -> HTTPResponse { LaneHandler().handle(request) }
            func answerOnLoop(_ request: HTTPRequest) -> HTTPResponse? {
                request.path == "/refuse" ? .json(status: 401, Array(#"{"error":"password_invalid"}"#.utf8)) : nil
            }
        }
        let server = try TestServer(threads: 1, suspectLane: Self.lane, handler: LoopRefuser())
        let url = server.httpURL
        for _ in 0..<2 { #expect(try Self.status(Self.flooder + [url + "/refuse"]) == "401") }
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "0", "two refusals of three")
        #expect(try Self.status(Self.flooder + [url + "/refuse"]) == "401")
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "10")
        #expect(try curl([url + "/nice"]).output == "0", "another address")
    }

    /// Without a lane (`limits.suspectLane: null`) every request runs on the pool's threads.
    @Test func withoutALaneEveryRequestSharesThePool() throws {
        let server = try TestServer(threads: 1, suspectLane: nil, handler: LaneHandler())
        let url = server.httpURL
        for _ in 0..<3 { #expect(try Self.status(Self.flooder + [url + "/refuse"]) == "401") }
        #expect(try curl(Self.flooder + [url + "/nice"]).output == "0")
        #expect(server.server.suspectLaneStatistics.suspects == 0)
    }
}
