import CryptoCore
import Foundation
import RelyingPartyServer
import TestSupport
import Testing
import WebAuthnCore

/// Issue 15: anyone could lock a person out. Ten option requests naming the victim, then one every 2 s, kept the
/// victim at `429` for as long as the attacker liked, and junk assertions naming the victim's (public) credential ID
/// blocked their username-less sign-in too. A valid assertion is not guessable, so no limit may stop it: option
/// requests are limited per address only, and only failed verifications count against the account.
struct LockoutTests {
    let clock = ManualClock()
    let server: RelyingPartyServer
    let victim: PasskeyClient
    let attacker: PasskeyClient

    init() throws {
        server = try TestServerFactory.make(clock: clock)
        victim = PasskeyClient(DirectTransport(handler: server, remoteAddress: "198.51.100.7"))
        attacker = PasskeyClient(DirectTransport(handler: server, remoteAddress: "203.0.113.66"))
    }

    /// An assertion by the attacker's own passkey, answering fresh options, that names `credentialID`: its signature
    /// cannot verify against that credential's key.
    func junkAssertion(naming credentialID: [UInt8], by credential: SoftwareCredential, username: String? = nil) throws -> AuthenticationResponseJSON
    {
        var assertion = try attacker.assertion(credential, answering: try attacker.requestOptions(username: username))
        assertion.id = Base64URL.encode(credentialID)
        assertion.rawId = assertion.id
        return assertion
    }

    @Test func theVictimSignsInWhileTheAttackRunsFromAnotherAddress() throws {
        let account = try victim.register("victim")
        let own = try attacker.register("attacker").credential
        for _ in 0..<10 { _ = try attacker.authenticationOptions(username: "victim") }
        var junkReplies: [Int] = []
        for second in stride(from: 0, to: 120, by: 2) {
            _ = try attacker.authenticationOptions(username: "victim")
            junkReplies.append(try attacker.authenticationVerify(try junkAssertion(naming: account.credential.id, by: own)).status)
            junkReplies.append(
                try attacker.authenticationVerify(try junkAssertion(naming: account.credential.id, by: own, username: "victim")).status
            )
            if second % 10 == 0 {
                let byName = try victim.signIn(account.credential, username: "victim")
                #expect(byName.status == 200, "signing in by username at \(second) s: \(byName.text)")
                let discoverable = try victim.signIn(account.credential)
                #expect(discoverable.status == 200, "signing in without a username at \(second) s: \(discoverable.text)")
            }
            clock.advance(by: 2)
        }
        #expect(junkReplies.allSatisfy { $0 == 400 || $0 == 429 })
        #expect(junkReplies.contains(429), "failed verifications against the account are still limited")
    }

    @Test func failedVerificationsAreLimitedAndAValidAssertionStillPasses() throws {
        let account = try victim.register("victim")
        let own = try attacker.register("attacker").credential
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try attacker.authenticationVerify(try junkAssertion(naming: account.credential.id, by: own)).status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 400 }, "\(statuses)")
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        #expect(try victim.signIn(account.credential).status == 200)
        #expect(try victim.signIn(account.credential, username: "victim").status == 200)
    }

    @Test func optionRequestsAreLimitedPerAddressOnly() throws {
        _ = try victim.register("victim")
        var attackerStatuses: [Int] = []
        for _ in 0..<70 { attackerStatuses.append(try attacker.authenticationOptions(username: "victim").status) }
        #expect(attackerStatuses.contains(429), "the attacker's address runs out")
        #expect(try victim.authenticationOptions(username: "victim").status == 200)
    }
}
