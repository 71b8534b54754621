import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Issue 15: a stalled Apple key endpoint froze the server. The key fetch ran on the event-loop thread of the request
/// that needed keys, under the cache's lock, for up to the outbound deadline; requests behind it waited for the lock,
/// and every connection of the blocked loops waited with them. The attack of the review, against the real HTTPS
/// listener (two event-loop threads) with a key URL that accepts connections and never answers: four Sign in with
/// Apple requests every 2.5 s, while a passkey user signs in and a monitor polls `/healthz`.
@Suite(.serialized) struct AppleStallTests {
    /// The slowest answer allowed to `/healthz` and to each step of a passkey sign-in while Apple hangs, curl's own
    /// start included. Before the fix they waited the outbound deadline (3 s here, 5 s in `passkeyd serve`).
    static let latencyBound = 1.0

    @Test func passkeySignInAndHealthzAreUnaffectedWhileAppleNeverAnswers() throws {
        let silent = try SilentListener()
        // Rate limits out of the way: this test is about stalls, and every client here is 127.0.0.1.
        let limits =
            #""rateLimits": {"perAddressPerMinute": 100000, "perAddressBurst": 100000, "#
            + #""perAccountPerMinute": 100000, "perAccountBurst": 100000},"#
        let fixture = try AppleFixture(
            jwksURL: "http://127.0.0.1:\(silent.port)/auth/keys",
            extraConfiguration: limits,
            overHTTPS: true,
            prefetchKeys: false
        )
        let account = try fixture.client.register("victim")
        let attackReplies = Mutex<[(status: Int, seconds: Double)]>([])
        let attacking = Atomic(true)
        let attack = DispatchGroup()
        // The attack only sends (curl processes); the fixture is not otherwise shared across threads.
        nonisolated(unsafe) let target = fixture
        DispatchQueue.global().async(group: attack) {
            while attacking.load(ordering: .relaxed) {
                let wave = Date()
                DispatchQueue.concurrentPerform(iterations: 4) { _ in
                    let raw = AppleFixture.rawNonce()
                    let started = Date()
                    let status = (try? target.signIn(token: (try? target.identityToken(rawNonce: raw)) ?? "x.y.z", rawNonce: raw))?.status ?? 0
                    attackReplies.withLock { $0.append((status, Date().timeIntervalSince(started))) }
                }
                let rest = 2.5 - Date().timeIntervalSince(wave)
                if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            }
        }
        var health: [Double] = []
        var signIns: [Double] = []
        let end = Date().addingTimeInterval(6)
        while Date() < end {
            let started = Date()
            #expect(try fixture.client.send("GET", "/healthz").status == 200)
            health.append(Date().timeIntervalSince(started))
            let options = try fixture.client.requestOptions()
            let verifying = Date()
            signIns.append(verifying.timeIntervalSince(started) - health.last!)
            let reply = try fixture.client.authenticationVerify(try fixture.client.assertion(account.credential, answering: options))
            #expect(reply.status == 200)
            signIns.append(Date().timeIntervalSince(verifying))
            Thread.sleep(forTimeInterval: 0.1)
        }
        attacking.store(false, ordering: .relaxed)
        attack.wait()
        let replies = attackReplies.withLock { $0 }
        let slowest = (health: health.max() ?? 0, signIn: signIns.max() ?? 0, apple: replies.map(\.seconds).max() ?? 0)
        print(
            "apple stall: \(replies.count) Apple sign-ins, \(health.count) /healthz, \(signIns.count / 2) passkey sign-ins; slowest: "
                + String(format: "/healthz %.3f s, passkey step %.3f s, Apple 503 %.3f s", slowest.health, slowest.signIn, slowest.apple)
        )
        #expect(replies.count >= 8)
        #expect(replies.allSatisfy { $0.status == 503 }, "no keys: apple_unavailable")
        #expect(slowest.apple < Self.latencyBound, "a request needing keys fails fast")
        #expect(slowest.health < Self.latencyBound)
        #expect(slowest.signIn < Self.latencyBound)
        #expect(fixture.log.contains { $0.hasPrefix("apple keys: fetch failed") }, "the fetch ran, in the background, and timed out")
    }
}
