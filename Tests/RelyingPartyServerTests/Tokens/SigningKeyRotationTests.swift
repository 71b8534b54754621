import CryptoCore
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing

/// The signing keys' life: the first key signs at once; a replacement is published one token lifetime before it signs;
/// a retired key stays published until its last token has expired, then is deleted; rotation every `rotationDays`,
/// on an algorithm change and by hand; the JWKS may be cached for less than the pre-publication window.
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

    @Test func aKeyIsPublishedBeforeItSignsAndUntilItsTokensHaveExpired() throws {
        let fixture = try TokenFixture(Self.configuration)
        let (account, firstToken) = try fixture.register("ivy")
        let first = try #require(try DecodedToken(firstToken).keyID)
        let jwks = try fixture.client.send("GET", "/.well-known/jwks.json")
        #expect(jwks.headers["Cache-Control"] == "public, max-age=225", "a quarter of the 900 s pre-publication window")
        #expect(try Set(fixture.jwks().keys) == [first])

        // 30 days later the worker makes the next key: published at once, signing 900 s later.
        fixture.clock.advance(by: 30 * Self.day)
        #expect(fixture.server.processDueKeyWork())
        let published = try fixture.jwks()
        #expect(published.count == 2)
        let second = try #require(published.keys.first { $0 != first })
        let bearer = PasskeyClient.bearer(account.token)
        #expect(try DecodedToken(try #require(try fixture.mint(bearer).object["accessToken"] as? String)).keyID == first)
        fixture.clock.advance(by: 899)
        let lastOfTheFirst = try #require(try fixture.mint(bearer).object["accessToken"] as? String)
        #expect(try DecodedToken(lastOfTheFirst).keyID == first)
        fixture.clock.advance(by: 1)
        #expect(try DecodedToken(try #require(try fixture.mint(bearer).object["accessToken"] as? String)).keyID == second)

        // The first key is retired but published while its last token lives (plus a minute of clock leeway), and that
        // token still works; then the key leaves the JWKS, and the next round deletes it.
        #expect(try Set(fixture.jwks().keys) == [first, second])
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).status == 200)
        fixture.clock.advance(by: 898)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).status == 200)
        fixture.clock.advance(by: 1)
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(lastOfTheFirst)).errorCode == "not_signed_in")
        fixture.clock.advance(by: 60)
        #expect(try Set(fixture.jwks().keys) == [first, second])
        fixture.clock.advance(by: 1)
        #expect(try Set(fixture.jwks().keys) == [second])
        #expect(try Self.keys(fixture.store).map(\.id).sorted() == [first, second].sorted())
        #expect(fixture.server.processDueKeyWork())
        #expect(try Self.keys(fixture.store).map(\.id) == [second])
    }

    @Test func nothingRotatesBeforeItIsDue() throws {
        let fixture = try TokenFixture()
        for _ in 0..<5 {
            fixture.clock.advance(by: 5 * Self.day)
            #expect(fixture.server.processDueKeyWork())
        }
        #expect(try Self.keys(fixture.store).count == 1)
        fixture.clock.advance(by: 5 * Self.day)
        #expect(fixture.server.processDueKeyWork())
        #expect(try Self.keys(fixture.store).count == 2)
        // A pending key is not replaced again, however often the worker runs.
        for _ in 0..<3 {
            #expect(fixture.server.processDueKeyWork())
        }
        #expect(try Self.keys(fixture.store).count == 2)
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

    @Test func aRotationByHandSignsAfterThePrePublicationOrAtOnce() throws {
        let store = InMemoryStore()
        let clock = ManualClock()
        let fixture = try TokenFixture(store: store, clock: clock)
        let schedule = SigningKeySchedule(settings: TokenSettings(), vault: try SigningKeyVault(serverSecret: Array(repeating: 0x5A, count: 32)))
        let before = try Self.keys(store)
        let scheduled = try schedule.rotate(store: store, now: clock.now, immediately: false)
        #expect(scheduled.change.retired == before.map(\.id))
        let pending = try #require(scheduled.keys.first { $0.id == scheduled.change.created })
        #expect(pending.activatesAt == clock.now.addingTimeInterval(900))
        #expect(scheduled.keys.first { $0.id == before[0].id }?.expiresAt == clock.now.addingTimeInterval(900 + 900 + 60))

        let immediate = try schedule.rotate(store: store, now: clock.now, immediately: true)
        #expect(Set(immediate.change.retired) == [pending.id, before[0].id], "the pending key, and the first, which would still sign")
        #expect(fixture.server.processDueKeyWork())
        let (_, token) = try fixture.register("kim")
        #expect(try DecodedToken(token).keyID == immediate.change.created)
        #expect(try fixture.jwks().count == 3, "the retired keys stay published until their tokens expire")
    }
}
