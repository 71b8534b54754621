import CryptoCore
import FederatedIdentity
import Foundation
import RelyingPartyServer
import Storage
import TestSupport
import Testing

/// App transfers between teams, both sides against the stand-in's token and migration endpoints: transfer-out stores
/// each identity's transfer identifier, transfer-in re-keys each identity to the recipient team's `sub`, and a sign-in
/// whose token carries a known `transfer_sub` re-keys its identity itself.
@Suite("Sign in with Apple: team transfer")
struct AppleTransferTests {
    static let recipientTeam = "RECIP12345"

    /// Three Apple accounts (one with a passkey and a refresh token), and their subjects.
    static func accounts(_ fixture: AppleFixture) throws -> [String] {
        let subjects = ["001.alpha", "001.bravo", "001.charlie"]
        for subject in subjects {
            try fixture.signInFresh(subject: subject, extra: subject == "001.alpha" ? ["authorizationCode": "c.alpha"] : [:])
        }
        fixture.server.processDueAppleWork()
        return subjects
    }

    /// Out: one access token (client_credentials, user.migration, a client secret of the team), then each identity
    /// with `sub`, `target`, `client_id`, `client_secret` and the bearer; the `transfer_sub` stored; paced; a failure
    /// counted, never fatal; a second run does only what failed. In: each exchanged and re-keyed, idempotently.
    @Test func transferOutThenInReKeysEveryIdentity() throws {
        let fixture = try AppleFixture()
        let subjects = try Self.accounts(fixture)
        let owners = try subjects.map { try #require(try fixture.store.appleIdentity(subject: $0)).userID }
        let sessions = try owners.map { try fixture.store.sessions(userID: $0, now: fixture.clock.now) }
        fixture.standIn.failingSubjects = ["001.bravo"]
        var pauses: [TimeInterval] = []
        var progress: [AppleTransfer.Report] = []
        let transfer = try fixture.transfer()
        let first = try transfer.run(
            .out(recipientTeam: Self.recipientTeam),
            interval: 0.25,
            pause: { pauses.append($0) },
            progress: { progress.append($0) }
        )
        #expect(first.seen == 3 && first.transferred == 2 && first.failed == 1 && first.skipped == 0)
        #expect(pauses == [0.25, 0.25], "paced between calls to Apple")
        #expect(progress.count == 4 && progress.last == first, "once before the calls, once after each")
        let tokenCalls = fixture.standIn.calls(to: "/auth/token").filter { $0.form["grant_type"] == "client_credentials" }
        #expect(tokenCalls.count == 1)
        let tokenCall = try #require(tokenCalls.first)
        #expect(tokenCall.form["scope"] == "user.migration" && tokenCall.form["client_id"] == AppleTokenMinter.bundleID)
        try AppleBackgroundWorkTests.expectValidClientSecret(
            tokenCall.form["client_secret"],
            clientID: AppleTokenMinter.bundleID,
            now: fixture.clock.now
        )
        let migration = fixture.standIn.calls(to: "/auth/usermigrationinfo")
        #expect(migration.count == 3)
        #expect(migration.allSatisfy { $0.form["target"] == Self.recipientTeam && $0.authorization?.hasPrefix("Bearer m.") == true })
        #expect(Set(migration.compactMap { $0.form["sub"] }) == Set(subjects))
        #expect(!fixture.log.contains { $0.contains("001.bravo") }, "a failure names no sub")
        #expect(
            try fixture.store.appleIdentity(subject: "001.alpha")?.transferSubject
                == AppleStandIn.transferSubject(for: "001.alpha", team: Self.recipientTeam)
        )
        #expect(try fixture.store.appleIdentity(subject: "001.bravo")?.transferSubject == nil)

        fixture.standIn.failingSubjects = []
        let second = try transfer.run(.out(recipientTeam: Self.recipientTeam), interval: 0, pause: { _ in })
        #expect(second.transferred == 1 && second.skipped == 2 && second.failed == 0, "resumable: only the failed one again")
        #expect(fixture.standIn.calls(to: "/auth/usermigrationinfo").count == 4)

        // The recipient side (here the same database): each transfer_sub → the recipient team's sub.
        let incoming = try transfer.run(.in, interval: 0, pause: { _ in })
        #expect(incoming.transferred == 3 && incoming.failed == 0)
        for (index, subject) in subjects.enumerated() {
            let newSubject = AppleStandIn.recipientSubject(for: subject)
            #expect(try fixture.store.appleIdentity(subject: subject) == nil)
            let identity = try #require(try fixture.store.appleIdentity(subject: newSubject))
            #expect(identity.userID == owners[index] && identity.transferredAt == fixture.clock.now)
            #expect(identity.email == AppleStandIn.recipientEmail(for: subject) && identity.isPrivateEmail)
            // The account's email was the old relay address: it follows the new one (issue 43 item 14).
            #expect(try fixture.store.user(id: owners[index])?.email == AppleStandIn.recipientEmail(for: subject))
            #expect(
                try fixture.store.sessions(userID: owners[index], now: fixture.clock.now).map(\.appleSubject)
                    == sessions[index].map { _ in newSubject }
            )
        }
        #expect(try fixture.store.appleRefreshTokens(subject: AppleStandIn.recipientSubject(for: "001.alpha")) == [], "the sending team's tokens")
        let transferred = try fixture.store.allEvents().filter { $0.type == "apple.transferred" }
        #expect(transferred.count == 3)
        let followed = try fixture.store.allEvents().filter {
            $0.type == "user.updated" && String(decoding: $0.data, as: UTF8.self).contains("email")
        }
        #expect(followed.count == 3, "each account's email change is told")
        #expect(String(decoding: transferred[0].data, as: UTF8.self).contains(#""previousAppleUserId":"001.alpha""#))
        let again = try transfer.run(.in, interval: 0, pause: { _ in })
        #expect(again.transferred == 0 && again.skipped == 3, "idempotent")
        // The recipient team's tokens now sign in to the same accounts.
        #expect(try AppleFixture.userID(try fixture.signInFresh(subject: AppleStandIn.recipientSubject(for: "001.charlie"))) == owners[2])
    }

    /// An access token that expires during a run is replaced once and the identity retried.
    @Test func anExpiredAccessTokenIsRenewed() throws {
        let fixture = try AppleFixture()
        _ = try Self.accounts(fixture)
        let transfer = try fixture.transfer()
        var count = 0
        let report = try transfer.run(
            .out(recipientTeam: Self.recipientTeam),
            interval: 0,
            pause: { _ in },
            progress: { _ in
                count += 1
                if count == 2 { fixture.standIn.expireMigrationAccessTokens() }
            }
        )
        #expect(report.transferred == 3 && report.failed == 0)
        #expect(fixture.standIn.calls(to: "/auth/token").filter { $0.form["grant_type"] == "client_credentials" }.count == 2)
    }

    /// Without an access token (outside the transfer period) nothing runs.
    @Test func noAccessTokenIsAFailureOfTheRun() throws {
        let fixture = try AppleFixture()
        _ = try Self.accounts(fixture)
        fixture.standIn.available = false
        #expect(throws: AppleTransfer.Failure.self) {
            try fixture.transfer().run(.out(recipientTeam: Self.recipientTeam), interval: 0, pause: { _ in })
        }
        fixture.standIn.available = true
        #expect(try fixture.transfer().run(.in, interval: 0, pause: { _ in }).skipped == 3, "nothing to exchange: no token asked for")
    }

    /// A sign-in whose token has an unknown `sub` and the `transfer_sub` of a stored identity re-keys that identity and
    /// signs in to its account; a transfer-in afterwards has nothing left to do for it.
    @Test(arguments: [false, true])
    func aSignInWithAKnownTransferSubReKeysTheIdentity(overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let original = try fixture.signInFresh(subject: "001.alpha", extra: ["authorizationCode": "c.old-team"])
        fixture.server.processDueAppleWork()
        let oldSession = try #require(original.object["token"] as? String)
        let userID = try AppleFixture.userID(original)
        #expect(try fixture.transfer().run(.out(recipientTeam: Self.recipientTeam), interval: 0, pause: { _ in }).transferred == 1)
        let transferSubject = AppleStandIn.transferSubject(for: "001.alpha", team: Self.recipientTeam)
        let raw = AppleFixture.rawNonce()
        let token = try fixture.identityToken(rawNonce: raw, subject: "002.new") { $0["transfer_sub"] = transferSubject }
        let reply = try fixture.signIn(token: token, rawNonce: raw)
        #expect(reply.status == 200 && reply.object["isNewAccount"] as? Bool == false)
        #expect(try AppleFixture.userID(reply) == userID && reply.object["appleUserID"] as? String == "002.new")
        #expect(try fixture.store.appleIdentity(subject: "001.alpha") == nil)
        let identity = try #require(try fixture.store.appleIdentity(subject: "002.new"))
        #expect(identity.userID == userID && identity.transferSubject == transferSubject && identity.transferredAt != nil)
        #expect(try fixture.store.appleRefreshTokens(subject: "002.new") == [])
        let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(oldSession))
        #expect(me.status == 200, "sessions survive the transfer")
        #expect(try fixture.store.sessions(userID: userID, now: fixture.clock.now).allSatisfy { $0.appleSubject == "002.new" })
        #expect(try fixture.store.allEvents().contains { $0.type == "apple.transferred" })
        #expect(try fixture.transfer().run(.in, interval: 0, pause: { _ in }).transferred == 0)
    }
}
