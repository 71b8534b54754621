import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer
@testable import Storage

/// Issue 38: credential-stuffing signals beyond the funnel. One address trying many accounts, and one account tried
/// from many addresses, raise `password.stuffing_suspected` and `passkeyd_password_stuffing_signals_total` once per
/// window; scattered failures raise nothing.
struct CredentialStuffingTests {
    @Test func eachSignalIsRaisedOnceAtTheThresholdPerWindow() {
        let signals = CredentialStuffingSignals(threshold: 3, windowSeconds: 600)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(signals.failed(account: "a", address: "192.0.2.1", now: start).isEmpty)
        #expect(signals.failed(account: "a", address: "192.0.2.1", now: start).isEmpty, "the same account again counts once")
        #expect(signals.failed(account: "b", address: "192.0.2.1", now: start).isEmpty)
        #expect(signals.failed(account: "c", address: "192.0.2.1", now: start) == [.accountsPerAddress(address: "192.0.2.1", count: 3)])
        #expect(signals.failed(account: "d", address: "192.0.2.1", now: start).isEmpty, "once per window")
        #expect(signals.failed(account: "a", address: "192.0.2.2", now: start).isEmpty)
        #expect(signals.failed(account: "a", address: "192.0.2.3", now: start) == [.addressesPerAccount(account: "a", count: 3)])
        // A new window starts counting again.
        let later = start.addingTimeInterval(601)
        #expect(signals.failed(account: "x", address: "192.0.2.1", now: later).isEmpty)
        #expect(signals.failed(account: "y", address: "192.0.2.1", now: later).isEmpty)
        #expect(signals.failed(account: "z", address: "192.0.2.1", now: later) == [.accountsPerAddress(address: "192.0.2.1", count: 3)])
    }

    /// A flood of keys never grows the tables past their bound, and still raises the signal of a key that reaches it.
    @Test func theKeysTrackedAreBounded() {
        let signals = CredentialStuffingSignals(threshold: 2, windowSeconds: 600, maximumKeys: 100)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for index in 0..<1_000 { _ = signals.failed(account: "account\(index)", address: "198.51.100.\(index % 250)", now: now) }
        #expect(signals.trackedKeys.addresses <= 100 && signals.trackedKeys.accounts <= 100, "\(signals.trackedKeys)")
        #expect(signals.failed(account: "u1", address: "203.0.113.9", now: now).isEmpty)
        #expect(signals.failed(account: "u2", address: "203.0.113.9", now: now).contains(.accountsPerAddress(address: "203.0.113.9", count: 2)))
    }

    @Test func bothSignalsReachEventsAndMetrics() throws {
        let tests = try PasswordSignInTests(
            configuration: AdminAPITests.configuration.replacingOccurrences(
                of: #""www": null"#,
                with: #""www": null, "rateLimits": {"perAccountBurst": 100, "perAddressBurst": 100}"#
            )
        )
        let bcrypt = PasswordSignInTests.fixture("bcrypt $2b$")
        _ = try tests.importLines(PasswordSignInTests.importFile([("ada", nil, bcrypt.hash)]))
        let before = try tests.store.allEvents().count
        // One address tries ten names (none of them an account).
        let flooder = PasskeyClient(DirectTransport(handler: tests.server, remoteAddress: "198.51.100.7"))
        for index in 0..<10 {
            #expect(try flooder.post("/auth/password", ["username": "victim\(index)", "password": "guess"]).status == 401)
        }
        // Ten addresses try one account.
        for index in 0..<10 {
            let guesser = PasskeyClient(DirectTransport(handler: tests.server, remoteAddress: "203.0.113.\(index + 1)"))
            #expect(try guesser.post("/auth/password", ["username": "ada", "password": "guess\(index)"]).status == 401)
        }
        let events = try tests.store.allEvents().dropFirst(before).filter { $0.type == "password.stuffing_suspected" }
        #expect(events.count == 2)
        let payloads = events.map { (try? JSONSerialization.jsonObject(with: Data($0.data))) as? [String: Any] ?? [:] }
        #expect(payloads.first?["signal"] as? String == "accounts_per_address")
        #expect(payloads.first?["address"] as? String == "198.51.100.7")
        #expect(payloads.first?["count"] as? Int == 10)
        #expect(payloads.first?["userId"] == nil && events.first?.userID == nil)
        #expect(payloads.last?["signal"] as? String == "addresses_per_account")
        #expect(payloads.last?["userId"] as? String != nil && payloads.last?["address"] == nil)
        let metrics = try #require(try MetricsTests.scrape(tests.server)["passkeyd_password_stuffing_signals"])
        #expect(metrics.value("passkeyd_password_stuffing_signals_total", ["signal": "accounts_per_address"]) == 1)
        #expect(metrics.value("passkeyd_password_stuffing_signals_total", ["signal": "addresses_per_account"]) == 1)
    }

    /// Failures spread over addresses and accounts below the threshold raise nothing.
    @Test func scatteredFailuresRaiseNothing() throws {
        let tests = try PasswordSignInTests()
        for index in 0..<9 {
            let client = PasskeyClient(DirectTransport(handler: tests.server, remoteAddress: "192.0.2.\(index + 1)"))
            _ = try client.post("/auth/password", ["username": "name\(index)", "password": "guess"])
        }
        #expect(try tests.store.allEvents().allSatisfy { $0.type != "password.stuffing_suspected" })
    }
}
