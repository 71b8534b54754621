import AccessTokens
import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The signing keys' life: the first key signs at once, and a standby is always published beside it, signing at the next
/// rotation; a retired key stays published until its last token has expired, then is deleted; rotation every
/// `rotationDays`, on an algorithm change and by hand (the standby, long published, signs); the JWKS may be cached for
/// less than the pre-publication window.
@Suite struct SigningKeyRotationTests {
    static let day: TimeInterval = 86_400

    static func keys(_ store: any PasskeyStore) throws -> [SigningKeyRecord] {
        try store.transaction { transaction throws(StorageError) in try transaction.signingKeys() }
    }

    /// Sessions of a year, so that one session spans a rotation.
    static let configuration = TokenFixture.configuration.replacingOccurrences(
        of: #""www": null,"#,
        with: #""www": null, "sessions": {"lifetimeSeconds": 31536000},"#
    )

    @Test func theNextKeyIsPublishedLongBeforeItSignsAndTheLastUntilItsTokensHaveExpired() throws {
        let fixture = try TokenFixture(Self.configuration)
        let (account, firstToken) = try fixture.register("ivy")
        let first = try #require(try DecodedToken(firstToken).keyID)
        let jwks = try fixture.client.send("GET", "/.well-known/jwks.json")
        #expect(jwks.headers["Cache-Control"] == "public, max-age=225", "a quarter of the 900 s pre-publication window")
        // The first start made the signing key and its standby, published at once and signing 30 days later.
        let published = try fixture.jwks()
        #expect(published.count == 2)
        let second = try #require(published.keys.first { $0 != first })
        let standby = try #require(try Self.keys(fixture.store).first { $0.id == second })
        #expect(standby.activatesAt == fixture.clock.now.addingTimeInterval(30 * Self.day))

        let bearer = PasskeyClient.bearer(account.token)
        fixture.clock.advance(by: 30 * Self.day - 1)
        #expect(fixture.server.processDueKeyWork())
        let lastOfTheFirst = try #require(try fixture.mint(bearer).object["accessToken"] as? String)
        #expect(try DecodedToken(lastOfTheFirst).keyID == first)
        fixture.clock.advance(by: 1)
        #expect(try DecodedToken(try #require(try fixture.mint(bearer).object["accessToken"] as? String)).keyID == second)

        // The first key is retired but published while its last token lives (plus a minute of clock leeway), and that
        // token still works; the second key got its own standby; then the first leaves the JWKS and the store.
        #expect(fixture.server.processDueKeyWork())
        let third = try #require(try fixture.jwks().keys.first { $0 != first && $0 != second })
        #expect(try Set(fixture.jwks().keys) == [first, second, third])
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).status == 200)
        // It was minted a second before the rotation: it expires 899 s after it.
        fixture.clock.advance(by: 898)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).status == 200)
        fixture.clock.advance(by: 1)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).errorCode == "not_signed_in")
        fixture.clock.advance(by: 60)
        #expect(try Set(fixture.jwks().keys) == [first, second, third])
        fixture.clock.advance(by: 1)
        #expect(try Set(fixture.jwks().keys) == [second, third])
        #expect(fixture.server.processDueKeyWork())
        #expect(try Self.keys(fixture.store).map(\.id) == [second, third])
    }

    @Test func nothingRotatesBeforeItIsDue() throws {
        let fixture = try TokenFixture()
        _ = try fixture.register("lee")
        let start = try Self.keys(fixture.store)
        #expect(start.count == 2, "the signing key and its standby")
        for _ in 0..<5 {
            fixture.clock.advance(by: 5 * Self.day)
            #expect(fixture.server.processDueKeyWork())
        }
        #expect(try Self.keys(fixture.store) == start, "a standby is not replaced, however often the worker runs")
        fixture.clock.advance(by: 5 * Self.day)
        #expect(fixture.server.processDueKeyWork())
        let rotated = try Self.keys(fixture.store)
        #expect(rotated.count == 3 && Array(rotated.prefix(2).map(\.id)) == start.map(\.id), "the standby signs and has its own")
    }

    @Test(arguments: [("EdDSA", "OKP"), ("RS256", "RSA")])
    func anotherAlgorithmRotatesAtOnceAndSignsAfterThePrePublication(algorithm: String, keyType: String) throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let es256 = try TokenFixture(store: store, clock: clock)
        let (account, token) = try es256.register("jay")
        #expect(try DecodedToken(token).header["alg"] as? String == "ES256")
        let json = TokenFixture.configuration.replacingOccurrences(
            of: #""www": null,"#,
            with: #""www": null, "tokens": {"algorithm": "\#(algorithm)"},"#
        )
        let other = try TokenFixture(json, store: store, clock: clock)
        let jwks =
            try JSONSerialization.jsonObject(with: Data(try other.client.send("GET", "/.well-known/jwks.json").body)) as? [String: [[String: String]]]
        #expect(Set(jwks?["keys"]?.compactMap { $0["kty"] } ?? []) == ["EC", keyType])
        #expect(
            try DecodedToken(try #require(try other.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)).header["alg"]
                as? String == "ES256"
        )
        clock.advance(by: 900)
        let minted = try #require(try other.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
        #expect(try DecodedToken(minted).header["alg"] as? String == algorithm)
        let keyID = try #require(try DecodedToken(minted).keyID)
        let key = try #require(try other.jwks()[keyID])
        #expect(try CompactJWS(minted).verifySignature(with: key, allowedAlgorithms: [algorithm]))
        #expect(try other.client.send("GET", "/me", headers: PasskeyClient.bearer(minted)).status == 200)
    }

    /// Random bytes whose first draw encodes to a kid starting with "--" (0xFB 0xEF…: 62, 62 in base64url), then others.
    final class DashFirstRandom: RandomSource, @unchecked Sendable {
        private var draws = 0
        func bytes(count: Int) -> [UInt8] {
            draws += 1
            return draws == 1 ? [0xFB, 0xEF] + Array(repeating: 0x41, count: max(0, count - 2)) : Array(repeating: 0x42, count: count)
        }
    }

    /// A kid is typed as a command-line argument (`passkeyd keys revoke KID`): none starts with '-', which the first
    /// draw here would have made "--…" (found by a test that revoked such a key and met "unknown option").
    @Test func noKidStartsWithADash() throws {
        let random = DashFirstRandom()
        #expect(Base64URL.encode(random.bytes(count: 12)).hasPrefix("--"), "the draw the vault would have used")
        let vault = try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32), random: DashFirstRandom())
        let key = try vault.newKey(.es256, now: Date(), activatesAt: Date())
        #expect(!key.id.hasPrefix("-") && key.id == Base64URL.encode(Array(repeating: 0x42, count: SigningKeyVault.keyIDLength)))
    }

    @Test func aRotationByHandMakesTheLongPublishedStandbySign() throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let fixture = try TokenFixture(store: store, clock: clock)
        let (account, _) = try fixture.register("kim")
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let before = try Self.keys(store)
        let (signing, standby) = (before[0], before[1])
        // A day later, a rotation by hand: the standby has been published for a day, so it signs at once, under its kid.
        clock.advance(by: Self.day)
        let scheduled = try schedule.rotate(store: store, now: clock.now, immediately: false)
        #expect(scheduled.change.promoted == standby.id && scheduled.change.created == nil)
        #expect(scheduled.change.retired == [signing.id])
        #expect(scheduled.keys.first { $0.id == standby.id }?.activatesAt == clock.now)
        #expect(scheduled.keys.first { $0.id == signing.id }?.expiresAt == clock.now.addingTimeInterval(900 + 60))
        #expect(fixture.server.processDueKeyWork())
        let token = try #require(try fixture.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
        #expect(try DecodedToken(token).keyID == standby.id)
        // The worker made the next standby; a second rotation at once promotes it though it is new (an emergency).
        let next = try #require(try Self.keys(store).last)
        #expect(next.id != standby.id && next.activatesAt == clock.now.addingTimeInterval(30 * Self.day))
        let immediate = try schedule.rotate(store: store, now: clock.now, immediately: true)
        #expect(immediate.change.promoted == next.id && immediate.change.retired == [standby.id])
        // Without a standby (another algorithm configured), a new key is made: after the pre-publication, or at once.
        let eddsa = SigningKeySchedule(
            settings: {
                var settings = TokenSettings()
                settings.algorithm = .edDSA
                return settings
            }(),
            vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32))
        )
        let made = try eddsa.rotate(store: store, now: clock.now, immediately: false)
        #expect(made.change.promoted == nil && made.keys.first { $0.id == made.change.created }?.activatesAt == clock.now.addingTimeInterval(900))
    }

    /// `passkeyd keys revoke`: the key leaves the JWKS and the store at once, its tokens stop verifying, and when it
    /// was signing the standby signs in its place.
    @Test func aRevokedKeyIsWithdrawnAtOnceAndTheStandbySigns() throws {
        let fixture = try TokenFixture()
        let (account, _) = try fixture.register("rex")
        let bearer = PasskeyClient.bearer(account.token)
        let leaked = try #require(try fixture.mint(bearer).object["accessToken"] as? String)
        let leakedID = try #require(try DecodedToken(leaked).keyID)
        let standby = try #require(try Self.keys(fixture.store).last).id
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(leaked)).status == 200)
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let revoked = try #require(try schedule.revoke(id: leakedID, store: fixture.store, now: fixture.clock.now))
        #expect(revoked.change.deleted == [leakedID] && revoked.change.promoted == standby)
        #expect(try schedule.revoke(id: "no-such-kid", store: fixture.store, now: fixture.clock.now) == nil)
        #expect(fixture.server.processDueKeyWork())
        #expect(try fixture.jwks()[leakedID] == nil, "withdrawn from the JWKS")
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(leaked)).errorCode == "not_signed_in", "its tokens fail")
        let fresh = try #require(try fixture.mint(bearer).object["accessToken"] as? String)
        #expect(try DecodedToken(fresh).keyID == standby)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(fresh)).status == 200)
    }

    /// Two servers on one store, each with its key worker running: a rotation at once or a revocation made on the
    /// store (as `passkeyd keys` does) takes effect on both within `SigningKeyRing.refreshInterval` (1 s).
    @Test func anEmergencyRotationReachesEveryNodeWithinASecond() throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let nodes = try (0..<2).map { _ in try TokenFixture(store: store, clock: clock) }
        let (account, first) = try nodes[0].register("uma")
        let firstID = try #require(try DecodedToken(first).keyID)
        for node in nodes { node.server.startKeyWorker() }
        defer { for node in nodes { node.server.stopKeyWorker() } }
        #expect(SigningKeyRing.refreshInterval <= 1)
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let rotated = try schedule.rotate(store: store, now: clock.now, immediately: true)
        let newID = try #require(rotated.change.promoted)
        let started = Date()
        func keyIDs() throws -> [String?] {
            try nodes.map { node in
                try DecodedToken(try #require(try node.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)).keyID
            }
        }
        while try keyIDs() != [newID, newID], Date().timeIntervalSince(started) < 5 { usleep(20_000) }
        let took = Date().timeIntervalSince(started)
        #expect(try keyIDs() == [newID, newID])
        // One worker round (1 s) and the time to notice it; the bound leaves room for a loaded machine.
        #expect(took < 1.5, "took \(took) s")
        // A revocation: the old key leaves both nodes' JWKS as fast.
        _ = try schedule.revoke(id: firstID, store: store, now: clock.now)
        let revokedAt = Date()
        while try nodes.contains(where: { try $0.jwks()[firstID] != nil }), Date().timeIntervalSince(revokedAt) < 5 { usleep(20_000) }
        #expect(try nodes.allSatisfy { try $0.jwks()[firstID] == nil })
        #expect(Date().timeIntervalSince(revokedAt) < 1.5)
    }
}
