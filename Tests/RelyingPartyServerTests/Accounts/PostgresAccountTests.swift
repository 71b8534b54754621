import CryptoCore
import Foundation
import Storage
import StoragePostgres
import TestSupport
import Testing

/// The account lifecycle's compound operations, written once on `store.transaction`, on PostgreSQL (serializable
/// transactions, retried): link, merge with each survivor, notifications in order, unlink, transfer.
@Suite("Account lifecycle on PostgreSQL", PostgresClusterScope())
struct PostgresAccountTests {
    static func fixture() throws -> AppleFixture {
        let cluster = try PostgresClusterScope.current()
        let store = try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 4)
        return try AppleFixture(store: store)
    }

    @Test(arguments: ["current", "other"])
    func linkMergeAndUnlink(keep: String) throws {
        let fixture = try Self.fixture()
        let accounts = try MergeTests.accounts(fixture)
        let conflict = try fixture.merge(try MergeTests.proof(.mergeToken, fixture, accounts), keep: nil, token: accounts.current.token)
        #expect(conflict.errorCode == "merge_conflict")
        let token = try #require(conflict.object["mergeToken"] as? String)
        let merged = try fixture.merge(["mergeToken": token], keep: keep, token: accounts.current.token)
        #expect(merged.status == 200, "\(merged.text)")
        let survivor = keep == "current" ? accounts.current.userID : accounts.otherID
        let gone = keep == "current" ? accounts.otherID : accounts.current.userID
        #expect(try fixture.store.user(id: gone) == nil)
        #expect(try fixture.store.credentials(userID: survivor).count == 2)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.userID == survivor)
        let session = try #require(keep == "current" ? accounts.current.token : merged.object["token"] as? String)
        #expect(try fixture.client.signIn(accounts.otherPasskey).status == 200, "a merged-in passkey signs in")
        let unlinked = try fixture.client.send("DELETE", "/me/apple/" + AppleTokenMinter.subject, headers: PasskeyClient.bearer(session))
        #expect(unlinked.status == 200)
        #expect(try fixture.store.appleIdentities(userID: survivor) == [])
    }

    @Test func notificationsAndTransfer() throws {
        let fixture = try Self.fixture()
        let apple = try fixture.signInFresh()
        let userID = try AppleFixture.userID(apple)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try fixture.notify(AppleFixture.event("email-disabled", email: true, at: start.addingTimeInterval(20)), jti: "p-1").status == 200)
        #expect(try fixture.notify(AppleFixture.event("email-enabled", email: true, at: start.addingTimeInterval(10)), jti: "p-2").status == 200)
        #expect(try fixture.notify(AppleFixture.event("email-enabled", email: true, at: start.addingTimeInterval(30)), jti: "p-1").status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.emailDisabled == true, "late and replayed ones changed nothing")
        #expect(try fixture.notify(AppleFixture.event("consent-revoked", at: start.addingTimeInterval(40))).status == 200)
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.consentRevoked == true)
        fixture.clock.advance(by: 60)
        #expect(try AppleFixture.userID(try fixture.signInFresh()) == userID, "the same account after revocation")
        let transfer = try fixture.transfer()
        #expect(try transfer.run(.out(recipientTeam: AppleTransferTests.recipientTeam), interval: 0, pause: { _ in }).transferred == 1)
        #expect(try transfer.run(.in, interval: 0, pause: { _ in }).transferred == 1)
        #expect(try fixture.store.appleIdentity(subject: AppleStandIn.recipientSubject(for: AppleTokenMinter.subject))?.userID == userID)
        #expect(
            try fixture.notify(
                AppleFixture.event(
                    "account-delete",
                    subject: AppleStandIn.recipientSubject(for: AppleTokenMinter.subject),
                    at: start.addingTimeInterval(120)
                )
            ).status == 200
        )
        #expect(try fixture.store.user(id: userID) == nil, "its only way in went: the account goes")
    }
}
