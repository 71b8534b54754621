import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Observability
import Synchronization
import TestSupport
import Testing

@testable import RelyingPartyServer

/// `X-Request-Id`: a valid one is taken and echoed, anything else is replaced by a new one; request lines carry it.
struct RequestIDTests {
    static func get(_ server: RelyingPartyServer, _ path: String, requestID: String? = nil) -> HTTPResponse {
        server.handle(HTTPRequest(method: "GET", path: path, headers: HTTPHeaders(requestID.map { [("X-Request-Id", $0)] } ?? [])))
    }

    @Test func aValidRequestIDIsEchoedAndWrittenToTheRequestLine() throws {
        let records = Mutex<[LogRecord]>([])
        let server = try TestServerFactory.make(log: Logger(level: .debug) { record in records.withLock { $0.append(record) } })
        let offered = "Root=1-67891233-abcdef012345678912345678:trace/7+x"
        #expect(Self.get(server, "/healthz", requestID: offered).headers["x-request-id"] == offered)
        #expect(Self.get(server, "/nowhere", requestID: offered).headers["x-request-id"] == offered)
        let lines = records.withLock { $0 }.filter { $0.event == "request" }
        #expect(lines.map(\.requestID) == [offered, offered])
        #expect(lines.map(\.route) == ["/healthz", "(other)"])
        #expect(lines.map(\.status) == [200, 404])
        #expect(lines.map(\.level) == [.debug, .debug])
        #expect(lines.map(\.code) == [nil, "not_found"])
        #expect(lines.allSatisfy { ($0.durationMilliseconds ?? -1) >= 0 })
    }

    @Test func anInvalidRequestIDIsReplacedByANewUniqueOne() throws {
        let server = try TestServerFactory.make()
        let invalid = ["", String(repeating: "a", count: 129), "has space", "semi;colon", "quote\"", "new\nline", "ümlaut"]
        var seen: Set<String> = []
        for offered in invalid {
            let id = try #require(Self.get(server, "/healthz", requestID: offered).headers["x-request-id"])
            #expect(id != offered && RequestIDs.isValid(id))
            seen.insert(id)
        }
        for _ in 0..<5 { seen.insert(try #require(Self.get(server, "/healthz").headers["x-request-id"])) }
        #expect(seen.count == invalid.count + 5)
        #expect(RequestIDs.isValid(String(repeating: "a", count: 128)))
    }

    /// A new ID is the process's random prefix, "-" and a counter in base 36.
    @Test func aNewIDIsThePrefixAndTheCounterInBase36() {
        struct ZeroRandom: RandomSource {
            func bytes(count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }
        }
        let ids = RequestIDs(random: ZeroRandom())
        let made = (1...1297).map { _ in ids.id(offered: nil) }
        #expect(made.allSatisfy { $0.hasPrefix("AAAAAAAAAAAA-") && RequestIDs.isValid($0) })
        #expect(made.map { String($0.dropFirst(13)) } == (1...1297).map { String($0, radix: 36) })
        #expect(made[35] == "AAAAAAAAAAAA-10" && made[1295] == "AAAAAAAAAAAA-100")
    }

    @Test func aPasskeyIDInThePathNeverBecomesTheRoute() throws {
        let records = Mutex<[LogRecord]>([])
        let server = try TestServerFactory.make(log: Logger(level: .debug) { record in records.withLock { $0.append(record) } })
        _ = server.handle(HTTPRequest(method: "DELETE", path: "/me/passkeys/c2VjcmV0LWlk"))
        _ = server.handle(HTTPRequest(method: "PUT", path: "/me/passkeys/c2VjcmV0LWlk"))
        let lines = records.withLock { $0 }
        #expect(lines.filter { $0.event == "request" }.map(\.route) == ["/me/passkeys/{id}", "/me/passkeys/{id}"])
        #expect(!lines.contains { $0.message.contains("c2VjcmV0LWlk") || $0.route?.contains("c2VjcmV0LWlk") == true })
    }
}
