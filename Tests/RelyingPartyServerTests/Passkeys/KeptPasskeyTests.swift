import Foundation
import Storage
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Issue 42: a node verifies the next sign-in with a passkey against the record it kept from the last one, without
/// reading it (`SignInRecordCache`). Whatever changed meanwhile, on this node or another, ends as it does on a node
/// that reads it: the final write refuses a record that no longer holds what the verification assumed, and the node
/// verifies again from a fresh read. Two nodes on one store; the third, `fresh`, has never seen the passkey.
struct KeptPasskeyTests {
    struct Nodes {
        let store = InMemoryStore()
        let kept: PasskeyClient
        let other: PasskeyClient
        let fresh: PasskeyClient
        let account: PasskeyClient.Account

        init() throws {
            let (store, clock) = (store, ManualClock())
            let node = { () throws in PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock))) }
            (kept, other, fresh) = (try node(), try node(), try node())
            account = try kept.register("alice")
            let first = try kept.signIn(account.credential, AssertionOptions(signCount: 1))
            #expect(first.status == 200, "\(first.text)")
        }

        var stored: CredentialRecord {
            get throws { try #require(try store.credential(id: account.credential.id)) }
        }

        /// Changes the stored rows as another node (or an operator) would.
        func change(_ body: (any StoreTransaction) throws(StorageError) -> Void) throws {
            try store.transaction { transaction throws(StorageError) in try body(transaction) }
        }
    }

    @Test func aKeptKeyDeletedAndRegisteredAgainWithAnotherKeyIsRefused() throws {
        let nodes = try Nodes()
        let bob = try nodes.other.register("bob")
        var again = try nodes.stored
        again.publicKey = try #require(try nodes.store.credential(id: bob.credential.id)).publicKey
        again.signCount = 0
        try nodes.change { transaction throws(StorageError) in
            _ = try transaction.deleteCredential(id: again.id, userID: again.userID)
            try transaction.insertCredential(again)
        }
        // The old key's holder: verified against the kept key, it would pass.
        let reply = try nodes.kept.signIn(nodes.account.credential, AssertionOptions(signCount: 2))
        let unkept = try nodes.fresh.signIn(nodes.account.credential, AssertionOptions(signCount: 3))
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.errorCode == unkept.errorCode && reply.status == unkept.status)
        #expect(try nodes.stored == again, "nothing written")
    }

    @Test func aKeptPasskeyDeletedIsRefusedAsAnUnknownOne() throws {
        let nodes = try Nodes()
        let stored = try nodes.stored
        try nodes.change { transaction throws(StorageError) in _ = try transaction.deleteCredential(id: stored.id, userID: stored.userID) }
        let options = try nodes.kept.requestOptions()
        let assertion = try nodes.kept.assertion(nodes.account.credential, answering: options, AssertionOptions(signCount: 2))
        let reply = try nodes.kept.authenticationVerify(assertion)
        let unkept = try nodes.fresh.signIn(nodes.account.credential, AssertionOptions(signCount: 3))
        #expect(reply.status == unkept.status && reply.status == 400, "\(reply.text)")
        #expect(reply.text == unkept.text)
        // The challenge was spent: the same assertion again is refused for its challenge, as on a node that read.
        let replayed = try nodes.kept.authenticationVerify(assertion)
        #expect(replayed.status == 400 && replayed.errorCode == "challenge_unknown", "\(replayed.text)")
    }

    @Test func aKeptPasskeyIsNotReadAgainByTheNodeThatKeptIt() throws {
        let (store, clock) = (FailingStore(InMemoryStore()), ManualClock())
        let node = { () throws in PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, clock: clock))) }
        let (kept, fresh) = (try node(), try node())
        let account = try kept.register("alice")
        let reads = { store.credentialReads.withLock { $0 } }
        #expect(try kept.signIn(account.credential, AssertionOptions(signCount: 1)).status == 200)
        let afterFirst = reads()
        #expect(afterFirst == 1, "the first sign-in reads the passkey")
        #expect(try kept.signIn(account.credential, AssertionOptions(signCount: 2)).status == 200)
        #expect(reads() == afterFirst, "the node that kept it does not read it again")
        #expect(try fresh.signIn(account.credential, AssertionOptions(signCount: 3)).status == 200)
        #expect(reads() == afterFirst + 1, "a node that never saw it reads it")
    }

    @Test func aKeptPasskeyChangedElsewhereIsVerifiedAgainAndSignsInOnce() throws {
        let nodes = try Nodes()
        var changed = try nodes.stored
        changed.backupEligible.toggle()
        try nodes.change { transaction throws(StorageError) in
            _ = try transaction.deleteCredential(id: changed.id, userID: changed.userID)
            try transaction.insertCredential(changed)
        }
        let sessions = {
            try nodes.store.transaction { transaction throws(StorageError) in
                try transaction.sessions(userID: nodes.account.userID, now: Date(timeIntervalSince1970: 0)).count
            }
        }
        let before = try sessions()
        let options = try nodes.kept.requestOptions()
        let assertion = try nodes.kept.assertion(nodes.account.credential, answering: options, AssertionOptions(signCount: 2))
        // The write refuses the kept record (its flag changed), and the fresh read's verification passes.
        let reply = try nodes.kept.authenticationVerify(assertion)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try sessions() == before + 1, "one session")
        #expect(try nodes.stored.signCount == 2)
        let replayed = try nodes.kept.authenticationVerify(assertion)
        #expect(replayed.status == 400 && replayed.errorCode == "challenge_unknown", "\(replayed.text)")
        #expect(try sessions() == before + 1)
    }

    @Test func aCounterRaisedOnAnotherNodeRefusesTheKeptOnesLowerCounter() throws {
        let nodes = try Nodes()
        #expect(try nodes.other.signIn(nodes.account.credential, AssertionOptions(signCount: 10)).status == 200)
        let reply = try nodes.kept.signIn(nodes.account.credential, AssertionOptions(signCount: 5))
        #expect(reply.status == 401 && reply.errorCode == "possible_clone", "\(reply.text)")
        let stored = try nodes.stored
        #expect(stored.signCount == 10 && stored.cloneWarning)
        #expect(try nodes.kept.signIn(nodes.account.credential, AssertionOptions(signCount: 11)).status == 200)
    }

    @Test func aKeptPasskeysOwnerDisabledOrRenamedIsAnsweredAsStored() throws {
        let nodes = try Nodes()
        var owner = try #require(try nodes.store.user(id: nodes.account.userID))
        owner.displayName = "Alice, renamed elsewhere"
        owner.displayNameIsDefault = false
        try nodes.change { transaction throws(StorageError) in _ = try transaction.updateUser(owner) }
        let renamed = try nodes.kept.signIn(nodes.account.credential, AssertionOptions(signCount: 2))
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect((renamed.object["user"] as? [String: Any])?["displayName"] as? String == "Alice, renamed elsewhere")
        owner.disabled = true
        try nodes.change { transaction throws(StorageError) in _ = try transaction.updateUser(owner) }
        let disabled = try nodes.kept.signIn(nodes.account.credential, AssertionOptions(signCount: 3))
        let unkept = try nodes.fresh.signIn(nodes.account.credential, AssertionOptions(signCount: 4))
        #expect(disabled.status == unkept.status && disabled.errorCode == "account_disabled", "\(disabled.text)")
    }
}
