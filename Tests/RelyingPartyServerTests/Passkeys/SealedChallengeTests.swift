import CryptoCore
import Dispatch
import Foundation
import Storage
import StorageSQLite
import Synchronization
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// A discoverable sign-in's challenge is sealed (`ChallengeSeal`): nothing is stored when it is issued, and it is
/// stored as spent when it is used, once, on any node of a deployment.
struct SealedChallengeTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
    }

    /// Removes every challenge row, spent or not, expired or not, and counts them.
    func removeAllChallenges() throws -> Int {
        try store.purgeExpiredChallenges(now: .distantFuture)
    }

    private func expectChallengeError(_ reply: ServerReply, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        ChallengeTests.expectChallengeError(reply, code, sourceLocation: sourceLocation)
    }

    @Test func discoverableOptionsStoreNothingAndNamedOnesAChallenge() throws {
        let before = try store.status(now: clock.now).outstandingChallenges
        for _ in 0..<3 { _ = try client.requestOptions() }
        #expect(try store.status(now: clock.now).outstandingChallenges == before)
        let named = try client.requestOptions(username: "nobody")
        #expect(try PasskeyClient.bytes(named.challenge).count == 32)
        #expect(try store.status(now: clock.now).outstandingChallenges == before + 1)
    }

    @Test func aSignInStoresItsChallengeAsSpentUntilWellAfterItExpired() throws {
        let account = try client.register("alice")
        let purgeAt = clock.now.addingTimeInterval(300 + ChallengeService.spentRetention)
        #expect(try client.signIn(account.credential).status == 200)
        #expect(try store.purgeExpiredChallenges(now: purgeAt.addingTimeInterval(-1)) == 0)
        #expect(try store.purgeExpiredChallenges(now: purgeAt) == 1)
    }

    @Test func aReplayOfACountingPasskeysAssertionIsUnknownAndNoClone() throws {
        let account = try client.register("alice")
        let response = try client.assertion(account.credential, answering: try client.requestOptions(), AssertionOptions(signCount: 7))
        #expect(try client.authenticationVerify(response).status == 200)
        expectChallengeError(try client.authenticationVerify(response), "challenge_unknown")
        #expect(try store.credential(id: account.credential.id)?.cloneWarning == false)
        #expect(try store.allEvents().allSatisfy { $0.type != "passkey.clone_warning" })
    }

    @Test func aRefusalSpendsTheChallengeBeforeAnythingElse() throws {
        let account = try client.register("alice")
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 5)).status == 200)
        // A counter that went back flags the passkey; the challenge is spent, so the same assertion cannot flag again.
        let options = try client.requestOptions()
        let behind = try client.assertion(account.credential, answering: options, AssertionOptions(signCount: 4))
        #expect(try client.authenticationVerify(behind).errorCode == "possible_clone")
        expectChallengeError(try client.authenticationVerify(behind), "challenge_unknown")
        expectChallengeError(
            try client.authenticationVerify(try client.assertion(account.credential, answering: options, AssertionOptions(signCount: 6))),
            "challenge_unknown"
        )
        #expect(try store.allEvents().filter { $0.type == "passkey.clone_warning" }.count == 1)
        // A credential nobody registered spends it too.
        let stranger = try SoftwareCredential.generate(.es256)
        let unknown = try client.requestOptions()
        #expect(try client.authenticationVerify(try client.assertion(stranger, answering: unknown)).status == 400)
        expectChallengeError(try client.authenticationVerify(try client.assertion(account.credential, answering: unknown)), "challenge_unknown")
    }

    @Test func aChangedOrForeignSealedChallengeIsUnknown() throws {
        let account = try client.register("alice")
        let challenge = try PasskeyClient.bytes(try client.requestOptions().challenge)
        var forged: [[UInt8]] = [SystemRandom().bytes(count: ChallengeSeal.length)]
        for index in [0, 1, 8, 9, 20, 31, 32, 47] {
            var changed = challenge
            changed[index] ^= 0x01
            forged.append(changed)
        }
        let other = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock, enumerationSecret: Array(repeating: 0x11, count: 32)))
        )
        forged.append(try PasskeyClient.bytes(try other.requestOptions().challenge))
        for bytes in forged {
            let assertion = try client.authenticator.authenticate(account.credential, challenge: bytes, options: AssertionOptions(signCount: 0))
            expectChallengeError(try client.authenticationVerify(assertion), "challenge_unknown")
        }
        let genuine = try client.authenticator.authenticate(account.credential, challenge: challenge, options: AssertionOptions(signCount: 0))
        #expect(try client.authenticationVerify(genuine).status == 200)
    }

    @Test func aSealedChallengeExpiresAtItsLifetime() throws {
        let account = try client.register("alice")
        let options = try client.requestOptions()
        clock.advance(by: 300)
        let late = try client.assertion(account.credential, answering: options)
        expectChallengeError(try client.authenticationVerify(late), "challenge_expired")
        // Nothing was stored for it: still expired, not unknown.
        expectChallengeError(try client.authenticationVerify(late), "challenge_expired")
        #expect(try removeAllChallenges() == 0)
    }

    @Test func anotherNodeOfTheDeploymentAcceptsItOnce() throws {
        let account = try client.register("alice")
        let node = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock)))
        let response = try client.assertion(account.credential, answering: try client.requestOptions())
        #expect(try node.authenticationVerify(response).status == 200)
        expectChallengeError(try client.authenticationVerify(response), "challenge_unknown")
        expectChallengeError(try node.authenticationVerify(response), "challenge_unknown")
    }

    @Test func concurrentVerificationsOfOneAssertionSignInOnce() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let server = try TestServerFactory.make(store: store, clock: clock)
        let client = PasskeyClient(DirectTransport(handler: server))
        let account = try client.register("alice")
        let response = try client.assertion(account.credential, answering: try client.requestOptions(), AssertionOptions(signCount: 3))
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let status = (try? PasskeyClient(DirectTransport(handler: server)).authenticationVerify(response))?.status ?? -1
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 }.sorted() == [200] + Array(repeating: 400, count: 7))
        #expect(try store.credential(id: account.credential.id)?.cloneWarning == false)
    }
}
