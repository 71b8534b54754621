import CryptoCore
import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Issue 42 follow-up: every passkey sign-in's final write checks the passkey it was verified against, read for it as
/// much as kept from an earlier sign-in (`CeremonyStore.completeAuthentication`). The rows change between a node's read
/// and its write here (`FailingStore.afterCredentialReads`), as another node or an operator would change them.
struct ChangedPasskeyTests {
    struct Node {
        let store = FailingStore(InMemoryStore())
        let clock = ManualClock()
        let client: PasskeyClient
        /// A second server on the same store, which has kept nothing.
        let fresh: PasskeyClient
        let account: PasskeyClient.Account

        init() throws {
            let (store, clock) = (store, clock)
            let node = { () throws in PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock))) }
            (client, fresh) = (try node(), try node())
            account = try client.register("alice")
        }

        /// Read past the store's hooks, which count and change the server's reads only.
        var stored: CredentialRecord {
            get throws { try #require(try store.inner.credential(id: account.credential.id)) }
        }

        var sessions: Int {
            get throws {
                try store.transaction { transaction throws(StorageError) in
                    try transaction.sessions(userID: account.userID, now: Date(timeIntervalSince1970: 0)).count
                }
            }
        }

        /// After each of the next reads of a passkey, in turn, stores `replacements` in place of the passkey's row.
        func replace(afterReads replacements: [CredentialRecord]) {
            let inner = store.inner
            let changes: [@Sendable () throws -> Void] = replacements.map { replacement in
                { @Sendable () throws in
                    try inner.transaction { transaction throws(StorageError) in
                        _ = try transaction.deleteCredential(id: replacement.id, userID: replacement.userID)
                        try transaction.insertCredential(replacement)
                    }
                }
            }
            store.afterCredentialReads.withLock { $0 = changes }
        }
    }

    @Test func aPasskeyRegisteredAgainWithAnotherKeyAfterTheReadIsRefused() throws {
        let node = try Node()
        let bob = try node.client.register("bob")
        var again = try node.stored
        again.publicKey = try #require(try node.store.credential(id: bob.credential.id)).publicKey
        again.signCount = 0
        let before = try node.sessions
        node.replace(afterReads: [again])
        // Verified against the key read, which the holder of the old key signs with: the write must refuse it.
        let reply = try node.client.signIn(node.account.credential, AssertionOptions(signCount: 1))
        let afterTheChange = try node.fresh.signIn(node.account.credential, AssertionOptions(signCount: 2))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == afterTheChange.errorCode && reply.status == afterTheChange.status, "as a node that read after the change")
        #expect(try node.stored == again, "nothing written")
        #expect(try node.sessions == before, "no session")
    }

    @Test func aPasskeyThatChangesAgainAfterTheSecondReadIsAStableConflict() throws {
        let node = try Node()
        var toggled = try node.stored
        toggled.backupEligible.toggle()
        // Changed after the first read, and back after the second: each write finds another row than its read.
        node.replace(afterReads: [toggled, try node.stored])
        let before = (sessions: try node.sessions, stored: try node.stored)
        let options = try node.client.requestOptions()
        let assertion = try node.client.assertion(node.account.credential, answering: options, AssertionOptions(signCount: 1))
        let reply = try node.client.authenticationVerify(assertion)
        #expect(reply.status == 409, "\(reply.text)")
        #expect(reply.object as NSDictionary == ["error": "passkey_changed", "message": "The passkey changed while signing in; sign in again."])
        #expect(node.store.signInWrites.withLock { $0 } == 2, "one write after each read, no third")
        #expect(try node.sessions == before.sessions, "no session")
        #expect(try node.stored == before.stored, "nothing written, the passkey not flagged")
        // The first write spent the challenge: the same assertion again is refused for it.
        let replayed = try node.client.authenticationVerify(assertion)
        #expect(replayed.status == 400 && replayed.errorCode == "challenge_unknown", "\(replayed.text)")
        #expect(try node.client.signIn(node.account.credential, AssertionOptions(signCount: 2)).status == 200, "signs in again")
    }

    @Test func aPasskeyDeletedOnThisNodeIsNotVerifiedAgainstItsKeptRecord() throws {
        let node = try Node()
        let second = try node.client.addPasskey(token: node.account.token)
        #expect(try node.client.signIn(node.account.credential, AssertionOptions(signCount: 1)).status == 200, "kept")
        let deleted = try node.client.send(
            "DELETE",
            "/me/passkeys/" + Base64URL.encode(node.account.credential.id),
            headers: PasskeyClient.bearer(node.account.token)
        )
        #expect(deleted.status < 300, "\(deleted.text)")
        let writes = node.store.signInWrites.withLock { $0 }
        let reply = try node.client.signIn(node.account.credential, AssertionOptions(signCount: 2))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(node.store.signInWrites.withLock { $0 } == writes, "refused at the read: the kept record went with the passkey")
        #expect(try node.client.signIn(second, AssertionOptions(signCount: 1)).status == 200)
    }

    @Test func anAccountDeletedOnThisNodeLeavesNoKeptRecord() throws {
        let node = try Node()
        #expect(try node.client.signIn(node.account.credential, AssertionOptions(signCount: 1)).status == 200, "kept")
        let deleted = try node.client.send("DELETE", "/me", headers: PasskeyClient.bearer(node.account.token))
        #expect(deleted.status < 300, "\(deleted.text)")
        let writes = node.store.signInWrites.withLock { $0 }
        let reply = try node.client.signIn(node.account.credential, AssertionOptions(signCount: 2))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(node.store.signInWrites.withLock { $0 } == writes, "refused at the read: the kept record went with the account")
    }

    @Test func aKeptPasskeyThatChangesAgainAfterTheFreshReadIsAStableConflict() throws {
        let node = try Node()
        #expect(try node.client.signIn(node.account.credential, AssertionOptions(signCount: 1)).status == 200, "kept")
        let kept = try node.stored
        var toggled = kept
        toggled.backupEligible.toggle()
        try node.store.inner.transaction { transaction throws(StorageError) in
            _ = try transaction.deleteCredential(id: toggled.id, userID: toggled.userID)
            try transaction.insertCredential(toggled)
        }
        // The kept record is stale; the fresh read finds the toggled row, which changes back before its write.
        node.replace(afterReads: [kept])
        let reply = try node.client.signIn(node.account.credential, AssertionOptions(signCount: 2))
        #expect(reply.status == 409 && reply.errorCode == "passkey_changed", "\(reply.text)")
        #expect(try node.stored == kept, "nothing written")
    }

    @Test func aPasskeyMovedByAMergeOnThisNodeIsNotVerifiedAgainstItsKeptRecord() throws {
        let store = FailingStore(InMemoryStore())
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(AdminAPITests.configuration), store: store)
        let client = PasskeyClient(DirectTransport(handler: server))
        let admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        let alice = try client.register("alice")
        let bob = try client.register("bob")
        #expect(try client.signIn(bob.credential, AssertionOptions(signCount: 1)).status == 200, "kept")
        let merged = try admin.send(
            "POST",
            "/admin/users/\(Base64URL.encode(alice.userID))/merge",
            json: Array(#"{"from": "\#(Base64URL.encode(bob.userID))"}"#.utf8),
            headers: AdminAPITests.key
        )
        #expect(merged.status == 200, "\(merged.text)")
        let writes = store.signInWrites.withLock { $0 }
        let reply = try client.signIn(bob.credential, AssertionOptions(signCount: 2))
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.object["user"] as? [String: Any])?["id"] as? String == Base64URL.encode(alice.userID), "into the survivor")
        #expect(store.signInWrites.withLock { $0 } == writes + 1, "one write: the kept record naming the gone account went with the merge")
    }

    /// A PostgreSQL write answers the owner's row as locked, after waiting for a transaction that disabled the account
    /// once the write had checked the flag: the sign-in is refused as a disabled account's, without an access token.
    @Test func anOwnerDisabledWhileTheWriteWaitedIsRefused() throws {
        let node = try Node()
        node.store.ownerAtWrite.withLock {
            $0 = { owner in
                var disabled = owner
                disabled.disabled = true
                return disabled
            }
        }
        let reply = try node.client.signIn(node.account.credential, AssertionOptions(signCount: 1))
        #expect(reply.status == 403, "\(reply.text)")
        #expect(reply.errorCode == "account_disabled")
        #expect(!reply.text.contains("accessToken") && !reply.text.contains("token\""), "no token in the answer")
    }
}
