import CryptoCore
import Foundation
import Testing

@testable import RelyingPartyServer

/// A sealed challenge opens under the key that sealed it, with what it was sealed with, and under no other key or
/// after any change.
struct ChallengeSealTests {
    let seal: ChallengeSeal
    let expiry = Date(timeIntervalSince1970: 1_780_000_300.123)

    init() throws {
        seal = try ChallengeSeal(serverSecret: Array(repeating: 0x5A, count: 32))
    }

    func sealed(_ userVerification: String = "preferred") -> [UInt8] {
        seal.seal(userVerification: userVerification, expiresAt: expiry, random: SystemRandom().bytes(count: ChallengeSeal.randomLength))
    }

    @Test(arguments: ["required", "preferred", "discouraged"])
    func opensWithWhatItWasSealedWith(_ userVerification: String) throws {
        let challenge = sealed(userVerification)
        #expect(challenge.count == ChallengeSeal.length)
        let opened = try #require(seal.open(challenge))
        #expect(opened.userVerification == userVerification)
        // Milliseconds: the expiry the options named, to the millisecond.
        #expect(abs(opened.expiresAt.timeIntervalSince(expiry)) < 0.001)
        #expect(opened.expiresAt <= expiry)
    }

    @Test func noTwoAreAlike() {
        #expect(Set((0..<100).map { _ in sealed() }).count == 100)
    }

    @Test func everyChangedBitIsRefused() {
        let challenge = sealed()
        for index in challenge.indices {
            for bit in 0..<8 {
                var changed = challenge
                changed[index] ^= 1 << bit
                #expect(seal.open(changed) == nil, "byte \(index) bit \(bit)")
            }
        }
    }

    @Test func anotherDeploymentsKeyOpensNothing() throws {
        let other = try ChallengeSeal(serverSecret: Array(repeating: 0x5B, count: 32))
        #expect(other.open(sealed()) == nil)
    }

    @Test func otherLengthsAreRefused() {
        let challenge = sealed()
        for bytes in [Array(challenge.dropLast()), challenge + [0], Array(challenge.prefix(32)), []] {
            #expect(seal.open(bytes) == nil, "\(bytes.count) bytes")
        }
    }
}
